/**
 * Context projection: what the model sees from a path. Identical to pi's
 * `buildSessionContext(entries, leafId)` (@mariozechner/pi-coding-agent)
 * plus `activeToolNames` (pi's harness); a property test holds the two
 * together.
 */
import { assertNever } from "./assert-never.js";
import type { AgentMessage, CompactionEntry, Entry, EntryOf, SessionContext } from "./entry.js";
import { isSettingType, type SettingType } from "./kinds.js";

/**
 * Projects a custom entry to messages; none is registered by default, so
 * custom entries contribute nothing (pi's `entryProjectors`).
 */
export type CustomEntryProjector = (entry: Extract<Entry, { type: "custom" }>) => AgentMessage[];

export interface ProjectionOptions {
	customProjectors?: Readonly<Record<string, CustomEntryProjector>>;
}

const toMillis = (timestamp: string): number => new Date(timestamp).getTime();

/** Adds what `entry` contributes to the context's messages to `messages` (a path's worth: no array per entry). */
function addMessages(entry: Entry, options: ProjectionOptions, messages: AgentMessage[]): void {
	switch (entry.type) {
		case "message":
			messages.push(entry.message);
			return;
		case "custom_message":
			messages.push({
				role: "custom",
				customType: entry.customType,
				content: entry.content,
				display: entry.display,
				details: entry.details,
				timestamp: toMillis(entry.timestamp),
			});
			return;
		case "branch_summary":
			if (entry.summary)
				messages.push({
					role: "branchSummary",
					summary: entry.summary,
					fromId: entry.fromId,
					timestamp: toMillis(entry.timestamp),
				});
			return;
		case "custom": {
			const projected = options.customProjectors?.[entry.customType]?.(entry);
			if (projected) messages.push(...projected);
			return;
		}
		case "thinking_level_change":
		case "model_change":
		case "active_tools_change":
		case "compaction":
		case "label":
		case "session_info":
		case "leaf":
			return;
		default:
			assertNever(entry, "entry type");
	}
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

/**
 * Settings and messages of the full path root → leaf. Settings come from the
 * whole path; messages start at the latest compaction's summary and its
 * kept entries. Entries older than that compaction's `firstKeptEntryId` are
 * only read for settings (the types in SETTING_TYPES, and the model an
 * assistant message names), so a backend may pass them with those fields
 * alone.
 */
export function projectContext(fullPath: readonly Entry[], options: ProjectionOptions = {}): SessionContext {
	const settings: Settings = { thinkingLevel: "off", model: null, activeToolNames: null };
	let compactionIndex = -1;

	fullPath.forEach((entry, index) => {
		if (isSetting(entry)) applySetting(settings, entry);
		else if (entry.type === "message" && entry.message.role === "assistant") {
			// As pi does: an assistant message names the model that answered.
			settings.model = { provider: entry.message.provider as string, modelId: entry.message.model as string };
		} else if (entry.type === "compaction") compactionIndex = index;
	});

	const messages: AgentMessage[] = [];
	if (compactionIndex < 0) {
		for (const entry of fullPath) addMessages(entry, options, messages);
	} else {
		const compaction = fullPath[compactionIndex] as CompactionEntry;
		messages.push({
			role: "compactionSummary",
			summary: compaction.summary,
			tokensBefore: compaction.tokensBefore,
			timestamp: toMillis(compaction.timestamp),
		});
		let kept = false;
		for (let i = 0; i < compactionIndex; i++) {
			const entry = fullPath[i] as Entry;
			if (entry.id === compaction.firstKeptEntryId) kept = true;
			if (kept) addMessages(entry, options, messages);
		}
		for (let i = compactionIndex + 1; i < fullPath.length; i++) {
			addMessages(fullPath[i] as Entry, options, messages);
		}
	}
	return {
		messages,
		thinkingLevel: settings.thinkingLevel,
		model: settings.model,
		activeToolNames: settings.activeToolNames,
	};
}
