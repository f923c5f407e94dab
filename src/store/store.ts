/**
 * The one storage interface. Every backend (memory, PGlite, Postgres) passes
 * the same conformance suite (test/store/conformance.ts). Every call is
 * scoped to a workspace (tenant): a session of another workspace does not
 * exist for the caller.
 *
 * One file: the interface and every type its methods take or return, so an
 * implementer reads one file, and the modules that hold the rules behind them
 * (paging, session queries, tree views, continuations, records, writes)
 * import from here while this file imports none of them: no import cycle
 * (Biome's noImportCycles, type-only imports included).
 */

import type { DraftEntry, EntryTypeOrOther, SessionContext, StoredEntry } from "../session/entry.js";
import type { ExportFormat } from "../session/export.js";
import type { SessionHeader } from "../session/jsonl.js";
import type { Comparison, TreeNode } from "../session/tree-view.js";
import type { AnalyticsStore } from "./analytics/store.js";
import type { SearchPage, SearchQuery } from "./search.js";

export type { RebuildRollupsOptions } from "./analytics/store.js";

/** Used until authentication exists; the column and the scoping are real. */
export const DEFAULT_WORKSPACE = "default";

export interface SessionRecord {
	workspaceId: string;
	sessionId: string;
	name: string | null;
	cwd: string | null;
	createdAt: string;
	updatedAt: string;
	/** As written in the header: a session id, or for files from pi a file path. */
	parentSessionId: string | null;
	/** The current leaf; null before the first entry or after a move to the root. */
	leafId: string | null;
	/** Depth of the leaf entry (null with the leaf); kept so an append needs no lookup. */
	leafDepth: number | null;
	lastSeq: number;
	/** Entries in the append log (leaf records included); equals lastSeq. */
	entryCount: number;
	/** Header fields kept from an imported file (`provider`, `modelId`, `branchedFrom`, …). */
	headerExtra: Record<string, unknown>;
	/**
	 * When the session was archived; null while it is active. An archived
	 * session is read-only (a write is ARCHIVED) and left out of the
	 * workspace's list unless a filter asks for it (`SessionFilter.archived`).
	 */
	archivedAt: string | null;
}

export interface CreateSessionInput {
	sessionId?: string;
	name?: string;
	cwd?: string;
	parentSessionId?: string;
}

/** Relay-style window over sessions, newest activity first. */
export interface SessionPageArgs {
	first?: number;
	after?: string;
	last?: number;
	before?: string;
}

export interface Page<T> {
	items: Array<{ cursor: string; node: T }>;
	hasNextPage: boolean;
	hasPreviousPage: boolean;
	totalCount: number;
}

/** Who writes: the subject of the caller's token. Absent or null: written without authentication. */
export interface AuthorOptions {
	author?: string | null;
}

export interface AppendOptions extends AuthorOptions {
	/** Fail with LEAF_CONFLICT (writing nothing) unless the current leaf is this id. */
	expectedLeafId?: string | null;
}

export interface AppendResult {
	entry: StoredEntry;
	session: SessionRecord;
	/** False when the same entry was re-sent and the stored one (with its original author) is returned. */
	created: boolean;
}

export interface MoveLeafInput extends AppendOptions {
	/** A node of the session, or null for "before the first entry". */
	targetId: string | null;
	/** The abandoned branch's summary: its text, and what pi's branch_summary may carry beside it. */
	summary?: { summary: string; details?: unknown; usage?: unknown; fromHook?: boolean };
}

export interface MoveLeafResult {
	leafEntry: StoredEntry;
	summaryEntry: StoredEntry | null;
	session: SessionRecord;
}

/**
 * What of each entry a read may leave out, because its caller will not look
 * at it (GraphQL reads only what its selection needs). A backend may return
 * the whole entry anyway; every other field is always there and the same.
 */
export interface EntryOmissions {
	/** The entry may have only its placement fields (type, id, parentId, timestamp), none of its type's own. */
	payload?: boolean;
	/** The entry's timestamp may be "". */
	timestamp?: boolean;
}

