/**
 * Type references shared across type files (they refer to each other:
 * an Entry has a Session, a Session has entries). GraphQL types are views of
 * plain domain objects, never of database rows.
 */
import type { EntryType, SessionContext, StoredEntry } from "../session/entry.js";
import type { SessionRecord } from "../store/store.js";
import { builder } from "./builder.js";

export const NodeRef = builder.interfaceRef<SessionRecord | StoredEntry>("Node");
export const SessionRef = builder.objectRef<SessionRecord>("Session");
export const EntryRef = builder.interfaceRef<StoredEntry>("Entry");
export const SessionContextRef = builder.objectRef<SessionContext>("SessionContext");

/** The GraphQL object type of each entry type. */
export const ENTRY_TYPE_NAMES: Record<EntryType, string> = {
	message: "MessageEntry",
	thinking_level_change: "ThinkingLevelChangeEntry",
	model_change: "ModelChangeEntry",
	active_tools_change: "ActiveToolsChangeEntry",
	compaction: "CompactionEntry",
	branch_summary: "BranchSummaryEntry",
	custom: "CustomEntry",
	custom_message: "CustomMessageEntry",
	label: "LabelEntry",
	session_info: "SessionInfoEntry",
	leaf: "LeafEntry",
};

export const EntryTypeEnum = builder.enumType("EntryType", {
	values: Object.fromEntries(
		Object.keys(ENTRY_TYPE_NAMES).map((type) => [type.toUpperCase(), { value: type as EntryType }]),
	) as Record<Uppercase<EntryType>, { value: EntryType }>,
});
