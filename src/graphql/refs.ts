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

export interface PageInfoShape {
	hasNextPage: boolean;
	hasPreviousPage: boolean;
	startCursor: string | null;
	endCursor: string | null;
}
export const PageInfoRef = builder.objectRef<PageInfoShape>("PageInfo");

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

export interface Edge<T> {
	cursor: string;
	node: T;
}
export interface Connection<T> {
	edges: Edge<T>[];
	pageInfo: PageInfoShape;
	totalCount: number;
}

export function pageInfo<T>(
	edges: readonly Edge<T>[],
	hasNextPage: boolean,
	hasPreviousPage: boolean,
): PageInfoShape {
	return {
		hasNextPage,
		hasPreviousPage,
		startCursor: edges[0]?.cursor ?? null,
		endCursor: edges[edges.length - 1]?.cursor ?? null,
	};
}