export interface ContextQuery {
	/** The path's last entry (default: the session's leaf). */
	fromId?: string | null;
	/**
	 * The messages may be RawJson (session/raw-json.ts) with their role and
	 * model fields readable, for a caller that only encodes them; a backend
	 * that holds parsed values returns those.
	 */
	rawMessages?: boolean;
}

export interface EntryLogQuery {
	/** Entries with seq > afterSeq (default 0). */
	afterSeq?: number;
	/** Entries with seq < beforeSeq. */
	beforeSeq?: number;
	limit?: number;
	/** From the end of the window backwards (for `last`); results stay in seq order. */
	fromEnd?: boolean;
	/** Entry types to keep; "other" keeps every type the service does not know. */
	types?: readonly EntryTypeOrOther[];
	omit?: EntryOmissions;
}

export interface PathQuery {
	/** Default: the current leaf. */
	fromId?: string | null;
	/** The whole path to the root instead of the compaction-bounded one. */
	full?: boolean;
	omit?: EntryOmissions;
}

/** A session with one window of its append log (`SessionStore.sessionWithEntries`). */
export interface SessionWithEntries {
	session: SessionRecord;
	/** As `listEntries` returns them for the same query. */
	entries: StoredEntry[];
}

export interface ExportOptions {
	/** Default "pi". */
	format?: ExportFormat;
}

export interface ImportOptions extends AuthorOptions {
	/** Overrides the header's session id. */
	sessionId?: string;
	onProgress?: (stored: number, total: number) => void;
}

/**
 * The session an import stored or found. The record itself, for callers that
 * only need the session (an import is a session write), plus whether it was
 * written now.
 */
export interface ImportedSession extends SessionRecord {
	/** False when an identical file was already imported and the stored session is returned. */
	created: boolean;
}

/** A session's pi file, or the lines of it the store lacks (`continueSession`). */
export interface ContinueInput {
	/** The session's whole file (its header line first), or the lines after `afterEntryId` (no header). */
	jsonl: string;
	/** The session's id: a whole file's header names it (this overrides it); lines need it. */
	sessionId?: string;
	/** With lines: the id of the file's entry they follow; null: they are its first lines. */
	afterEntryId?: string | null;
}

/** The session a continuation stored or found, and how many lines it stored now. */
export interface ContinuedSession extends SessionRecord {
	/** The session did not exist and the whole file was imported. */
	created: boolean;
	/** Lines stored now. */
	appended: number;
	/** Lines the session held already (a re-sent or repeated line changes nothing). */
	held: number;
}

/** The author is the forker's: copied rows keep their own authors, the label entries a fork appends are the forker's. */
export interface ForkInput extends AuthorOptions {
	/** Default: the current leaf. */
	entryId?: string;
	newSessionId?: string;
}

/** The sessions list in another order or filtered (`findSessions`; the rules are ./session-query.ts). */
export const SESSION_ORDER_FIELDS = ["activity", "created", "entries", "cost", "tokens"] as const;
export type SessionOrderField = (typeof SESSION_ORDER_FIELDS)[number];

export interface SessionFilter {
	/** Last activity at or after (ISO 8601). */
	updatedAfter?: string | null | undefined;
	/** Last activity before (ISO 8601). */
	updatedBefore?: string | null | undefined;
	/** Used this model (an assistant message names it). */
	model?: string | null | undefined;
	/** The name contains this text, ignoring case. */
	nameContains?: string | null | undefined;
	/** Forked from this session. */
	parentSessionId?: string | null | undefined;
	/** True: only archived sessions; false or absent: only active ones (archived sessions are hidden). */
	archived?: boolean | null | undefined;
}

/** Where a session stands in the order: its sort value, then its id (ties). */
export interface SessionPosition {
	value: number | string;
	sessionId: string;
}

export interface SessionQuery {
	order: { field: SessionOrderField; descending: boolean };
	filter: SessionFilter;
	first: number;
	after: SessionPosition | null;
}

/** A page of the tree view (`sessionTree`; the rules are ./tree-view.ts). */
export interface TreeQuery {
	/** Nodes after this seq (0: from the start). */
	afterSeq: number;
	/** At most this many nodes. */
	first: number;
}

export interface TreePage {
	nodes: TreeNode[];
	/** Nodes follow this page. */
	hasNextPage: boolean;
}

