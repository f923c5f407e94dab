/**
 * Entries: the Entry interface (fields every entry has), one object type per
 * entry type with that type's own fields, the append-log connection, and the
 * mutations that append (appendEntry, moveLeaf, setLabel).
 */
import type { DraftEntry, EntryType, StoredEntry } from "../../session/entry.js";
import { invalidInput } from "../../session/errors.js";
import type { MoveLeafResult, SessionRecord } from "../../store/store.js";
import { spend } from "../budget.js";
import { builder } from "../builder.js";
import { connectionType } from "../connection.js";
import { ENTRY_TYPE_NAMES, EntryRef, EntryTypeEnum, NodeRef, SessionRef } from "../refs.js";

/** A field of the entry's own pi object. */
const own = <T = string>(e: StoredEntry, name: string): T => e.entry[name] as T;
const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

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
	resolveType: (e) => ENTRY_TYPE_NAMES[e.entry.type],
	fields: (t) => ({
		entryId: t.string({
			description: "The entry's own id, unique within its session (pi's `id`).",
			resolve: (e) => e.entry.id,
		}),
		seq: t.int({
			description: "Position in the session's append log, 1-based, no gaps.",
			resolve: (e) => e.seq,
		}),
		type: t.field({ type: EntryTypeEnum, resolve: (e) => e.entry.type }),
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

const entryRef = (name: string) => builder.objectRef<StoredEntry>(name);
type EntryFields = Parameters<ReturnType<typeof entryRef>["implement"]>[0]["fields"];

function entryObject(type: EntryType, description: string, fields: EntryFields) {
	return entryRef(ENTRY_TYPE_NAMES[type]).implement({
		description,
		interfaces: [EntryRef, NodeRef],
		isTypeOf: (value) => (value as StoredEntry).entry?.type === type,
		fields,
	});
}

entryObject("message", "A message of the conversation (pi's AgentMessage).", (t) => ({
	role: t.string({ resolve: (e) => own<{ role: string }>(e, "message").role }),
	message: t.field({
		type: "JSON",
		description: "The AgentMessage as pi stores it.",
		resolve: (e) => own<unknown>(e, "message"),
	}),
}));

entryObject("thinking_level_change", "Sets the thinking level for the rest of the branch.", (t) => ({
	thinkingLevel: t.string({ resolve: (e) => own(e, "thinkingLevel") }),
}));

entryObject("model_change", "Sets the model for the rest of the branch.", (t) => ({
	provider: t.string({ resolve: (e) => own(e, "provider") }),
	modelId: t.string({ resolve: (e) => own(e, "modelId") }),
}));

entryObject("active_tools_change", "Sets the active tools for the rest of the branch.", (t) => ({
	activeToolNames: t.stringList({ resolve: (e) => own<string[]>(e, "activeToolNames") }),
}));

entryObject(
	"compaction",
	"Replaces the path before `firstKeptEntryId` with a summary in the context.",
	(t) => ({
		summary: t.string({ resolve: (e) => own(e, "summary") }),
		firstKeptEntryId: t.string({
			nullable: true,
			resolve: (e) => orNull(own<string | undefined>(e, "firstKeptEntryId")),
		}),
		tokensBefore: t.int({ resolve: (e) => own<number>(e, "tokensBefore") }),
		details: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(own<unknown>(e, "details")) }),
		fromHook: t.boolean({ nullable: true, resolve: (e) => orNull(own<boolean | undefined>(e, "fromHook")) }),
	}),
);

export const BranchSummaryEntryRef = entryObject(
	"branch_summary",
	"The summary of an abandoned branch; the first visible node of the new one.",
	(t) => ({
		fromId: t.string({ resolve: (e) => own(e, "fromId") }),
		summary: t.string({ resolve: (e) => own(e, "summary") }),
		details: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(own<unknown>(e, "details")) }),
		fromHook: t.boolean({ nullable: true, resolve: (e) => orNull(own<boolean | undefined>(e, "fromHook")) }),
	}),
);

entryObject("custom", "Extension state; not in the model context unless a projector is registered.", (t) => ({
	customType: t.string({ resolve: (e) => own(e, "customType") }),
	data: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(own<unknown>(e, "data")) }),
}));

