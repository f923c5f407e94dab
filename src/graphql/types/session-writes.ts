/**
 * The session-level mutations: create, rename, fork and import (a session's
 * continuation from its pi file is ./continuation.ts, an entry's append
 * ./entry-writes.ts). Input shapes and calls only: the rules are the store's.
 */
import { deleteWorkspaceSessions, MAX_OFFBOARD_BATCH, type Offboarded } from "../../store/offboard.js";
import type { ImportedSession } from "../../store/store.js";
import { builder, type GraphQLContext } from "../builder.js";
import { SessionRef } from "../refs.js";
import { AppendEntryPayloadRef } from "./entry.js";

const CreateSessionInput = builder.inputType("CreateSessionInput", {
	fields: (t) => ({
		sessionId: t.string({
			description: "Optional caller-chosen id (pi's session id); generated when absent.",
		}),
		name: t.string(),
		cwd: t.string(),
		parentSessionId: t.string(),
	}),
});

const RenameSessionInput = builder.inputType("RenameSessionInput", {
	fields: (t) => ({ sessionId: t.string({ required: true }), name: t.string({ required: true }) }),
});

const ForkSessionInput = builder.inputType("ForkSessionInput", {
	fields: (t) => ({
		sessionId: t.string({ required: true }),
		entryId: t.string({
			description: "The new session holds the path root -> entryId (default: current leaf).",
		}),
		newSessionId: t.string(),
	}),
});

const ArchiveSessionInput = builder.inputType("ArchiveSessionInput", {
	fields: (t) => ({ sessionId: t.string({ required: true }) }),
});

const ImportSessionInput = builder.inputType("ImportSessionInput", {
	fields: (t) => ({
		jsonl: t.string({ required: true, description: "A pi session file (JSONL, versions 1-3)." }),
		sessionId: t.string({ description: "Overrides the header's id." }),
	}),
});

const ImportSessionPayloadRef = builder.objectRef<ImportedSession>("ImportSessionPayload").implement({
	fields: (t) => ({
		session: t.field({ type: SessionRef, resolve: (imported) => imported }),
		created: t.exposeBoolean("created", {
			description: "False when the same file was imported before and the stored session is returned.",
		}),
	}),
});

function importFile(
	input: { jsonl: string; sessionId?: string | null | undefined },
	{ store, workspaceId, identity }: Pick<GraphQLContext, "store" | "workspaceId" | "identity">,
): Promise<ImportedSession> {
	return store.importSession(workspaceId, input.jsonl, {
		...(input.sessionId == null ? {} : { sessionId: input.sessionId }),
		author: identity.subject,
	});
}

/** Drop nulls: GraphQL's "not given" and the store's optional fields. */
function given<T extends Record<string, unknown>>(
	input: T,
): { [K in keyof T]?: Exclude<T[K], null | undefined> } {
	return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined)) as never;
}

const DeleteSessionInput = builder.inputType("DeleteSessionInput", {
	fields: (t) => ({ sessionId: t.string({ required: true }) }),
});

const DeleteSessionPayloadRef = builder
	.objectRef<{ sessionId: string; entryCount: number }>("DeleteSessionPayload")
	.implement({
		fields: (t) => ({
			sessionId: t.exposeString("sessionId"),
			deletedEntries: t.int({ description: "The entries the session held.", resolve: (d) => d.entryCount }),
		}),
	});

const DeleteWorkspaceSessionsPayloadRef = builder
	.objectRef<Offboarded>("DeleteWorkspaceSessionsPayload")
	.implement({
		fields: (t) => ({
			deleted: t.exposeInt("deleted", { description: "Sessions this call deleted." }),
			remaining: t.exposeInt("remaining", {
				description: "Sessions the workspace still holds, archived ones included: call again until 0.",
			}),
		}),
	});

builder.mutationFields((t) => ({
	deleteWorkspaceSessions: t.field({
		type: DeleteWorkspaceSessionsPayloadRef,
		description:
			"Offboarding: delete up to `first` sessions of the caller's workspace (archived ones included), each as deleteSession does; call again until `remaining` is 0. Resumable: an interrupted call leaves only whole sessions, and the next goes on with the rest. Needs the admin scope.",
		authScopes: { admin: true },
		skipTypeScopes: true,
		complexity: 100,
		args: { first: t.arg.int({ defaultValue: 100, description: `At most ${MAX_OFFBOARD_BATCH}.` }) },
		resolve: (_, { first }, { store, workspaceId }) =>
			deleteWorkspaceSessions(store, workspaceId, first ?? 100),
	}),
	deleteSession: t.field({
		type: DeleteSessionPayloadRef,
		description:
			"Delete the session and everything derived from it (entries, search text, rollups, its activity records): the one write that removes anything, and it cannot be undone. Needs the admin scope, which write does not imply. Its live subscribers get SessionDeleted and their streams end; a write racing it lands before it (and is deleted) or is NOT_FOUND.",
		authScopes: { admin: true },
		skipTypeScopes: true,
		args: { input: t.arg({ type: DeleteSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId }) => store.deleteSession(workspaceId, input.sessionId),
	}),
	createSession: t.field({
		type: SessionRef,
		args: { input: t.arg({ type: CreateSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId }) => store.createSession(workspaceId, given(input)),
	}),
	renameSession: t.field({
		type: AppendEntryPayloadRef,
		description: "Name the session by appending a session_info entry (trimmed; empty clears).",
		args: { input: t.arg({ type: RenameSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId, identity }) =>
			store.renameSession(workspaceId, input.sessionId, input.name, { author: identity.subject }),
	}),
	archiveSession: t.field({
		type: SessionRef,
		description:
			"Archive the session: read-only (every write is ARCHIVED) and hidden from `sessions` unless its filter asks for archived ones; nothing of it is lost, and unarchiveSession brings it back. Archiving an archived session keeps its archivedAt.",
		args: { input: t.arg({ type: ArchiveSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId }) => store.setArchived(workspaceId, input.sessionId, true),
	}),
	unarchiveSession: t.field({
		type: SessionRef,
		description: "Bring an archived session back: writable and listed again (a no-op for an active one).",
		args: { input: t.arg({ type: ArchiveSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId }) => store.setArchived(workspaceId, input.sessionId, false),
	}),
	forkSession: t.field({
		type: SessionRef,
		description: "Copy the path root -> entry into a new session whose parent is this one.",
		complexity: 100,
		args: { input: t.arg({ type: ForkSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId, identity }) => {
			const { entryId, newSessionId } = given(input);
			return store.forkSession(workspaceId, input.sessionId, {
				...(entryId === undefined ? {} : { entryId }),
				...(newSessionId === undefined ? {} : { newSessionId }),
				author: identity.subject,
			});
		},
	}),
	importSession: t.field({
		type: SessionRef,
		description:
			"Import a pi session file of any version (1-3); it is migrated to version 3. Re-importing the file of a stored session returns it; other content under a taken id is ALREADY_EXISTS. importSessionFile also tells which happened.",
		complexity: 100,
		args: { input: t.arg({ type: ImportSessionInput, required: true }) },
		resolve: (_, { input }, context) => importFile(input, context),
	}),
	importSessionFile: t.field({
		type: ImportSessionPayloadRef,
		description:
			"importSession, answering whether the session was created: false when the identical file was already imported (nothing is written).",
		complexity: 100,
		args: { input: t.arg({ type: ImportSessionInput, required: true }) },
		resolve: (_, { input }, context) => importFile(input, context),
	}),
}));
