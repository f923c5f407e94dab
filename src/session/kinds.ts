/**
 * The table of entry kinds: one row per entry type with everything the code
 * decides by type outside the type's own shape (entry.ts). A new type without
 * a row does not compile; its row is where validation, the context
 * projection, the GraphQL API and the activity feed learn about it.
 */

import { type EntryType, isEntryType } from "./entry.js";
import { invalidInput } from "./errors.js";
import {
	checkText,
	field,
	isObject,
	type Json,
	optionalBoolean,
	optionalObject,
	optionalString,
	requireObject,
	requireString,
} from "./json-checks.js";
import type { InputLimits } from "./limits.js";

/** The activity-feed event an appended entry of this kind announces (events/activity.ts). */
export type EntryActivityKind = "APPENDED" | "LEAF_MOVED" | "RENAMED";

export interface EntryKind {
	/** Its GraphQL object type (graphql/types/entry.ts); the enum value is the type in upper case. */
	readonly graphqlName: string;
	/**
	 * Checks the type's own fields of `obj` (design/tree-rules.md#entries);
	 * placement fields, unknown extra fields and JSON limits are checked by
	 * the caller (validate.ts). Throws INVALID_INPUT naming the field under `at`.
	 */
	readonly validate: (obj: Json, at: string, limits: InputLimits) => void;
	/**
	 * A setting of the rest of the branch (thinking level, model, tools):
	 * the context projection reads it from the whole path, also before the
	 * latest compaction's kept entries (context.ts).
	 */
	readonly isSetting: boolean;
	readonly activity: EntryActivityKind;
}

