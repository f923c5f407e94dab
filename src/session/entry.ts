/**
 * Entry types of a pi session tree (design/tree-rules.md#entries). Entries are plain JSON
 * objects exactly as pi writes them to a JSONL line; unknown extra fields are
 * part of the object and travel with it unchanged. An entry of a type the
 * service does not know (a later pi's) is an `OtherEntry`: kept as it is, a
 * tree node like any other, and nothing in the context, as pi treats a type
 * it does not know.
 */

/** The types the service knows: pi 1.6's coding agent's, and the harness's `active_tools_change` and `leaf`. */
export const ENTRY_TYPES = [
	"message",
	"thinking_level_change",
	"model_change",
	"active_tools_change",
	"usage",
	"compaction",
	"branch_summary",
	"custom",
	"custom_message",
	"context_edit",
	"label",
	"session_info",
	"leaf",
] as const;

export type EntryType = (typeof ENTRY_TYPES)[number];

export function isEntryType(value: unknown): value is EntryType {
	return typeof value === "string" && (ENTRY_TYPES as readonly string[]).includes(value);
}

/** pi's AgentMessage: a role plus whatever that role carries. */
export interface AgentMessage {
	role: string;
	[field: string]: unknown;
}

/** Fields every stored entry has; `parentId` and `timestamp` are storage-assigned. */
export interface Placement {
	id: string;
	parentId: string | null;
	/** ISO-8601, normalised to `Date.prototype.toISOString()` form. */
	timestamp: string;
}

/** Unknown extra fields are kept and returned unchanged. */
type Extra = { [extra: string]: unknown };

/** Each type's own fields (design/tree-rules.md#entries). */
export type EntryFields =
	| { type: "message"; message: AgentMessage }
	| { type: "thinking_level_change"; thinkingLevel: string }
	| { type: "model_change"; provider: string; modelId: string }
	| { type: "active_tools_change"; activeToolNames: string[] }
	/** Usage outside the conversation (pi ≥ 0.86: cache warming, …): counted in totals, not in the context. */
	| { type: "usage"; kind: string; provider: string; model: string; usage: unknown; note?: string }
	| {
			type: "compaction";
			summary: string;
			/** Absent only in migrated v1 files whose index pointed nowhere. */
			firstKeptEntryId?: string;
			tokensBefore: number;
			details?: unknown;
			/** What making the summary cost (pi ≥ 0.81). */
			usage?: unknown;
			fromHook?: boolean;
			/** pi ≥ 1.0: the prompt and tools at this point, the context's first message after it. */
			systemMessage?: AgentMessage;
	  }
	| {
			type: "branch_summary";
			fromId: string;
			summary: string;
			details?: unknown;
			usage?: unknown;
			fromHook?: boolean;
	  }
	| { type: "custom"; customType: string; data?: unknown }
	| { type: "custom_message"; customType: string; content: unknown; display: boolean; details?: unknown }
	/** pi ≥ 0.87: the latest edit of a target on the branch replaces its content in the context (null: omits it). */
	| { type: "context_edit"; targetId: string; replacement: { content: unknown } | null }
	/** `label` absent or empty clears the target's label. */
	| { type: "label"; targetId: string; label?: string }
	| { type: "session_info"; name?: string }
	/** A navigation record: never a tree node, never the active leaf. */
	| { type: "leaf"; targetId: string | null };

/** An entry of a type the service knows. */
export type KnownEntry = EntryFields & Placement & Extra;

/** An entry of any other type: its fields are kept, unread. */
export type OtherEntry = Placement & Extra & { type: string };

export type Entry = KnownEntry | OtherEntry;

/**
 * Where types are listed (a filter, the GraphQL enum), "other" stands for
 * every type the service does not know: no known type has that name.
 */
export const OTHER_TYPE = "other";
export type EntryTypeOrOther = EntryType | typeof OTHER_TYPE;

export const typeOrOther = (type: string): EntryTypeOrOther => (isEntryType(type) ? type : OTHER_TYPE);

/** Narrows an entry to the known types, whose fields are typed (an OtherEntry's `type` is any string). */
export function isKnownEntry(entry: Pick<Entry, "type">): entry is KnownEntry {
	return isEntryType(entry.type);
}

export type EntryOf<T extends EntryType> = Extract<KnownEntry, { type: T }>;

/** Narrows an entry to one known type (a plain `type ===` test leaves OtherEntry in the union). */
export function isOf<T extends EntryType>(entry: Pick<Entry, "type">, type: T): entry is EntryOf<T> {
	return entry.type === type;
}
export type MessageEntry = EntryOf<"message">;
export type ThinkingLevelChangeEntry = EntryOf<"thinking_level_change">;
export type ModelChangeEntry = EntryOf<"model_change">;
export type ActiveToolsChangeEntry = EntryOf<"active_tools_change">;
export type CompactionEntry = EntryOf<"compaction">;
export type BranchSummaryEntry = EntryOf<"branch_summary">;
export type CustomEntry = EntryOf<"custom">;
export type CustomMessageEntry = EntryOf<"custom_message">;
export type LabelEntry = EntryOf<"label">;
export type SessionInfoEntry = EntryOf<"session_info">;
export type LeafEntry = EntryOf<"leaf">;
export type UsageEntry = EntryOf<"usage">;
export type ContextEditEntry = EntryOf<"context_edit">;

/**
 * An entry before the store appends it: `parentId` and `timestamp` are
 * storage-assigned, `id` is optional (generated when absent).
 */
export type DraftEntry = (EntryFields | { type: string }) & { id?: string } & Extra;

/** An entry as stored: the pi object plus its position in the log and tree. */
export interface StoredEntry {
	sessionId: string;
	/** 1-based position in the session's append log, no gaps. */
	seq: number;
	/** Distance from the root; a root entry has depth 0. */
	depth: number;
	/**
	 * Who appended it: the subject of the writer's token, null when written
	 * without authentication. Stored beside the pi object, never in it, so an
	 * export is exactly what pi would write.
	 */
	author: string | null;
	entry: Entry;
}

/** A stored entry known to be of one type. */
export type StoredEntryOf<T extends EntryType> = StoredEntry & { entry: EntryOf<T> };

/** A tree node: every entry except `leaf` records. */
export function isNode(entry: Pick<Entry, "type">): boolean {
	return entry.type !== "leaf";
}

/** The fields that identify an entry's place, as opposed to its content. */
export const PLACEMENT_FIELDS = ["type", "id", "parentId", "timestamp"] as const;

/** An entry's own fields (everything but type, id, parentId, timestamp). */
export function ownFields(entry: Entry | DraftEntry): Record<string, unknown> {
	// fromEntries defines properties: a field named "__proto__" stays a field (assignment would set the prototype).
	return Object.fromEntries(
		Object.entries(entry).filter(
			([key, value]) => !(PLACEMENT_FIELDS as readonly string[]).includes(key) && value !== undefined,
		),
	);
}

/** Rebuild a pi entry from its placement and own fields, in pi's key order. */
export function assembleEntry(
	type: string,
	id: string,
	parentId: string | null,
	timestamp: string,
	own: Record<string, unknown>,
): Entry {
	return { type, id, parentId, timestamp, ...own } as Entry;
}

/** Settings and model context of a path (pi's SessionContext plus activeToolNames). */
export interface SessionContext {
	messages: AgentMessage[];
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
	activeToolNames: string[] | null;
}
