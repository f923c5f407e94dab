/**
 * The Postgres data model (README, "Architecture notes"). Every entry key
 * starts with session_id, so the table can be partitioned or distributed by
 * session without changing the model. Entry rows are append-only (a trigger
 * rejects UPDATE and DELETE; see drizzle/*_append_only.sql); the session row's
 * pointer columns are the only mutable state.
 */
import { sql } from "drizzle-orm";
import {
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
import type { EntryType } from "../../session/entry.js";

export const sessions = pgTable(
	"sessions",
	{
		workspaceId: text("workspace_id").notNull(),
		id: text("id").notNull(),
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
	},
	(t) => [
		primaryKey({ columns: [t.workspaceId, t.id] }),
		index("sessions_by_activity").on(t.workspaceId, t.updatedAt.desc(), t.id.desc()),
	],
);

export const entries = pgTable(
	"entries",
	{
		workspaceId: text("workspace_id").notNull(),
		sessionId: text("session_id").notNull(),
		seq: integer("seq").notNull(),
		id: text("id").notNull(),
		parentId: text("parent_id"),
		type: text("type").$type<EntryType>().notNull(),
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
		primaryKey({ columns: [t.workspaceId, t.sessionId, t.id] }),
		unique("entries_session_seq").on(t.workspaceId, t.sessionId, t.seq),
		foreignKey({
			columns: [t.workspaceId, t.sessionId],
			foreignColumns: [sessions.workspaceId, sessions.id],
		}).onDelete("restrict"),
		// Indexes are most of what a session costs beyond its JSONL (issue 10), and
		// with text keys appended in the middle of the index (every session but the
		// newest) their pages split half full. So the secondary ones stay narrow:
		// children: no workspace column (a session id is a UUIDv7, unique in practice;
		// the workspace is checked on the row);
		index("entries_children").on(t.sessionId, t.parentId),
		// by type: no seq, so that btree deduplication stores each (session, type) once
		// with a list of rows (~15 B per entry instead of ~80). Counts scan it
		// index-only; a type-filtered log is read in seq order from entries_session_seq.
		index("entries_by_type").on(t.workspaceId, t.sessionId, t.type),
		index("entries_label_targets")
			.on(t.workspaceId, t.sessionId, sql`(${t.payload}->>'targetId')`, t.seq)
			.where(sql`${t.type} = 'label'`),
	],
);
