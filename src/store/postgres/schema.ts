/**
 * The Postgres data model (docs/architecture.md). Every entry key
 * starts with the session's key, so the table can be partitioned or
 * distributed by session without changing the model. Entry rows are append-only (a trigger
 * rejects UPDATE and DELETE; see drizzle/*_append_only.sql); the session row's
 * pointer columns are the only mutable state.
 */
import { sql } from "drizzle-orm";
import {
	boolean,
	customType,
	doublePrecision,
	foreignKey,
	index,
	integer,
	jsonb,
	pgTable,
	primaryKey,
	text,
	timestamp,
	unique,
} from "drizzle-orm/pg-core";
import type { RollupColumn } from "../../session/analytics/measures.js";

export const sessions = pgTable(
	"sessions",
	{
		workspaceId: text("workspace_id").notNull(),
		id: text("id").notNull(),
		/**
		 * The session's compact key: entry rows and their indexes carry these 4
		 * bytes instead of the workspace and session ids (two texts, a UUIDv7
		 * alone is 36 bytes), which made most of a session's size beyond its
		 * JSONL (issue 10). Never reused, never shown: the API speaks in ids.
		 */
		key: integer("key").generatedAlwaysAsIdentity().notNull(),
		createdAt: timestamp("created_at", { withTimezone: true, precision: 3, mode: "string" }).notNull(),
		updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3, mode: "string" }).notNull(),
		cwd: text("cwd"),
		parentSessionId: text("parent_session_id"),
		name: text("name"),
		leafId: text("leaf_id"),
		/** Depth of the leaf entry, so that an append needs no lookup to place its row. */
		leafDepth: integer("leaf_depth"),
		lastSeq: integer("last_seq").notNull().default(0),
		entryCount: integer("entry_count").notNull().default(0),
		/** Header fields kept from an imported file. */
		header: jsonb("header").$type<Record<string, unknown>>().notNull().default({}),
		/** Set while the session is archived (read-only, hidden from the list); null while active. */
		archivedAt: timestamp("archived_at", { withTimezone: true, precision: 3, mode: "string" }),
	},
	(t) => [
		primaryKey({ columns: [t.workspaceId, t.id] }),
		unique("sessions_key").on(t.key),
		index("sessions_by_activity").on(t.workspaceId, t.updatedAt.desc(), t.id.desc()),
		// Sessions created in a range (metrics' sessionsCreated and forks).
		index("sessions_by_creation").on(t.workspaceId, t.createdAt),
	],
);

export const entries = pgTable(
	"entries",
	{
		/** The session's key (sessions.key); its workspace and id are the session row's. */
		sessionKey: integer("session_key").notNull(),
		seq: integer("seq").notNull(),
		id: text("id").notNull(),
		parentId: text("parent_id"),
		/** As written: a type the service does not know is kept (session/entry.ts OtherEntry). */
		type: text("type").notNull(),
		timestamp: timestamp("timestamp", { withTimezone: true, precision: 3, mode: "string" }).notNull(),
		depth: integer("depth").notNull(),
		/**
		 * Subject of the token that wrote the row; null without authentication.
		 * A column beside the payload, so the pi object (and an export) never holds it.
		 */
		author: text("author"),
		/** The type's own fields, unknown fields kept. */
		payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
	},
	(t) => [
		primaryKey({ columns: [t.sessionKey, t.id] }),
		unique("entries_session_seq").on(t.sessionKey, t.seq),
		foreignKey({ columns: [t.sessionKey], foreignColumns: [sessions.key] }).onDelete("restrict"),
		index("entries_children").on(t.sessionKey, t.parentId),
		// No seq, so that btree deduplication stores each (session, type) once with
		// a list of rows. Counts scan it index-only; a type-filtered log is read in
		// seq order from entries_session_seq.
		index("entries_by_type").on(t.sessionKey, t.type),
		index("entries_label_targets")
			.on(t.sessionKey, sql`(${t.payload}->>'targetId')`, t.seq)
			.where(sql`${t.type} = 'label'`),
	],
);