/** One committed tree write in a workspace's activity log (`SessionStore.activity`). */
export interface ActivityRecord {
	/** Opaque position of this write: `activity({ after: cursor })` continues after it. */
	cursor: string;
	sessionId: string;
	/** The write's entries are fromSeq..toSeq; none (fromSeq > toSeq) when an empty session was created. */
	fromSeq: number;
	toSeq: number;
	/** The write created the session (createSession, importSession, forkSession). */
	created: boolean;
}

export interface ActivityQuery {
	/** A cursor of an earlier record; default: from the start of the log. */
	after?: string | null;
	limit: number;
	/** The last `limit` records readable now instead (in log order): where a feed of recent activity starts. */
	latest?: boolean;
}

/**
 * The tree store: sessions, their append logs and trees, the writes the
 * tree rules allow, import and export, the activity log. A store is both
 * this and the analytics store (./analytics/store.ts) over the same data.
 */
export interface TreeStore {
	readonly backend: "memory" | "pglite" | "postgres";

	createSession(ws: string, input?: CreateSessionInput): Promise<SessionRecord>;
	getSession(ws: string, sessionId: string): Promise<SessionRecord | null>;
	/** Sessions by id, for batching; missing ones are absent from the map. */
	getSessions(ws: string, sessionIds: readonly string[]): Promise<Map<string, SessionRecord>>;
	listSessions(ws: string, page: SessionPageArgs): Promise<Page<SessionRecord>>;
	/**
	 * The workspace's sessions in a chosen order (activity, created, entries,
	 * cost, tokens), filtered (store/session-query.ts); forward pages.
	 */
	findSessions(ws: string, query: SessionQuery): Promise<Page<SessionRecord>>;

	/** Append one entry as a child of the current leaf; the leaf becomes it. */
	appendEntry(
		ws: string,
		sessionId: string,
		draft: DraftEntry,
		options?: AppendOptions,
	): Promise<AppendResult>;
	/** Append a leaf record (and a branch summary when asked); see design/tree-rules.md#moving-the-leaf. */
	moveLeaf(ws: string, sessionId: string, input: MoveLeafInput): Promise<MoveLeafResult>;
	/** Append a label entry; an empty or absent label clears. */
	setLabel(
		ws: string,
		sessionId: string,
		targetId: string,
		label?: string | null,
		options?: AuthorOptions,
	): Promise<AppendResult>;
	/** Append a session_info entry with the trimmed name; empty clears. */
	renameSession(ws: string, sessionId: string, name: string, options?: AuthorOptions): Promise<AppendResult>;
	/**
	 * Archive a session (read-only, hidden from the list; `archivedAt` is
	 * kept from the first time) or bring it back (`archived` false). Writes
	 * no entry: the log is unchanged. NOT_FOUND for a missing session.
	 */
	setArchived(ws: string, sessionId: string, archived: boolean): Promise<SessionRecord>;
	/**
	 * Delete the session and everything derived from it (its entries, their
	 * rollups and turns, its activity records), the one exception to
	 * append-only (design/tree-rules.md#deleting-a-session);
	 * the record it had. A write racing it commits before it (and is deleted
	 * with it) or is NOT_FOUND; NOT_FOUND for a missing session.
	 */
	deleteSession(ws: string, sessionId: string): Promise<SessionRecord>;

