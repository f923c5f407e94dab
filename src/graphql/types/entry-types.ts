/**
 * One object type per entry type, each with that type's own fields (the
 * fields every entry has are the Entry interface's, ./entry.ts), and
 * OtherEntry for a type the service does not know.
 */
import { ImplementableObjectRef, type ObjectFieldsShape } from "@pothos/core";
import {
	type AgentMessage,
	type EntryType,
	isKnownEntry,
	type StoredEntry,
	type StoredEntryOf,
} from "../../session/entry.js";
import { OTHER_KIND } from "../../session/kinds.js";
import { type MessageSummary, summarizeMessage, usageOfEntry } from "../../session/message-summary.js";
import { builder } from "../builder.js";
import { ENTRY_TYPE_NAMES, EntryRef, NodeRef } from "../refs.js";
import { TokenUsageRef } from "./analytics/usage.js";
import { entryIdField } from "./node.js";

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * The object type of one entry type. Fields receive the entry narrowed to
 * that type (`e.entry.summary` is typed) while any resolver may return a
 * plain StoredEntry as one: graphql-js calls `isTypeOf` on an object value
 * before it resolves the object's fields, so only entries of this type reach
 * them.
 */
function entryObject<T extends EntryType>(
	type: T,
	description: string,
	fields: ObjectFieldsShape<BuilderTypes, StoredEntryOf<T>>,
) {
	return new ImplementableObjectRef<BuilderTypes, StoredEntry, StoredEntryOf<T>>(
		builder,
		ENTRY_TYPE_NAMES[type],
	).implement({
		description,
		interfaces: [EntryRef, NodeRef],
		isTypeOf: (value) => (value as StoredEntry).entry?.type === type,
		fields: (t) => ({ id: entryIdField(t), ...fields(t) }),
	});
}

/** Each message is summarised once however many of its typed fields a query selects. */
const summaries = new WeakMap<AgentMessage, MessageSummary>();

function summaryOf(message: AgentMessage): MessageSummary {
	let summary = summaries.get(message);
	if (!summary) {
		summary = summarizeMessage(message);
		summaries.set(message, summary);
	}
	return summary;
}

entryObject("message", "A message of the conversation (pi's AgentMessage).", (t) => ({
	role: t.string({ resolve: (e) => e.entry.message.role }),
	message: t.field({
		type: "JSON",
		description: "The AgentMessage as pi stores it.",
		resolve: (e) => e.entry.message,
	}),
	provider: t.string({
		nullable: true,
		description: "Assistant messages: the provider that answered.",
		resolve: (e) => summaryOf(e.entry.message).provider,
	}),
	model: t.string({
		nullable: true,
		description: "Assistant messages: the model that answered.",
		resolve: (e) => summaryOf(e.entry.message).model,
	}),
	api: t.string({ nullable: true, resolve: (e) => summaryOf(e.entry.message).api }),
	stopReason: t.string({ nullable: true, resolve: (e) => summaryOf(e.entry.message).stopReason }),
	errorMessage: t.string({ nullable: true, resolve: (e) => summaryOf(e.entry.message).errorMessage }),
	responseModel: t.string({
		nullable: true,
		description:
			"Assistant messages: the model the provider says answered, when it reported one (pi-ai `responseModel`); usage totals by model group under it.",
		resolve: (e) => summaryOf(e.entry.message).responseModel,
	}),
	usage: t.field({
		type: TokenUsageRef,
		nullable: true,
		description:
			"Token usage and cost, normalised (see TokenUsage): assistant messages, and tool results that carry one.",
		resolve: (e) => summaryOf(e.entry.message).usage,
	}),
	toolsAdded: t.stringList({
		description: "System messages: the names of the tools that become available here (pi-ai `toolsAdded`).",
		resolve: (e) => summaryOf(e.entry.message).toolsAdded,
	}),
	toolsRemoved: t.stringList({
		description: "System messages: the names of the tools that stop being available here.",
		resolve: (e) => summaryOf(e.entry.message).toolsRemoved,
	}),
	toolCallCount: t.int({
		description: "Assistant messages: the tool calls in its content; 0 for other roles.",
		resolve: (e) => summaryOf(e.entry.message).toolCallCount,
	}),
	toolCallNames: t.stringList({
		description: 'The names of those tool calls, in order ("" for a call without a name).',
		resolve: (e) => summaryOf(e.entry.message).toolCallNames,
	}),
	toolName: t.string({
		nullable: true,
		description: "Tool results: the tool that ran.",
		resolve: (e) => summaryOf(e.entry.message).toolName,
	}),
	toolCallId: t.string({ nullable: true, resolve: (e) => summaryOf(e.entry.message).toolCallId }),
	isError: t.boolean({
		nullable: true,
		description: "Tool results: whether the tool failed.",
		resolve: (e) => summaryOf(e.entry.message).isError,
	}),
}));