/** A rollup row's key beyond its owner (session or workspace): session/analytics/rollup.ts RollupKey. */
const rollupKeyColumns = () => ({
	bucket: timestamp("bucket", { withTimezone: true, precision: 3, mode: "string" }).notNull(),
	entryType: text("entry_type").notNull(),
	/** "" where the dimension does not apply (a key column cannot be null). */
	role: text("role").notNull(),
	provider: text("provider").notNull(),
	model: text("model").notNull(),
	toolName: text("tool_name").notNull(),
	author: text("author").notNull(),
});

/** A rollup row's figures: a column per measure the table marks `rollup` (session/analytics/measures.ts), no more, no fewer. */
const rollupFigureColumns = () =>
	({
		entries: integer("entries").notNull(),
		toolCalls: integer("tool_calls").notNull(),
		toolResults: integer("tool_results").notNull(),
		toolErrors: integer("tool_errors").notNull(),
		// Sums of whatever the messages say: fractional in odd files, past 2^31 over a workspace.
		inputTokens: doublePrecision("input_tokens").notNull(),
		outputTokens: doublePrecision("output_tokens").notNull(),
		cacheReadTokens: doublePrecision("cache_read_tokens").notNull(),
		cacheWriteTokens: doublePrecision("cache_write_tokens").notNull(),
		totalTokens: doublePrecision("total_tokens").notNull(),
		cost: doublePrecision("cost").notNull(),
		timedAssistantTurns: integer("timed_assistant_turns").notNull(),
		assistantTurnDurationMs: doublePrecision("assistant_turn_duration_ms").notNull(),
	}) satisfies Record<RollupColumn, unknown>;

/** A rollup row's extremes (session/analytics/rollup.ts RollupExtremes): null without an assistant turn. */
const rollupExtremeColumns = () => ({
	minTotalTokens: doublePrecision("min_total_tokens"),
	maxTotalTokens: doublePrecision("max_total_tokens"),
	minCost: doublePrecision("min_cost"),
	maxCost: doublePrecision("max_cost"),
	minDurationMs: doublePrecision("min_duration_ms"),
	maxDurationMs: doublePrecision("max_duration_ms"),
});

/**
 * Activity per session, quarter hour and dimension (session/analytics/rollup.ts): the
 * figures of exactly the entries with that key. Written by the statement that
 * writes those entries (./inserts.ts), so a committed entry is always counted
 * and a rolled-back one never; only that session's writers touch its rows, and
 * they are already queued on its row. Rebuildable from the log
 * (`npm run rollups -- rebuild`). Rows are never deleted by writes: a rebuild
 * zeroes a row's figures (./analytics/fold.ts explains why).
 */
export const usageRollups = pgTable(
	"usage_rollups",
	{
		sessionKey: integer("session_key").notNull(),
		...rollupKeyColumns(),
		...rollupFigureColumns(),
		...rollupExtremeColumns(),
		/**
		 * Changed since the workspace's rows were last folded from it
		 * (./analytics/fold.ts): every write sets it, only a fold clears it.
		 */
		dirty: boolean("dirty").notNull().default(true),
	},
	(t) => [
		// A workspace's time range reads its sessions' keys, then each one's buckets: this key's prefix.
		primaryKey({
			name: "usage_rollups_pk",
			columns: [t.sessionKey, t.bucket, t.entryType, t.role, t.provider, t.model, t.toolName, t.author],
		}),
		foreignKey({ columns: [t.sessionKey], foreignColumns: [sessions.key] }).onDelete("restrict"),
		// Few rows once folded: the fold and a metrics query find them without reading the others.
		index("usage_rollups_dirty").on(t.sessionKey).where(sql`${t.dirty}`),
		// A dirty key's rows in every session of the workspace (./analytics/fold.ts), found by its bucket.
		index("usage_rollups_by_bucket").on(t.bucket),
	],
);

