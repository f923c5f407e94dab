/**
 * Rows of the Postgres backend and their mapping to the store's records. The
 * selections name schema columns (./schema.ts), and the row types are the
 * schema's own (`$inferSelect`): a renamed or retyped column fails to compile
 * here instead of drifting from the SQL.
 */
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { assembleEntry, type LabelEntry, ownFields, type StoredEntry } from "../../session/entry.js";
import type { EntryOmissions, SessionRecord } from "../store.js";
import { entries, sessions } from "./schema.js";

/** A timestamp column as `toISOString()` text, the form pi writes (both drivers, no Date parsing). */
export const isoText = (column: PgColumn | SQL) =>
	sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An entry row as the store reads it (every column but the session's key: the caller knows the session). */
export type EntryRow = Omit<typeof entries.$inferSelect, "sessionKey">;

/** A session row as the store reads it (its key is internal: statements look it up themselves). */
export type SessionRow = Omit<typeof sessions.$inferSelect, "key">;

/** The select list of an entry row; its fields are EntryRow's. */
export const entryColumns = {
	seq: entries.seq,
	id: entries.id,
	parentId: entries.parentId,
	type: entries.type,
	depth: entries.depth,
	author: entries.author,
	payload: entries.payload,
	timestamp: isoText(entries.timestamp),
} satisfies Record<keyof EntryRow, PgColumn | SQL>;

/**
 * An entry row without what a read was allowed to leave out (store.ts,
 * EntryOmissions): no payload (the pi fields beyond the placement ones), no
 * timestamp.
 */
export type BriefEntryRow = Omit<EntryRow, "payload" | "timestamp"> &
	Partial<Pick<EntryRow, "payload" | "timestamp">>;

/** The select list of an entry row, less what `omit` leaves out. */
export function entrySelection(omit: EntryOmissions = {}): Record<string, PgColumn | SQL> {
	const { payload, timestamp, ...rest } = entryColumns;
	return { ...rest, ...(omit.payload ? {} : { payload }), ...(omit.timestamp ? {} : { timestamp }) };
}

/** The select list of a session row; its fields are SessionRow's. */
export const sessionColumns = {
	workspaceId: sessions.workspaceId,
	id: sessions.id,
	createdAt: isoText(sessions.createdAt),
	updatedAt: isoText(sessions.updatedAt),
	cwd: sessions.cwd,
	parentSessionId: sessions.parentSessionId,
	name: sessions.name,
	leafId: sessions.leafId,
	leafDepth: sessions.leafDepth,
	lastSeq: sessions.lastSeq,
	entryCount: sessions.entryCount,
	header: sessions.header,
	archivedAt: isoText(sessions.archivedAt),
} satisfies Record<keyof SessionRow, PgColumn | SQL>;

/**
 * A select list for raw SQL: each field under its own name, so that a raw
 * statement's rows have the same shape as the query builder's.
 */
export const selectList = (fields: Record<string, PgColumn | SQL>): SQL =>
	sql.join(
		Object.entries(fields).map(([name, value]) => sql`${value} as ${sql.identifier(name)}`),
		sql`, `,
	);

/** jsonb arrives parsed through the query builder, but raw results may carry text; accept both. */
const json = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

/** A row without payload has its placement fields only; one without timestamp has "" (EntryOmissions). */
export function toStored(row: BriefEntryRow, sessionId: string): StoredEntry {
	return {
		sessionId,
		seq: Number(row.seq),
		depth: Number(row.depth),
		author: row.author,
		entry: assembleEntry(
			row.type,
			row.id,
			row.parentId,
			row.timestamp ?? "",
			row.payload === undefined ? {} : json(row.payload),
		),
	};
}

/** The set labels among each target's latest label entry (a cleared label is no label). */
export function setLabels(rows: readonly EntryRow[], sessionId: string): Map<string, LabelEntry> {
	const labels = new Map<string, LabelEntry>();
	for (const row of rows) {
		const entry = toStored(row, sessionId).entry as LabelEntry;
		if (entry.label) labels.set(entry.targetId, entry);
	}
	return labels;
}

export function toRecord(row: SessionRow): SessionRecord {
	return {
		workspaceId: row.workspaceId,
		sessionId: row.id,
		name: row.name,
		cwd: row.cwd,
		createdAt: row.createdAt,
		updatedAt: row.updatedAt,
		parentSessionId: row.parentSessionId,
		leafId: row.leafId,
		leafDepth: row.leafDepth === null ? null : Number(row.leafDepth),
		lastSeq: Number(row.lastSeq),
		entryCount: Number(row.entryCount),
		headerExtra: json(row.header),
		archivedAt: row.archivedAt,
	};
}

export function sessionInsert(record: SessionRecord): Omit<typeof sessions.$inferInsert, "key"> {
	return {
		id: record.sessionId,
		workspaceId: record.workspaceId,
		createdAt: record.createdAt,
		updatedAt: record.updatedAt,
		cwd: record.cwd,
		parentSessionId: record.parentSessionId,
		name: record.name,
		leafId: record.leafId,
		leafDepth: record.leafDepth,
		lastSeq: record.lastSeq,
		entryCount: record.entryCount,
		header: record.headerExtra,
	};
}

/** Entry rows to insert, as the schema types them, less the session's key (./inserts.ts adds it). */
export function entryInserts(
	rows: readonly StoredEntry[],
): Array<Omit<typeof entries.$inferInsert, "sessionKey">> {
	return rows.map((r) => ({
		seq: r.seq,
		id: r.entry.id,
		parentId: r.entry.parentId,
		type: r.entry.type,
		timestamp: r.entry.timestamp,
		depth: r.depth,
		author: r.author,
		payload: ownFields(r.entry),
	}));
}
