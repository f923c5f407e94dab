/**
 * Entries: the Entry interface (fields every entry has), the append-log
 * connection, and the payload of an append. The object type of each entry
 * type is in entry-types.ts; the mutations that append are in entry-writes.ts.
 */
import { type StoredEntry, typeOrOther } from "../../session/entry.js";
import { DEFAULT_PREVIEW_LENGTH } from "../../session/message-summary.js";
import { nodePreview } from "../../session/tree-view.js";
import type { SessionRecord } from "../../store/store.js";
import { spend } from "../budget.js";
import { builder } from "../builder.js";
import { connectionType } from "../connection.js";
import { ENTRY_TYPE_NAMES, EntryRef, EntryTypeEnum, NodeRef, SessionRef } from "../refs.js";
import { entryIdField } from "./node.js";

async function sessionOf(
	e: StoredEntry,
	loaders: { session: { load(id: string): Promise<SessionRecord | null> } },
) {
	const session = await loaders.session.load(e.sessionId);
	if (!session) throw new Error(`entry ${e.entry.id} of session ${e.sessionId} has no session`);
	return session;
}

EntryRef.implement({
	description: "One line of a session's append log.",
	interfaces: [NodeRef],
	resolveType: (e) => ENTRY_TYPE_NAMES[typeOrOther(e.entry.type)],
	fields: (t) => ({
		id: entryIdField(t),
		entryId: t.string({
			description: "The entry's own id, unique within its session (pi's `id`).",
			resolve: (e) => e.entry.id,
		}),
		seq: t.int({
			description: "Position in the session's append log, 1-based, no gaps.",
			resolve: (e) => e.seq,
		}),
		type: t.field({ type: EntryTypeEnum, resolve: (e) => typeOrOther(e.entry.type) }),
		typeName: t.string({
			description:
				"The entry's `type` as pi wrote it: for OTHER, the type the service does not know (kept as it is, a tree node, nothing in the context).",
			resolve: (e) => e.entry.type,
		}),
		parentId: t.string({ nullable: true, resolve: (e) => e.entry.parentId }),
		parent: t.field({
			type: EntryRef,
			nullable: true,
			resolve: (e, _, { loaders }) =>
				e.entry.parentId === null
					? null
					: loaders.entry.load({ sessionId: e.sessionId, entryId: e.entry.parentId }),
		}),
		timestamp: t.field({ type: "DateTime", resolve: (e) => e.entry.timestamp }),
		depth: t.int({
			description: "Distance from the root: a root entry has depth 0.",
			resolve: (e) => e.depth,
		}),
		author: t.string({
			nullable: true,
			description: "Subject of the token that wrote this entry; null when written without authentication.",
			resolve: (e) => e.author,
		}),
		label: t.string({
			description: "Current label of this entry, if any.",
			nullable: true,
			resolve: (e, _, { loaders }) => loaders.label.load({ sessionId: e.sessionId, entryId: e.entry.id }),
		}),
		preview: t.string({
			description:
				"One line of plain text for lists and trees, as Session.tree's nodes have it: a message's text (session/message-summary.ts rules), a tag such as `[branch summary]: …` or `[model: id]` for other types; cut at maxLength code points with an ellipsis.",
			args: { maxLength: t.arg.int({ defaultValue: DEFAULT_PREVIEW_LENGTH }) },
			resolve: (e, { maxLength }) => nodePreview(e.entry, maxLength ?? DEFAULT_PREVIEW_LENGTH),
		}),
		children: t.field({
			type: [EntryRef],
			description: "Child nodes in log order (leaf records are not tree nodes and never appear here).",
			// Unpaged and unbounded (one root may have thousands of children): nesting it is dear.
			complexity: { field: 2, multiplier: 50 },
			resolve: async (e, _, { loaders, budget }) =>
				loaders.prime(
					spend(budget, await loaders.children.load({ sessionId: e.sessionId, entryId: e.entry.id })),
				),
		}),
		session: t.field({ type: SessionRef, resolve: (e, _, { loaders }) => sessionOf(e, loaders) }),
		raw: t.field({
			type: "JSON",
			description: "The entry exactly as pi writes it to a JSONL line.",
			resolve: (e) => e.entry,
		}),
	}),
});

/** The append log of a session, cursor-paged (see Session.entries). */
export const EntryConnectionRef = connectionType("Entry", EntryRef);

interface AppendPayload {
	entry: StoredEntry;
	session: SessionRecord;
	created: boolean;
}

export const AppendEntryPayloadRef = builder.objectRef<AppendPayload>("AppendEntryPayload").implement({
	fields: (t) => ({
		entry: t.field({ type: EntryRef, resolve: (p) => p.entry }),
		session: t.field({ type: SessionRef, resolve: (p) => p.session }),
		created: t.exposeBoolean("created", {
			description:
				"False when the same entry (same entryId and content) was re-sent and the stored one is returned.",
		}),
	}),
});