export const ENTRY_KINDS = {
	message: {
		graphqlName: "MessageEntry",
		validate: (obj, at) => {
			const message = obj.message;
			if (!isObject(message)) throw invalidInput(field(at, "message"), "must be an object with a role");
			requireString(message, "role", field(at, "message"), { nonEmpty: true });
		},
		isSetting: false,
		activity: "APPENDED",
	},
	thinking_level_change: {
		graphqlName: "ThinkingLevelChangeEntry",
		validate: (obj, at) => requireString(obj, "thinkingLevel", at, { nonEmpty: true }),
		isSetting: true,
		activity: "APPENDED",
	},
	model_change: {
		graphqlName: "ModelChangeEntry",
		validate: (obj, at) => {
			requireString(obj, "provider", at, { nonEmpty: true });
			requireString(obj, "modelId", at, { nonEmpty: true });
		},
		isSetting: true,
		activity: "APPENDED",
	},
	active_tools_change: {
		graphqlName: "ActiveToolsChangeEntry",
		validate: (obj, at) => {
			const names = obj.activeToolNames;
			if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
				throw invalidInput(field(at, "activeToolNames"), "must be an array of strings");
			}
		},
		isSetting: true,
		activity: "APPENDED",
	},
	usage: {
		graphqlName: "UsageEntry",
		validate: (obj, at) => {
			requireString(obj, "kind", at, { nonEmpty: true });
			requireString(obj, "provider", at);
			requireString(obj, "model", at);
			requireObject(obj, "usage", at);
			optionalString(obj, "note", at);
		},
		isSetting: false,
		activity: "APPENDED",
	},
	compaction: {
		graphqlName: "CompactionEntry",
		validate: (obj, at) => {
			requireString(obj, "summary", at);
			optionalString(obj, "firstKeptEntryId", at);
			const tokens = obj.tokensBefore;
			if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < 0) {
				throw invalidInput(field(at, "tokensBefore"), "must be a non-negative integer");
			}
			optionalObject(obj, "usage", at);
			optionalBoolean(obj, "fromHook", at);
			if (obj.systemMessage !== undefined) {
				requireObject(obj, "systemMessage", at);
				if ((obj.systemMessage as Json).role !== "system")
					throw invalidInput(field(at, "systemMessage.role"), 'must be "system"');
			}
		},
		isSetting: false,
		activity: "APPENDED",
	},
	branch_summary: {
		graphqlName: "BranchSummaryEntry",
		validate: (obj, at) => {
			requireString(obj, "fromId", at, { nonEmpty: true });
			requireString(obj, "summary", at);
			optionalObject(obj, "usage", at);
			optionalBoolean(obj, "fromHook", at);
		},
		isSetting: false,
		activity: "APPENDED",
	},
	custom: {
		graphqlName: "CustomEntry",
		validate: (obj, at) => requireString(obj, "customType", at, { nonEmpty: true }),
		isSetting: false,
		activity: "APPENDED",
	},
	custom_message: {
		graphqlName: "CustomMessageEntry",
		validate: (obj, at) => {
			requireString(obj, "customType", at, { nonEmpty: true });
			const content = obj.content;
			if (typeof content !== "string" && !Array.isArray(content)) {
				throw invalidInput(field(at, "content"), "must be a string or an array of content blocks");
			}
			if (typeof obj.display !== "boolean") throw invalidInput(field(at, "display"), "must be a boolean");
		},
		isSetting: false,
		activity: "APPENDED",
	},
	context_edit: {
		graphqlName: "ContextEditEntry",
		validate: (obj, at) => {
			requireString(obj, "targetId", at, { nonEmpty: true });
			const replacement = obj.replacement;
			if (replacement === null) return;
			const content = isObject(replacement) ? replacement.content : undefined;
			if (typeof content !== "string" && !Array.isArray(content)) {
				throw invalidInput(
					field(at, "replacement"),
					"must be null (omit the target) or {content} with a string or an array of content blocks",
				);
			}
		},
		isSetting: false,
		activity: "APPENDED",
	},
	label: {
		graphqlName: "LabelEntry",
		validate: (obj, at, limits) => {
			requireString(obj, "targetId", at, { nonEmpty: true });
			optionalString(obj, "label", at);
			if (typeof obj.label === "string") checkText(obj.label, field(at, "label"), limits);
		},
		isSetting: false,
		activity: "APPENDED",
	},
	session_info: {
		graphqlName: "SessionInfoEntry",
		validate: (obj, at, limits) => {
			optionalString(obj, "name", at);
			if (typeof obj.name === "string") checkText(obj.name, field(at, "name"), limits);
		},
		isSetting: false,
		activity: "RENAMED",
	},
	leaf: {
		graphqlName: "LeafEntry",
		validate: (obj, at) => {
			if (obj.targetId !== null && (typeof obj.targetId !== "string" || obj.targetId.length === 0)) {
				throw invalidInput(field(at, "targetId"), "must be a non-empty string or null");
			}
		},
		isSetting: false,
		activity: "LEAF_MOVED",
	},
} as const satisfies Record<EntryType, EntryKind>;

/**
 * An entry of a type the service does not know (a later pi's): no fields
 * of its own are checked, it is a tree node, and nothing of it reaches the
 * context, as in pi (design/tree-rules.md#entries).
 */
export const OTHER_KIND: EntryKind = {
	graphqlName: "OtherEntry",
	validate: () => {},
	isSetting: false,
	activity: "APPENDED",
};

/** The row of an entry's type; OTHER_KIND for a type the service does not know. */
export function kindOf(type: string): EntryKind {
	return isEntryType(type) ? ENTRY_KINDS[type] : OTHER_KIND;
}

/** The entry types whose `isSetting` is true, as a type. */
export type SettingType = {
	[T in EntryType]: (typeof ENTRY_KINDS)[T]["isSetting"] extends true ? T : never;
}[EntryType];

/** The setting entry types, in table order (a backend may filter by them, e.g. in SQL). */
export const SETTING_TYPES: readonly SettingType[] = (Object.keys(ENTRY_KINDS) as EntryType[]).filter(
	(type): type is SettingType => ENTRY_KINDS[type].isSetting,
);

export function isSettingType(type: string): type is SettingType {
	return kindOf(type).isSetting;
}
