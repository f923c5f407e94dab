/**
 * The sessions list in another order or filtered (store/session-query.ts)
 * as one statement: the workspace's sessions through the filter, each
 * one's cost and tokens summed from its rollups (their key starts with the
 * session's key) only when the order needs them, keyset-paged on (value,
 * id) with ids in the C collation, as the cursors compare them.
 */
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { sessionPage } from "../session-query.js";
import type { Page, SessionOrderField, SessionQuery, SessionRecord } from "../store.js";
import type { Db } from "./db.js";
import { type SessionRow, selectList, sessionColumns, toRecord } from "./rows.js";
import { sessions, usageRollups } from "./schema.js";
import { executeRows } from "./statements.js";

/** `x` escaped for LIKE: its own % and _ match themselves. */
const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type Row = SessionRow & { sortValue: number | string; total: number };

export async function findSessions(db: Db, ws: string, query: SessionQuery): Promise<Page<SessionRecord>> {
	const { filter, order } = query;
	const conditions: SQL[] = [
		sql`${sessions.workspaceId} = ${ws}`,
		// Archived sessions only when asked for, and then only they (store/session-query.ts matches).
		filter.archived === true ? sql`${sessions.archivedAt} is not null` : sql`${sessions.archivedAt} is null`,
	];
	if (filter.updatedAfter) conditions.push(sql`${sessions.updatedAt} >= ${filter.updatedAfter}::timestamptz`);
	if (filter.updatedBefore)
		conditions.push(sql`${sessions.updatedAt} < ${filter.updatedBefore}::timestamptz`);
	if (filter.parentSessionId != null)
		conditions.push(sql`${sessions.parentSessionId} = ${filter.parentSessionId}`);
	if (filter.nameContains != null)
		conditions.push(sql`${sessions.name} ilike ${likeContaining(filter.nameContains)}`);
	if (filter.model != null)
		conditions.push(
			sql`exists (select 1 from ${usageRollups} where ${usageRollups.sessionKey} = ${sessions.key} and ${usageRollups.model} = ${filter.model})`,
		);
	const sum = (column: PgColumn) =>
		sql`coalesce((select sum(${column}) from ${usageRollups} where ${usageRollups.sessionKey} = ${sessions.key}), 0)`;
	const values: Record<SessionOrderField, SQL> = {
		activity: sql`${sessions.updatedAt}`,
		created: sql`${sessions.createdAt}`,
		entries: sql`${sessions.entryCount}`,
		cost: sum(usageRollups.cost),
		tokens: sum(usageRollups.totalTokens),
	};
	const value = values[order.field];
	// Timestamps travel as the records' ISO text; numbers as numbers.
	const shown =
		order.field === "activity" || order.field === "created"
			? sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
			: sql`${value}::float8`;
	const after = query.after;
	const typed = (v: number | string) =>
		order.field === "activity" || order.field === "created" ? sql`${v}::timestamptz` : sql`${v}::float8`;
	const direction = order.descending ? sql`desc` : sql`asc`;
	const keyset = after
		? sql`where (sort_value, id collate "C") ${order.descending ? sql`<` : sql`>`} (${typed(after.value)}, ${after.sessionId} collate "C")`
		: sql``;
	const rows = await executeRows<Row>(
		db,
		sql`with found as (
			select ${selectList(sessionColumns)}, ${value} as sort_value, ${shown} as "sortValue"
			from ${sessions} where ${sql.join(conditions, sql` and `)}
		)
		select page.*, counted.total from (select count(*)::integer as total from found) as counted
		left join lateral (
			select * from found ${keyset} order by sort_value ${direction}, id collate "C" ${direction} limit ${query.first + 1}
		) as page on true`,
	);
	// One row at least, for the count; without a page its session columns are null.
	const positioned = rows
		.filter((row) => row.id !== null)
		.map((row) => ({
			record: toRecord(row),
			position: {
				value: typeof row.sortValue === "string" ? row.sortValue : Number(row.sortValue),
				sessionId: row.id,
			},
		}));
	// The rows are the page already (after the cursor, in order); sessionPage makes the cursors.
	return sessionPage(query, positioned, Number(rows[0]?.total ?? 0));
}
