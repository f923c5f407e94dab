/**
 * Context projection: what the model sees from a path. Identical to pi's
 * `buildSessionContext(entries, leafId)` (@earendil-works/pi-coding-agent
 * 1.6) plus `activeToolNames` (pi's harness); property tests hold the two
 * together (design/tree-rules.md#context-projection).
 */
import { assertNever } from "./assert-never.js";
import {
	type AgentMessage,
	type CompactionEntry,
	type ContextEditEntry,
	type Entry,
	type EntryOf,
	isKnownEntry,
	isOf,
	type SessionContext,
} from "./entry.js";
import { isSettingType, type SettingType } from "./kinds.js";
import { parseJsonText, RawJson } from "./raw-json.js";

/**
 * Projects a custom entry to messages; none is registered by default, so
 * custom entries contribute nothing (pi's harness `entryProjectors`; the
 * coding agent has none).
 */
export type CustomEntryProjector = (entry: Extract<Entry, { type: "custom" }>) => AgentMessage[];

export interface ProjectionOptions {
	customProjectors?: Readonly<Record<string, CustomEntryProjector>>;
}

const toMillis = (timestamp: string): number => new Date(timestamp).getTime();

/** The roles whose content a context edit replaces (pi's `projectContextEntry`). */
const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/**
 * A message entry's message as pi projects it: a stored message without
 * content (old, forked or hand-edited files) gets an empty one. A RawJson
 * message is one storage passed as text because it has content
 * (store/postgres/walk.ts), so it is passed on as it is.
 */
function messageOf(message: AgentMessage): AgentMessage {
	if (message instanceof RawJson || message.content != null) return message;
	if (message.role === "system") return { ...message, content: "" };
	if (message.role === "user" || message.role === "assistant" || message.role === "toolResult")
		return { ...message, content: [] };
	return message;
}

/** What `entry` contributes to the context, before any edit. */
function messagesOf(entry: Entry, options: ProjectionOptions): AgentMessage[] {
	if (!isKnownEntry(entry)) return [];
	switch (entry.type) {
		case "message":
			return [messageOf(entry.message)];
		case "custom_message":
			return [
				{
					role: "custom",
					customType: entry.customType,
					content: entry.content ?? [],
					display: entry.display,
					details: entry.details,
					timestamp: toMillis(entry.timestamp),
				},
			];
		case "branch_summary":
			return entry.summary
				? [
						{
							role: "branchSummary",
							summary: entry.summary,
							fromId: entry.fromId,
							timestamp: toMillis(entry.timestamp),
						},
					]
				: [];
		case "compaction": {
			// pi ≥ 1.0: the prompt and tools as they were at the compaction come first.
			const summary = {
				role: "compactionSummary",
				summary: entry.summary,
				tokensBefore: entry.tokensBefore,
				timestamp: toMillis(entry.timestamp),
			};
			return entry.systemMessage ? [entry.systemMessage, summary] : [summary];
		}
		case "custom":
			return [...(options.customProjectors?.[entry.customType]?.(entry) ?? [])];
		case "thinking_level_change":
		case "model_change":
		case "active_tools_change":
		case "usage":
		case "context_edit":
		case "label":
		case "session_info":
		case "leaf":
			return [];
		default:
			return assertNever(entry, "entry type");
	}
}

/** A message with its content replaced, as pi's `projectContextEntry` does. */
function edited(message: AgentMessage, content: unknown): AgentMessage {
	const role = message.role;
	if (!EDITABLE_ROLES.has(role)) return message;
	// The role is readable on a RawJson; its content is not, so it is parsed, rarely (edited messages only).
	const plain = message instanceof RawJson ? (parseJsonText(message.text) as AgentMessage) : message;
	const asBlocks = (role === "assistant" || role === "toolResult") && typeof content === "string";
	return { ...plain, content: asBlocks ? [{ type: "text", text: content }] : content };
}