/**
 * The sessions' rollup rows added up per workspace and key (./analytics/fold.ts): a
 * workspace-wide metrics query reads these instead of every session's rows
 * (a million entries in 30 days: about 300,000 session rows, 15,000 of
 * these). Written only by the fold, never by a request's write, so writers
 * of different sessions never contend on them.
 */
export const workspaceRollups = pgTable(
	"workspace_rollups",
	{
		workspaceId: text("workspace_id").notNull(),
		...rollupKeyColumns(),
		...rollupFigureColumns(),
		...rollupExtremeColumns(),
	},
	(t) => [
		primaryKey({
			name: "workspace_rollups_pk",
			columns: [t.workspaceId, t.bucket, t.entryType, t.role, t.provider, t.model, t.toolName, t.author],
		}),
	],
);

/**
 * One row per assistant turn (session/analytics/rollup.ts TurnRow): the values a
 * percentile needs one by one, which no sum can give. Written by the
 * statement that writes the turn's entry, like the rollups; read only by a
 * metrics query that asks for a percentile (and by a session's stats): one
 * narrow row per assistant turn in range, never the entries. Not folded.
 * Rebuilt with the rollups.
 */
export const assistantTurns = pgTable(
	"assistant_turns",
	{
		sessionKey: integer("session_key").notNull(),
		/** The turn's entry (entries.seq). */
		seq: integer("seq").notNull(),
		bucket: timestamp("bucket", { withTimezone: true, precision: 3, mode: "string" }).notNull(),
		provider: text("provider").notNull(),
		model: text("model").notNull(),
		author: text("author").notNull(),
		totalTokens: doublePrecision("total_tokens").notNull(),
		cost: doublePrecision("cost").notNull(),
		/** Null: the turn has no duration (session/analytics/turns.ts). */
		durationMs: doublePrecision("duration_ms"),
	},
	(t) => [
		// A workspace's time range reads its sessions' keys, then each one's buckets, as for the rollups.
		primaryKey({ name: "assistant_turns_pk", columns: [t.sessionKey, t.bucket, t.seq] }),
		foreignKey({ columns: [t.sessionKey], foreignColumns: [sessions.key] }).onDelete("restrict"),
	],
);

/** A 64-bit transaction id (Postgres 13+): never wraps around, ordered, compared in an index. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

/**
 * The activity log: one row per committed tree write (a creation, an import
 * or a fork with all its rows, an append, a move), in the same statement or
 * transaction as the write, so the workspace's activity can be replayed from
 * any position (`SessionStore.activity`). Ordered by the writing
 * transaction's id, then session and seq; a reader takes only rows of
 * transactions older than every one still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`), so no row can later appear
 * before a position it has passed, whatever order the transactions commit
 * in. No counter row: writers of different sessions share nothing but the
 * index's right edge (a page latch for the insert, not a lock held to commit).
 * Rows start when this table was added: older activity is not replayed.
 */
export const activityLog = pgTable(
	"activity_log",
	{
		sessionKey: integer("session_key").notNull(),
		/** The writing transaction (`pg_current_xact_id()`, the column's default). */
		xid: xid8("xid").notNull().default(sql`pg_current_xact_id()`),
		/** The write's entries are fromSeq..toSeq (none when fromSeq > toSeq: an empty session created). */
		fromSeq: integer("from_seq").notNull(),
		toSeq: integer("to_seq").notNull(),
		/** The write created the session (createSession, import, fork). */
		created: boolean("created").notNull(),
	},
	(t) => [
		primaryKey({ name: "activity_log_pk", columns: [t.sessionKey, t.toSeq] }),
		index("activity_log_order").on(t.xid, t.sessionKey, t.toSeq),
		foreignKey({ columns: [t.sessionKey], foreignColumns: [sessions.key] }).onDelete("restrict"),
	],
);