entryObject("thinking_level_change", "Sets the thinking level for the rest of the branch.", (t) => ({
	thinkingLevel: t.string({ resolve: (e) => e.entry.thinkingLevel }),
}));

entryObject("model_change", "Sets the model for the rest of the branch.", (t) => ({
	// Nullable like MessageEntry.provider: a field named alike has one type across entry types,
	// so one fragment can select it on both (always set on a model change).
	provider: t.string({ nullable: true, resolve: (e) => e.entry.provider }),
	modelId: t.string({ resolve: (e) => e.entry.modelId }),
}));

entryObject("active_tools_change", "Sets the active tools for the rest of the branch.", (t) => ({
	activeToolNames: t.stringList({ resolve: (e) => e.entry.activeToolNames }),
}));

entryObject(
	"compaction",
	"Replaces the path before `firstKeptEntryId` with a summary in the context.",
	(t) => ({
		summary: t.string({ resolve: (e) => e.entry.summary }),
		firstKeptEntryId: t.string({
			nullable: true,
			resolve: (e) => orNull(e.entry.firstKeptEntryId),
		}),
		tokensBefore: t.int({ resolve: (e) => e.entry.tokensBefore }),
		details: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(e.entry.details) }),
		usage: t.field({
			type: TokenUsageRef,
			nullable: true,
			description: "What writing the summary cost (pi ≥ 0.81), normalised; counted in usage totals.",
			resolve: (e) => usageOfEntry(e.entry),
		}),
		fromHook: t.boolean({ nullable: true, resolve: (e) => orNull(e.entry.fromHook) }),
		systemMessage: t.field({
			type: "JSON",
			nullable: true,
			description:
				"The prompt and tools at this point (pi ≥ 1.0): the context's first message after this compaction.",
			resolve: (e) => orNull(e.entry.systemMessage),
		}),
	}),
);

entryObject(
	"usage",
	"Usage outside the conversation (pi ≥ 0.86; e.g. cache warming): counted in usage totals, not in the context.",
	(t) => ({
		kind: t.string({ description: "The category, e.g. `cache_warm`.", resolve: (e) => e.entry.kind }),
		// Nullable like MessageEntry.provider and .model (one type per field name across entry types).
		provider: t.string({ nullable: true, resolve: (e) => e.entry.provider }),
		model: t.string({ nullable: true, resolve: (e) => e.entry.model }),
		usage: t.field({
			type: TokenUsageRef,
			nullable: true,
			description: "Normalised (see TokenUsage); always set on a usage entry.",
			resolve: (e) => usageOfEntry(e.entry),
		}),
		note: t.string({ nullable: true, resolve: (e) => orNull(e.entry.note) }),
	}),
);