	getEntry(ws: string, sessionId: string, entryId: string): Promise<StoredEntry | null>;
	/** Entries by id, for batching; missing ones are absent from the map. */
	getEntries(ws: string, sessionId: string, entryIds: readonly string[]): Promise<Map<string, StoredEntry>>;
	/** The append log in seq order. */
	listEntries(ws: string, sessionId: string, query?: EntryLogQuery): Promise<StoredEntry[]>;
	countEntries(ws: string, sessionId: string, types?: readonly EntryTypeOrOther[]): Promise<number>;
	/**
	 * `getSession` and `listEntries` in one read (Postgres: one statement, for
	 * a page of `Session.entries`); null where `getSession` is null. Optional:
	 * without it, callers make the two calls.
	 */
	sessionWithEntries?(
		ws: string,
		sessionId: string,
		query?: EntryLogQuery,
	): Promise<SessionWithEntries | null>;
	/** Child nodes of each given entry, in seq order. */
	children(ws: string, sessionId: string, entryIds: readonly string[]): Promise<Map<string, StoredEntry[]>>;
	/** Current labels of the given entries (absent when unlabelled). */
	labels(ws: string, sessionId: string, entryIds: readonly string[]): Promise<Map<string, string>>;
	tips(ws: string, sessionId: string): Promise<StoredEntry[]>;
	activePath(ws: string, sessionId: string, query?: PathQuery): Promise<StoredEntry[]>;
	context(ws: string, sessionId: string, query?: ContextQuery): Promise<SessionContext>;
	/**
	 * A page of the tree view (session/tree-view.ts): nodes after `afterSeq`
	 * in log order, each with its child count, label and whether it is on the
	 * active path. NOT_FOUND for a missing session.
	 */
	sessionTree(ws: string, sessionId: string, query: TreeQuery): Promise<TreePage>;
	/**
	 * Two nodes compared: their deepest common ancestor and each one's path
	 * below it (session/tree-view.ts#comparePaths). NOT_FOUND (field `a` or
	 * `b`) for a node not in the session, INVALID_INPUT for a leaf record.
	 */
	compareNodes(ws: string, sessionId: string, a: string, b: string): Promise<Comparison<StoredEntry>>;
	/** Entries of the workspace whose searchable text (session/search-text.ts) matches, best first (store/search.ts). */
	search(ws: string, query: SearchQuery): Promise<SearchPage>;
	/**
	 * Store a pi file as a new session. A file identical to the session
	 * already stored under its id returns that session, `created: false`,
	 * writing nothing; other content under a taken id is ALREADY_EXISTS
	 * (design/tree-rules.md#re-importing-a-file).
	 */
	importSession(ws: string, jsonl: string, options?: ImportOptions): Promise<ImportedSession>;
	/**
	 * Store what a session lacks of its pi file (store/continuation.ts): the
	 * whole file, or its lines after an entry the session holds. Lines the
	 * session holds are compared and skipped, so a repeat is a no-op; a
	 * session without the file's id, given the whole file, is imported.
	 * ALREADY_EXISTS (`jsonl`) when the file no longer matches the session,
	 * NOT_FOUND for a missing session or `afterEntryId`.
	 */
	continueSession(ws: string, input: ContinueInput, options?: AuthorOptions): Promise<ContinuedSession>;
	/**
	 * The workspace's committed writes after a position, in one order that
	 * never changes: a record returned is never preceded by one returned
	 * later, so a reader that resumes after the last cursor it saw misses
	 * nothing and sees nothing twice (design/tree-rules.md#activity-log). A
	 * write still committing is not returned yet, nor anything after it.
	 * A cursor that is not this backend's is INVALID_INPUT (`afterCursor`).
	 */
	activity(ws: string, query: ActivityQuery): Promise<ActivityRecord[]>;
	/**
	 * A cursor between the records `activity` can return now and those it
	 * cannot yet, without reading the log: reading after it gives every
	 * record committed after this call began, and perhaps some committed
	 * just before (on Postgres, those a transaction older than them still
	 * holds back). The same for every workspace, as the log's order is. Where
	 * a feed "from now on" and a client's list start; its cost does not grow
	 * with the log (nor with other workspaces' activity).
	 */
	activityNow(): Promise<string>;
	/** The session as a pi file: by default the form pi's coding agent reads (session/export.ts EXPORT_FORMATS). */
	exportSession(ws: string, sessionId: string, options?: ExportOptions): Promise<string>;
	forkSession(ws: string, sessionId: string, input?: ForkInput): Promise<SessionRecord>;

	close(): Promise<void>;
}

/** What every backend implements: the tree store and the analytics store over one set of sessions. */
export interface SessionStore extends TreeStore, AnalyticsStore {}

/** The header a session exports with. */
export function headerOf(session: SessionRecord): SessionHeader {
	return {
		id: session.sessionId,
		timestamp: session.createdAt,
		cwd: session.cwd,
		parentSession: session.parentSessionId,
		extra: session.headerExtra,
	};
}
