/**
 * The statements that write entry rows: the bulk INSERT of an import or a
 * fork, and an append's one statement (rows in, pointer moved). Each adds the
 * rows' rollups (./schema.ts usageRollups) and their assistant turns' rows
 * (assistantTurns) in the same statement. Columns are the schema's
 * (./schema.ts), as in ./queries.ts.
 */
import { getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import {
	ROLLUP_FIGURES,
	ROLLUP_MAXIMA,
	ROLLUP_MINIMA,
	rollupRows,
	turnRows,
} from "../../session/analytics/rollup.js";
import type { StoredEntry } from "../../session/entry.js";
import type { SessionRecord } from "../store.js";
import type { Db } from "./db.js";
import { sessionKeyOf } from "./queries.js";
import { entryInserts } from "./rows.js";
import { activityLog, assistantTurns, entries, sessions, usageRollups } from "./schema.js";

const entryTable = getTableColumns(entries);
const rollupTable = getTableColumns(usageRollups);
const turnTable = getTableColumns(assistantTurns);

/**
 * Rows as the JSON array `jsonb_populate_recordset` expands: each field under
 * its column's name, the session's key left out (the statement adds it).
 */
function records<C extends Record<string, { name: string }>>(
	columns: C,
	rows: ReadonlyArray<Partial<Record<keyof C, unknown>>>,
): string {
	const fields = Object.keys(columns).filter((f) => f !== "sessionKey");
	return JSON.stringify(
		rows.map((row) =>
			Object.fromEntries(fields.map((f) => [(columns[f] as { name: string }).name, row[f] ?? null])),
		),
	);
}

/** Entry rows and their rollup rows (session/analytics/rollup.ts), as the statements below take them. */
function entryRecords(rows: readonly StoredEntry[]): string {
	return records(entryTable, entryInserts(rows));
}

function rollupRecords(rows: readonly StoredEntry[]): string {
	return records(rollupTable, rollupRows(rows));
}

/** The rows' assistant turns (session/analytics/rollup.ts turnRows); "[]" when they have none. */
function turnRecords(rows: readonly StoredEntry[]): string {
	return records(turnTable, turnRows(rows));
}

/**
 * INSERT of rows given as one JSON parameter, expanded by the server into the
 * table's own row type: cheap to build for a thousand rows (an import) as for
 * one (an append). The session's key is one expression, not a field of every
 * row; `from` names what it refers to (a CTE), whose rows also decide
 * whether the rows go in at all (none when it has none).
 */
function insertRecords(
	table: typeof entries | typeof usageRollups | typeof assistantTurns,
	key: SQL,
	records: SQL,
	from?: SQL,
): SQL {
	const columns = Object.values(getTableColumns(table)).filter((column) => !DEFAULTED.has(column));
	// An INSERT's column list takes bare names (`${entries.id}` would render table-qualified).
	const names = columns.map((column) => sql.identifier(column.name));
	const values = columns.map((column) =>
		column.name === table.sessionKey.name ? key : sql`r.${sql.identifier(column.name)}`,
	);
	return sql`insert into ${table} (${sql.join(names, sql`, `)})
		select ${sql.join(values, sql`, `)}
		from ${from ? sql`${from}, ` : sql``}jsonb_populate_recordset(null::${table}, ${records}::jsonb) as r`;
}

/** Columns a write leaves to their default: a new rollup row is dirty (./analytics/fold.ts). */
const DEFAULTED = new Set<PgColumn>([usageRollups.dirty]);

const insertEntries = (key: SQL, records: SQL, from?: SQL) => insertRecords(entries, key, records, from);

const insertTurns = (key: SQL, records: SQL, from?: SQL) => insertRecords(assistantTurns, key, records, from);

/**
 * Adds rollup rows given as one JSON parameter to the session's rollups: a
 * new key is inserted, a known one has each figure added (figures are sums:
 * session/analytics/rollup.ts). The rows are grouped by key, so no row is touched twice
 * by one statement. Like insertEntries, `from` decides whether they go in.
 * Either way the row is dirty until the next fold (./analytics/fold.ts).
 */
function addRollups(key: SQL, rollups: SQL, from?: SQL): SQL {
	const merged = (fields: readonly (keyof typeof rollupTable)[], merge: (column: SQLWrapper) => SQL) =>
		fields.map((f) => {
			const column = sql.identifier(rollupTable[f].name);
			return sql`${column} = ${merge(column)}`;
		});
	// least() and greatest() skip nulls: a row without a turn leaves the extremes as they are.
	const added = [
		...merged(ROLLUP_FIGURES, (c) => sql`${usageRollups}.${c} + excluded.${c}`),
		...merged(ROLLUP_MINIMA, (c) => sql`least(${usageRollups}.${c}, excluded.${c})`),
		...merged(ROLLUP_MAXIMA, (c) => sql`greatest(${usageRollups}.${c}, excluded.${c})`),
	];
	return sql`${insertRecords(usageRollups, key, rollups, from)}
		on conflict on constraint usage_rollups_pk do update set ${sql.join(added, sql`, `)}, ${sql.identifier(usageRollups.dirty.name)} = true`;
}

/**
 * The write's row of the activity log (./schema.ts activityLog); its
 * transaction id is the column's default. `from` as in insertRecords.
 */
export function logActivity(key: SQL, fromSeq: SQL, toSeq: SQL, created: boolean, from?: SQL): SQL {
	const column = (c: { name: string }) => sql.identifier(c.name);
	return sql`insert into ${activityLog} (${column(activityLog.sessionKey)}, ${column(activityLog.fromSeq)}, ${column(activityLog.toSeq)}, ${column(activityLog.created)})
		select ${key}, ${fromSeq}, ${toSeq}, ${created}${from ? sql` from ${from}` : sql``}`;
}

/** Rows inserted per statement on import and fork (progress is reported per batch). */
const INSERT_BATCH = 1000;

/** Bulk INSERT (import, fork) in batches; `onBatch` hears how many rows are in after each. */
export async function insertEntryBatches(
	db: Db,
	sessionKey: number,
	rows: readonly StoredEntry[],
	onBatch?: (inserted: number) => void,
): Promise<void> {
	for (let i = 0; i < rows.length; i += INSERT_BATCH) {
		const batch = rows.slice(i, i + INSERT_BATCH);
		const key = sql`${sessionKey}::integer`;
		await db.execute(
			sql`with rolled as (${addRollups(key, sql`${rollupRecords(batch)}`)}),
				turned as (${insertTurns(key, sql`${turnRecords(batch)}`)})
				${insertEntries(key, sql`${entryRecords(batch)}`)}`,
		);
		onBatch?.(i + batch.length);
	}
}

/**
 * Adds the rollups and turn rows of a session's entries (a rebuild, after
 * its rows were zeroed and its turns deleted), in batches like
 * insertEntryBatches.
 */
export async function addRollupBatches(
	db: Db,
	sessionKey: number,
	rows: readonly StoredEntry[],
): Promise<void> {
	for (let i = 0; i < rows.length; i += INSERT_BATCH) {
		const batch = rows.slice(i, i + INSERT_BATCH);
		const key = sql`${sessionKey}::integer`;
		await db.execute(
			sql`with turned as (${insertTurns(key, sql`${turnRecords(batch)}`)})
				${addRollups(key, sql`${rollupRecords(batch)}`)}`,
		);
	}
}

/** The session row's pointer columns after an append. */
export type SessionPointer = Pick<
	SessionRecord,
	"leafId" | "leafDepth" | "lastSeq" | "entryCount" | "name" | "updatedAt"
>;

/** SET of the pointer columns (bare names: `${sessions.leafId}` would render table-qualified, which SET refuses). */
function setPointer(next: { [K in keyof SessionPointer]: SQL }): SQL {
	const set = (column: { name: string }, value: SQL) => sql`${sql.identifier(column.name)} = ${value}`;
	return sql.join(
		[
			set(sessions.leafId, next.leafId),
			set(sessions.leafDepth, next.leafDepth),
			set(sessions.lastSeq, next.lastSeq),
			set(sessions.entryCount, next.entryCount),
			set(sessions.name, next.name),
			set(sessions.updatedAt, next.updatedAt),
		],
		sql`, `,
	);
}

/** An append as one statement inside a transaction that holds the session row's lock: rows in, pointer moved. */
export function appendStatement(
	ws: string,
	sessionId: string,
	rows: readonly StoredEntry[],
	next: SessionPointer,
): SQL {
	const key = sessionKeyOf(ws, sessionId);
	const turns = turnRecords(rows);
	return sql`with appended as (${insertEntries(key, sql`${entryRecords(rows)}`)}),
		rolled as (${addRollups(key, sql`${rollupRecords(rows)}`)}),
		${turns === "[]" ? sql`` : sql`turned as (${insertTurns(key, sql`${turns}`)}),`}
		logged as (${logActivity(key, sql`${rows[0]?.seq ?? next.lastSeq}::integer`, sql`${next.lastSeq}::integer`, false)})
		update ${sessions} set ${setPointer({
			leafId: sql`${next.leafId}`,
			leafDepth: sql`${next.leafDepth}`,
			lastSeq: sql`${next.lastSeq}`,
			entryCount: sql`${next.entryCount}`,
			name: sql`${next.name}`,
			updatedAt: sql`${next.updatedAt}::timestamptz`,
		})}
		where ${sessions.workspaceId} = ${ws} and ${sessions.id} = ${sessionId}`;
}

const p = sql.placeholder;

/**
 * An append as one autocommitted statement, prepared once (placeholders; see
 * conditionalAppendValues): the pointer moves only if the session's last seq
 * is still `expectedSeq`, and the rows go in only if it moved. `applied` is 1
 * when it did, 0 when another write came first (nothing written). The row
 * lock lasts this statement; a concurrent writer's update waits for it, then
 * finds `last_seq` changed.
 */
export function conditionalAppend(): SQL {
	return sql`with moved as (
			update ${sessions} set ${setPointer({
				leafId: sql`${p("leafId")}::text`,
				leafDepth: sql`${p("leafDepth")}::integer`,
				lastSeq: sql`${p("lastSeq")}::integer`,
				entryCount: sql`${p("entryCount")}::integer`,
				name: sql`${p("name")}::text`,
				updatedAt: sql`${p("updatedAt")}::timestamptz`,
			})}
			where ${sessions.workspaceId} = ${p("ws")}::text and ${sessions.id} = ${p("sessionId")}::text
				and ${sessions.lastSeq} = ${p("expectedSeq")}::integer and ${sessions.archivedAt} is null
				-- The same session, not one deleted and created again under its id since the snapshot.
				and ${sessions.createdAt} = ${p("createdAt")}::timestamptz
			returning ${sessions.key} as key
		), appended as (
			${insertEntries(sql`moved.key`, sql`${p("rows")}::text`, sql`moved`)}
		), rolled as (
			${addRollups(sql`moved.key`, sql`${p("rollups")}::text`, sql`moved`)}
		), turned as (
			${insertTurns(sql`moved.key`, sql`${p("turns")}::text`, sql`moved`)}
		), logged as (
			${logActivity(sql`moved.key`, sql`${p("fromSeq")}::integer`, sql`${p("lastSeq")}::integer`, false, sql`moved`)}
		)
		select count(*)::integer as applied from moved`;
}

/** The placeholder values of conditionalAppend. */
export function conditionalAppendValues(
	ws: string,
	sessionId: string,
	expectedSeq: number,
	rows: readonly StoredEntry[],
	next: SessionPointer & Pick<SessionRecord, "createdAt">,
): Record<string, unknown> {
	return {
		ws,
		sessionId,
		expectedSeq,
		rows: entryRecords(rows),
		rollups: rollupRecords(rows),
		turns: turnRecords(rows),
		fromSeq: rows[0]?.seq ?? next.lastSeq,
		leafId: next.leafId,
		leafDepth: next.leafDepth,
		lastSeq: next.lastSeq,
		entryCount: next.entryCount,
		name: next.name,
		updatedAt: next.updatedAt,
		createdAt: next.createdAt,
	};
}

/** One NOTIFY per payload of a JSON array, in order, in one statement (placeholder `payloads`). */
export const notifyEach = (channel: string) =>
	sql`select pg_notify(${channel}, payload)
		from jsonb_array_elements_text(${sql.placeholder("payloads")}::jsonb) with ordinality as n(payload, i)
		order by i`;

/** Bulk work (import, fork) may run longer than a request's statement: for this transaction only. */
export const statementTimeout = (ms: number) =>
	sql`select set_config('statement_timeout', ${String(ms)}, true)`;
