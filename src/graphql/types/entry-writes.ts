/**
 * The mutations that append entries (appendEntry, moveLeaf, setLabel) and
 * their input types. Inputs are shapes only: the store validates what they
 * build (session/validate.ts).
 */
import type { DraftEntry } from "../../session/entry.js";
import { invalidInput } from "../../session/errors.js";
import type { MoveLeafResult } from "../../store/store.js";
import { builder } from "../builder.js";
import { SessionRef } from "../refs.js";
import { AppendEntryPayloadRef } from "./entry.js";
import { BranchSummaryEntryRef, LeafEntryRef } from "./entry-types.js";

const ModelChangeInput = builder.inputType("ModelChangeInput", {
	fields: (t) => ({ provider: t.string({ required: true }), modelId: t.string({ required: true }) }),
});

const USAGE_INPUT =
	"pi's Usage object as the model call reported it (input, output, cacheRead, cacheWrite, totalTokens, cost: {input, output, cacheRead, cacheWrite, total}); kept as given, counted in usage totals.";

const CompactionInput = builder.inputType("CompactionInput", {
	fields: (t) => ({
		summary: t.string({ required: true }),
		firstKeptEntryId: t.string({ required: true }),
		tokensBefore: t.int({ required: true }),
		details: t.field({ type: "JSON" }),
		usage: t.field({ type: "JSON", description: `What writing the summary cost: ${USAGE_INPUT}` }),
		fromHook: t.boolean({ description: "True when an extension wrote the summary, not pi." }),
		systemMessage: t.field({
			type: "JSON",
			description:
				'The prompt and tools at this point (a pi-ai SystemMessage, role "system"): the context\'s first message after the compaction.',
		}),
	}),
});

const UsageEntryInput = builder.inputType("UsageEntryInput", {
	fields: (t) => ({
		kind: t.string({ required: true, description: "The category, e.g. `cache_warm`." }),
		provider: t.string({ required: true }),
		model: t.string({ required: true }),
		usage: t.field({ type: "JSON", required: true, description: USAGE_INPUT }),
		note: t.string(),
	}),
});

const ContextEditInput = builder.inputType("ContextEditInput", {
	description:
		"An edit of an earlier entry's content in this branch's context: the new content, or omit: true to leave the entry out.",
	fields: (t) => ({
		targetId: t.string({ required: true }),
		content: t.field({ type: "JSON", description: "The replacement content: a string or content blocks." }),
		omit: t.boolean({ description: "True: the target leaves the context (content must then be absent)." }),
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
		usage: t.field({ type: UsageEntryInput }),
		compaction: t.field({ type: CompactionInput }),
		custom: t.field({ type: CustomEntryInput }),
		customMessage: t.field({ type: CustomMessageInput }),
		contextEdit: t.field({ type: ContextEditInput }),
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
	if (present(input.usage)) {
		const { note, ...rest } = input.usage;
		return { type: "usage", ...rest, ...withOptional("note", note) };
	}
	if (present(input.compaction)) {
		const { summary, firstKeptEntryId, tokensBefore, details, usage, fromHook, systemMessage } =
			input.compaction;
		return {
			type: "compaction",
			summary,
			firstKeptEntryId,
			tokensBefore,
			...withOptional("details", details),
			...withOptional("usage", usage),
			...withOptional("fromHook", fromHook),
			...withOptional("systemMessage", systemMessage),
		} as DraftEntry;
	}
	if (present(input.contextEdit)) return contextEditDraft(input.contextEdit);
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

/** The edit's replacement: `{content}`, or null for omit; exactly one of the two must be given. */
function contextEditDraft(input: NonNullable<NewEntry["contextEdit"]>): DraftEntry {
	const omit = input.omit === true;
	if (omit === present(input.content)) {
		throw invalidInput("entry.contextEdit", "give either content or omit: true");
	}
	return {
		type: "context_edit",
		targetId: input.targetId,
		replacement: omit ? null : { content: input.content },
	} as DraftEntry;
}

const AppendEntryInput = builder.inputType("AppendEntryInput", {
	fields: (t) => ({
		sessionId: t.string({ required: true }),
		entry: t.field({ type: NewEntryInput, required: true }),
		entryId: t.string({ description: "Caller-chosen entry id; re-sending the same entry is a no-op." }),
		expectedLeafId: t.string({ description: "Fail with LEAF_CONFLICT unless the current leaf is this id." }),
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
	fields: (t) => ({
		summary: t.string({ required: true }),
		details: t.field({ type: "JSON" }),
		usage: t.field({ type: "JSON", description: `What writing the summary cost: ${USAGE_INPUT}` }),
		fromHook: t.boolean({ description: "True when an extension wrote the summary, not pi." }),
	}),
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
					? {
							summary: {
								summary: input.summary.summary,
								...withOptional("details", input.summary.details),
								...withOptional("usage", input.summary.usage),
								...withOptional("fromHook", input.summary.fromHook),
							},
						}
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