entryObject(
	"context_edit",
	"Replaces (or omits) an earlier entry's content in the context of the branch it is on (pi ≥ 0.87); the log keeps the original.",
	(t) => ({
		// Nullable like LabelEntry.targetId (one type per field name across entry types); always set.
		targetId: t.string({ nullable: true, resolve: (e) => e.entry.targetId }),
		target: t.field({
			type: EntryRef,
			nullable: true,
			resolve: (e, _, { loaders }) =>
				loaders.entry.load({ sessionId: e.sessionId, entryId: e.entry.targetId }),
		}),
		omits: t.boolean({
			description: "True when the edit leaves the target out of the context (`replacement: null`).",
			resolve: (e) => e.entry.replacement === null,
		}),
		replacementContent: t.field({
			type: "JSON",
			nullable: true,
			description:
				"The content the target gets in the context (a string or content blocks); null when it omits.",
			resolve: (e) => e.entry.replacement?.content ?? null,
		}),
	}),
);

export const BranchSummaryEntryRef = entryObject(
	"branch_summary",
	"The summary of an abandoned branch; the first visible node of the new one.",
	(t) => ({
		fromId: t.string({ resolve: (e) => e.entry.fromId }),
		summary: t.string({ resolve: (e) => e.entry.summary }),
		details: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(e.entry.details) }),
		usage: t.field({
			type: TokenUsageRef,
			nullable: true,
			description: "What writing the summary cost (pi ≥ 0.81), normalised; counted in usage totals.",
			resolve: (e) => usageOfEntry(e.entry),
		}),
		fromHook: t.boolean({ nullable: true, resolve: (e) => orNull(e.entry.fromHook) }),
	}),
);

entryObject("custom", "Extension state; not in the model context unless a projector is registered.", (t) => ({
	customType: t.string({ resolve: (e) => e.entry.customType }),
	data: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(e.entry.data) }),
}));

entryObject("custom_message", "An extension's message; in the context as role `custom`.", (t) => ({
	customType: t.string({ resolve: (e) => e.entry.customType }),
	content: t.field({ type: "JSON", resolve: (e) => e.entry.content }),
	display: t.boolean({ resolve: (e) => e.entry.display }),
	details: t.field({ type: "JSON", nullable: true, resolve: (e) => orNull(e.entry.details) }),
}));

entryObject("label", "Sets or clears the label of another entry.", (t) => ({
	// Nullable like LeafEntry.targetId (a leaf record may point at nothing): one type for one name
	// across entry types, so one fragment selects both. Always set on a label.
	targetId: t.string({ nullable: true, resolve: (e) => e.entry.targetId }),
	target: t.field({
		type: EntryRef,
		nullable: true,
		resolve: (e, _, { loaders }) => loaders.entry.load({ sessionId: e.sessionId, entryId: e.entry.targetId }),
	}),
	targetLabel: t.string({
		description: "The label this entry sets on its target; null clears it.",
		nullable: true,
		resolve: (e) => e.entry.label || null,
	}),
}));

entryObject("session_info", "Names the session (the latest one wins).", (t) => ({
	name: t.string({ nullable: true, resolve: (e) => orNull(e.entry.name) }),
}));

export const LeafEntryRef = entryObject(
	"leaf",
	"A move of the leaf pointer: a record, never a tree node and never the leaf itself.",
	(t) => ({
		targetId: t.string({ nullable: true, resolve: (e) => e.entry.targetId }),
		target: t.field({
			type: EntryRef,
			nullable: true,
			resolve: (e, _, { loaders }) => {
				const targetId = e.entry.targetId;
				return targetId === null ? null : loaders.entry.load({ sessionId: e.sessionId, entryId: targetId });
			},
		}),
	}),
);

/**
 * An entry of a type the service does not know: only the fields every entry
 * has, and `raw` with all of it.
 */
new ImplementableObjectRef<BuilderTypes, StoredEntry, StoredEntry>(builder, OTHER_KIND.graphqlName).implement(
	{
		description:
			"An entry of a type the service does not know (a later pi's): kept and exported as it is, a tree node, nothing in the context. `typeName` names its type, `raw` holds it.",
		interfaces: [EntryRef, NodeRef],
		isTypeOf: (value) => !isKnownEntry((value as StoredEntry).entry),
		fields: (t) => ({ id: entryIdField(t) }),
	},
);