entryObject("custom_message", "An extension's message; in the context as role `custom`.", (t) => ({
	customType: t.string({ resolve: (e) => own(e, "customType") }),
	content: t.field({ type: "JSON", resolve: (e) => own<unknown>(e, "content") }),
	display: t.boolean({ resolve: (e) => own<boolean>(e, "display") }),
	details: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(own<unknown>(e, "details")) }),
}));

entryObject("label", "Sets or clears the label of another entry.", (t) => ({
	targetId: t.string({ resolve: (e) => own(e, "targetId") }),
	target: t.field({
		type: EntryRef,
		nullable: true,
		resolve: (e, _, { loaders }) =>
			loaders.entry.load({ sessionId: e.sessionId, entryId: own(e, "targetId") }),
	}),
	targetLabel: t.string({
		description: "The label this entry sets on its target; null clears it.",
		nullable: true,
		resolve: (e) => own<string | undefined>(e, "label") || null,
	}),
}));

entryObject("session_info", "Names the session (the latest one wins).", (t) => ({
	name: t.string({ nullable: true, resolve: (e) => orNull(own<string | undefined>(e, "name")) }),
}));

export const LeafEntryRef = entryObject(
	"leaf",
	"A move of the leaf pointer: a record, never a tree node and never the leaf itself.",
	(t) => ({
		targetId: t.string({ nullable: true, resolve: (e) => own<string | null>(e, "targetId") }),
		target: t.field({
			type: EntryRef,
			nullable: true,
			resolve: (e, _, { loaders }) => {
				const targetId = own<string | null>(e, "targetId");
				return targetId === null ? null : loaders.entry.load({ sessionId: e.sessionId, entryId: targetId });
			},
		}),
	}),
);

/** The append log of a session, cursor-paged (see Session.entries). */
export const EntryConnectionRef = connectionType("Entry", EntryRef);

// ---- Writes ---------------------------------------------------------------

const ModelChangeInput = builder.inputType("ModelChangeInput", {
	fields: (t) => ({ provider: t.string({ required: true }), modelId: t.string({ required: true }) }),
});

const CompactionInput = builder.inputType("CompactionInput", {
	fields: (t) => ({
		summary: t.string({ required: true }),
		firstKeptEntryId: t.string({ required: true }),
		tokensBefore: t.int({ required: true }),
		details: t.field({ type: "JSON" }),
	}),
});

const CustomEntryInput = builder.inputType("CustomEntryInput", {
	fields: (t) => ({ customType: t.string({ required: true }), data: t.field({ type: "JSON" }) }),
});

const CustomMessageInput = builder.inputType("CustomMessageInput", {
	fields: (t) => ({
		customType: t.string({ required: true }),
		content: t.field({ type: "JSON", required: true }),
		display: t.boolean({ required: true }),
		details: t.field({ type: "JSON" }),
	}),
});

const NewEntryInput = builder.inputType("NewEntryInput", {
	description: "One new entry: exactly one field must be set.",
	isOneOf: true,
	fields: (t) => ({
		message: t.field({ type: "JSON" }),
		thinkingLevelChange: t.string(),
		modelChange: t.field({ type: ModelChangeInput }),
		activeToolsChange: t.stringList(),
		compaction: t.field({ type: CompactionInput }),
		custom: t.field({ type: CustomEntryInput }),
		customMessage: t.field({ type: CustomMessageInput }),
	}),
});

type NewEntry = typeof NewEntryInput.$inferInput;

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;
const withOptional = (name: string, value: unknown) => (present(value) ? { [name]: value } : {});

/** The input's one entry kind as a draft for the store (input shape only; the store validates). */
export function draftOf(input: NewEntry): DraftEntry {
	const given = Object.entries(input).filter(([, value]) => present(value));
	if (given.length !== 1) throw invalidInput("entry", "exactly one entry kind must be set");
	if (present(input.message)) return { type: "message", message: input.message } as DraftEntry;
	if (present(input.thinkingLevelChange))
		return { type: "thinking_level_change", thinkingLevel: input.thinkingLevelChange };
	if (present(input.modelChange)) return { type: "model_change", ...input.modelChange };
	if (present(input.activeToolsChange))
		return { type: "active_tools_change", activeToolNames: input.activeToolsChange };
	if (present(input.compaction)) {
		const { details, ...rest } = input.compaction;
		return { type: "compaction", ...rest, ...withOptional("details", details) };
	}
	if (present(input.custom)) {
		return {
			type: "custom",
			customType: input.custom.customType,
			...withOptional("data", input.custom.data),
		};
	}
	const { details, ...rest } = input.customMessage as NonNullable<NewEntry["customMessage"]>;
	return { type: "custom_message", ...rest, ...withOptional("details", details) } as DraftEntry;
}

