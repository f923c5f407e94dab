/**
 * The statements that write entry rows: the bulk INSERT of an import or a
 * fork, and an append's one statement (rows in, pointer moved). Columns are
 * the schema's (./schema.ts), as in ./queries.ts.
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { StoredEntry } from "../../session/entry.js";
import type { SessionRecord } from "../store.js";
import type { Db } from "./queries.js";
import { entryInserts } from "./rows.js";
import { entries, sessions } from "./schema.js";

const entryTable = getTableColumns(entries);
const entryFields = Object.keys(entryTable) as Array<keyof typeof entryTable>;

/**
 * INSERT of entry rows as one JSON parameter expanded by the server into the
 * table's own row type: cheap to build for a thousand rows (an import) as for
 * one (an append). The workspace is one parameter, not a field of every row.
 */
function insertEntries(ws: string, rows: readonly StoredEntry[]): SQL {
	const records = entryInserts(ws, rows).map((row) =>
		Object.fromEntries(
			entryFields.filter((f) => f !== "workspaceId").map((f) => [entryTable[f].name, row[f] ?? null]),
		),
	);
	// An INSERT's column list takes bare names (`${entries.id}` would render table-qualified).
	const names = entryFields.map((f) => sql.identifier(entryTable[f].name));
	const values = entryFields.map((f) =>
		f === "workspaceId" ? sql`${ws}` : sql`r.${sql.identifier(entryTable[f].name)}`,
	);
	return sql`insert into ${entries} (${sql.join(names, sql`, `)})
		select ${sql.join(values, sql`, `)}
		from jsonb_populate_recordset(null::${entries}, ${JSON.stringify(records)}::jsonb) as r`;
}

/** Rows inserted per statement on import and fork (progress is reported per batch). */
const INSERT_BATCH = 1000;

/** Bulk INSERT (import, fork) in batches; `onBatch` hears how many rows are in after each. */
export async function insertEntryBatches(
	db: Db,
	ws: string,
	rows: readonly StoredEntry[],
	onBatch?: (inserted: number) => void,
): Promise<void> {
	for (let i = 0; i < rows.length; i += INSERT_BATCH) {
		const batch = rows.slice(i, i + INSERT_BATCH);
		await db.execute(insertEntries(ws, batch));
		onBatch?.(i + batch.length);
	}
}

/** The session row's pointer columns after an append. */
export type SessionPointer = Pick<
	SessionRecord,
	"leafId" | "leafDepth" | "lastSeq" | "entryCount" | "name" | "updatedAt"
>;

/**
 * An append as one statement: insert the rows, move the session's pointer
 * and, given `returning`, send the notice (only if the transaction commits).
 */
export function appendStatement(
	ws: string,
	sessionId: string,
	rows: readonly StoredEntry[],
	next: SessionPointer,
	returning: SQL | undefined,
): SQL {
	// SET takes bare column names (`${sessions.leafId}` would render table-qualified, which Postgres refuses).
	const set = (column: { name: string }, value: unknown) => sql`${sql.identifier(column.name)} = ${value}`;
	return sql`with appended as (${insertEntries(ws, rows)})
		update ${sessions} set ${sql.join(
			[
				set(sessions.leafId, next.leafId),
				set(sessions.leafDepth, next.leafDepth),
				set(sessions.lastSeq, next.lastSeq),
				set(sessions.entryCount, next.entryCount),
				set(sessions.name, next.name),
				set(sessions.updatedAt, sql`${next.updatedAt}::timestamptz`),
			],
			sql`, `,
		)}
		where ${sessions.workspaceId} = ${ws} and ${sessions.id} = ${sessionId}
		${returning ? sql`returning ${returning}` : sql``}`;
}

export const notifyCall = (channel: string, payload: string) => sql`pg_notify(${channel}, ${payload})`;

/** Bulk work (import, fork) may run longer than a request's statement: for this transaction only. */
export const statementTimeout = (ms: number) =>
	sql`select set_config('statement_timeout', ${String(ms)}, true)`;