/** An entry's messages after the latest edit of it among the context's entries: null omits it. */
function projectEntry(entry: Entry, edit: ContextEditEntry | undefined, options: ProjectionOptions) {
	const messages = messagesOf(entry, options);
	if (!edit) return messages;
	if (edit.replacement === null) return [];
	const { content } = edit.replacement;
	return messages.map((message) => edited(message, content));
}

type Settings = Pick<SessionContext, "thinkingLevel" | "model" | "activeToolNames">;

/** What a setting entry (kinds.ts `isSetting`) changes; a type marked as a setting needs its case here. */
function applySetting(settings: Settings, entry: EntryOf<SettingType>): void {
	switch (entry.type) {
		case "thinking_level_change":
			settings.thinkingLevel = entry.thinkingLevel;
			return;
		case "model_change":
			settings.model = { provider: entry.provider, modelId: entry.modelId };
			return;
		case "active_tools_change":
			settings.activeToolNames = [...entry.activeToolNames];
			return;
		default:
			assertNever(entry, "setting type");
	}
}

const isSetting = (entry: Entry): entry is EntryOf<SettingType> => isSettingType(entry.type);

const isSystemMessage = (entry: Entry): boolean => isOf(entry, "message") && entry.message.role === "system";

/**
 * The entries whose messages make the context (pi's `buildContextEntries`):
 * the whole path without a compaction; with one, the latest compaction, then
 * the entries from its `firstKeptEntryId` up to it (system messages left out:
 * the compaction's own checkpoint replaces them), then those after it.
 */
function contextEntries(fullPath: readonly Entry[], compactionIndex: number): readonly Entry[] {
	if (compactionIndex < 0) return fullPath;
	const compaction = fullPath[compactionIndex] as CompactionEntry;
	const chosen: Entry[] = [compaction];
	let kept = false;
	for (let i = 0; i < compactionIndex; i++) {
		const entry = fullPath[i] as Entry;
		if (entry.id === compaction.firstKeptEntryId) kept = true;
		if (kept && !isSystemMessage(entry)) chosen.push(entry);
	}
	for (let i = compactionIndex + 1; i < fullPath.length; i++) chosen.push(fullPath[i] as Entry);
	return chosen;
}

/**
 * Settings and messages of the full path root → leaf. Settings come from the
 * whole path; messages from the context's entries (above), each replaced or
 * omitted by the latest `context_edit` of it among them. Entries older than
 * the latest compaction's `firstKeptEntryId` are only read for settings (the
 * types in SETTING_TYPES, and the model an assistant message names), so a
 * backend may pass them with those fields alone, or leave the others out.
 */
export function projectContext(fullPath: readonly Entry[], options: ProjectionOptions = {}): SessionContext {
	const settings: Settings = { thinkingLevel: "off", model: null, activeToolNames: null };
	let compactionIndex = -1;

	fullPath.forEach((entry, index) => {
		if (isSetting(entry)) applySetting(settings, entry);
		else if (isOf(entry, "message") && entry.message.role === "assistant") {
			// As pi does: an assistant message names the model that answered.
			settings.model = { provider: entry.message.provider as string, modelId: entry.message.model as string };
		} else if (entry.type === "compaction") compactionIndex = index;
	});

	const chosen = contextEntries(fullPath, compactionIndex);
	const edits = new Map<string, ContextEditEntry>();
	for (const entry of chosen) if (isOf(entry, "context_edit")) edits.set(entry.targetId, entry);
	const messages: AgentMessage[] = [];
	chosen.forEach((entry, index) => {
		// An older compaction among the kept entries contributes nothing: only the latest one, first, does.
		if (index > 0 && entry.type === "compaction") return;
		for (const message of projectEntry(entry, edits.get(entry.id), options)) messages.push(message);
	});
	return {
		messages,
		thinkingLevel: settings.thinkingLevel,
		model: settings.model,
		activeToolNames: settings.activeToolNames,
	};
}