const AppendEntryInput = builder.inputType("AppendEntryInput", {
	fields: (t) => ({
		sessionId: t.string({ required: true }),
		entry: t.field({ type: NewEntryInput, required: true }),
		entryId: t.string({ description: "Caller-chosen entry id; re-sending the same entry is a no-op." }),
		expectedLeafId: t.string({ description: "Fail with LEAF_CONFLICT unless the current leaf is this id." }),
	}),
});

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

/** `undefined` (argument omitted) means no check; an explicit null expects an empty pointer. */
const expectation = (value: string | null | undefined) =>
	value === undefined ? {} : { expectedLeafId: value };

builder.mutationField("appendEntry", (t) =>
	t.field({
		type: AppendEntryPayloadRef,
		description: "Append one entry as a child of the current leaf; the leaf becomes the new entry.",
		args: { input: t.arg({ type: AppendEntryInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId, identity }) => {
			const draft = draftOf(input.entry);
			return store.appendEntry(
				workspaceId,
				input.sessionId,
				present(input.entryId) ? { ...draft, id: input.entryId } : draft,
				{ ...expectation(input.expectedLeafId), author: identity.subject },
			);
		},
	}),
);

const BranchSummaryInput = builder.inputType("BranchSummaryInput", {
	fields: (t) => ({ summary: t.string({ required: true }), details: t.field({ type: "JSON" }) }),
});

const MoveLeafInput = builder.inputType("MoveLeafInput", {
	fields: (t) => ({
		sessionId: t.string({ required: true }),
		targetId: t.string({
			description:
				"Target entry; null moves before the first entry. Must be given (as null for the root): an omitted target is INVALID_INPUT, not a silent move to the root.",
		}),
		summary: t.field({ type: BranchSummaryInput }),
		expectedLeafId: t.string(),
	}),
});

const MoveLeafPayloadRef = builder.objectRef<MoveLeafResult>("MoveLeafPayload").implement({
	fields: (t) => ({
		leafEntry: t.field({ type: LeafEntryRef, resolve: (p) => p.leafEntry }),
		summaryEntry: t.field({ type: BranchSummaryEntryRef, nullable: true, resolve: (p) => p.summaryEntry }),
		session: t.field({ type: SessionRef, resolve: (p) => p.session }),
	}),
});

builder.mutationField("moveLeaf", (t) =>
	t.field({
		type: MoveLeafPayloadRef,
		description:
			"Move the leaf pointer by appending a leaf record; with a summary, also append a branch_summary under the target, which becomes the leaf.",
		args: { input: t.arg({ type: MoveLeafInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId, identity }) => {
			if (input.targetId === undefined) {
				throw invalidInput("targetId", "is required: an entry id, or null to move before the first entry");
			}
			return store.moveLeaf(workspaceId, input.sessionId, {
				targetId: input.targetId,
				...(present(input.summary)
					? { summary: { summary: input.summary.summary, ...withOptional("details", input.summary.details) } }
					: {}),
				...expectation(input.expectedLeafId),
				author: identity.subject,
			});
		},
	}),
);

const SetLabelInput = builder.inputType("SetLabelInput", {
	fields: (t) => ({
		sessionId: t.string({ required: true }),
		targetId: t.string({ required: true }),
		label: t.string({ description: "Null or empty clears the label." }),
	}),
});

builder.mutationField("setLabel", (t) =>
	t.field({
		type: AppendEntryPayloadRef,
		description: "Label an entry (or clear its label) by appending a label entry.",
		args: { input: t.arg({ type: SetLabelInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId, identity }) =>
			store.setLabel(workspaceId, input.sessionId, input.targetId, input.label ?? null, {
				author: identity.subject,
			}),
	}),
);
