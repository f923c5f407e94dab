/**
 * Metrics on Postgres: one GROUP BY over rollup rows, never over entries: the
 * workspace's folded rows (./fold.ts) when the query needs no session's own
 * rows, else its sessions' rows (./schema.ts usageRollups). The rules are
 * session/metrics.ts's; this is their SQL: each measure below is what the
 * session layer's `measureOf` gives for the same rollup rows, and
 * the order is its `compareRows` (text by code point: COLLATE "C"; nulls last
 * ascending, first descending, PostgreSQL's default).
 */
import { getTableName, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { EntryType } from "../../session/entry.js";
import {
	DIMENSION_FIELD,
	DIMENSIONS,
	type Dimension,
	emptyMetricsRow,
	type Measure,
	type MetricsQuery,
	type MetricsResult,
} from "../../session/metrics.js";
import { ROLLUP_FIGURES } from "../../session/rollup.js";
import { countsNothing, dirtyKeys, keyColumns, ref, sameKey, workspaceSessions } from "./fold.js";
import { type Db, list } from "./queries.js";
import { isoText } from "./rows.js";
import { usageRollups as r, sessions, workspaceRollups } from "./schema.js";
import { executeRows } from "./statements.js";

const sum = (column: SQL | PgColumn, where?: SQL) =>
	sql`coalesce(sum(${column})${where ? sql` filter (where ${where})` : sql``}, 0)`;

const ofType = (type: EntryType) => sql`${r.entryType} = ${sql.raw(`'${type}'`)}`;
const message = (role: string) => sql`${ofType("message")} and ${r.role} = ${sql.raw(`'${role}'`)}`;
const assistantTurns = sum(r.entries, message("assistant"));

/** Each measure as an aggregate over the grouped rollup rows. */
const MEASURE_SQL: Record<Measure, SQL> = {
	entries: sum(r.entries),
	messages: sum(r.entries, ofType("message")),
	userTurns: sum(r.entries, message("user")),
	assistantTurns,
	toolCalls: sum(r.toolCalls),
	toolResults: sum(r.toolResults),
	toolErrors: sum(r.toolErrors),
	inputTokens: sum(r.inputTokens),
	outputTokens: sum(r.outputTokens),
	cacheReadTokens: sum(r.cacheReadTokens),
	cacheWriteTokens: sum(r.cacheWriteTokens),
	totalTokens: sum(r.totalTokens),
	cost: sum(r.cost),
	leafMoves: sum(r.entries, ofType("leaf")),
	branchSummaries: sum(r.entries, ofType("branch_summary")),
	compactions: sum(r.entries, ofType("compaction")),
	labels: sum(r.entries, ofType("label")),
	activeSessions: sql`count(distinct ${r.sessionKey})`,
	avgTotalTokensPerAssistantTurn: sql`${sum(r.totalTokens)} / nullif(${assistantTurns}, 0)`,
	avgCostPerAssistantTurn: sql`${sum(r.cost)} / nullif(${assistantTurns}, 0)`,
};

/**
 * The query is answered in two levels: the inner one groups the rollup rows
 * by their plain columns (the bucket, not its day) and adds up each measure's
 * partial sums; the outer one turns the few resulting rows into the query's
 * dimensions (a bucket's day in the zone, "" as null) and adds the partials
 * up. Computing a zone's day once per rollup row was most of a month's
 * query; once per inner row it is a fraction. Distinct sessions are counted
 * in the outer level, so the inner one keeps the session's key when asked.
 */
const INNER: Record<Dimension, SQL> = {
	time: sql`${r.bucket}`,
	session: sql`${sessions.id}`,
	entryType: sql`${r.entryType}`,
	role: sql`${r.role}`,
	provider: sql`${r.provider}`,
	model: sql`${r.model}`,
	author: sql`${r.author}`,
};

/** A dimension's value in a result row, from the inner level's column: "" (not applicable) reads as null. */
function outerDimension(dimension: Dimension, query: MetricsQuery): SQL {
	const column = sql.identifier(`i_${dimension}`);
	switch (dimension) {
		case "time":
			return isoText(sql`date_trunc(${query.granularity}, ${column}, ${query.timeZone})`);
		case "session":
		case "entryType":
			return sql`${column}`;
		default:
			return sql`nullif(${column}, '')`;
	}
}

/** The partial sums a measure is made of: itself, or an average's two sums; none for distinct sessions. */
function partsOf(measure: Measure): Measure[] {
	if (measure === "activeSessions") return [];
	if (measure === "avgTotalTokensPerAssistantTurn") return ["totalTokens", "assistantTurns"];
	if (measure === "avgCostPerAssistantTurn") return ["cost", "assistantTurns"];
	return [measure];
}

const part = (measure: Measure) => sql.identifier(`p_${measure}`);

function outerMeasure(measure: Measure): SQL {
	switch (measure) {
		case "activeSessions":
			return sql`count(distinct i_session_key)`;
		case "avgTotalTokensPerAssistantTurn":
			return sql`sum(${part("totalTokens")}) / nullif(sum(${part("assistantTurns")}), 0)`;
		case "avgCostPerAssistantTurn":
			return sql`sum(${part("cost")}) / nullif(sum(${part("assistantTurns")}), 0)`;
		default:
			return sql`coalesce(sum(${part(measure)}), 0)`;
	}
}

/** The figure columns, as both rollup tables name them. */
const FIGURES = ROLLUP_FIGURES.map((f) => r[f]);

/**
 * The workspace's rollups as rows of one key each across its sessions, under
 * the session table's name (so the measures above read them unchanged): the
 * folded rows, except for keys a dirty session row has, whose sessions' rows
 * are read instead (./fold.ts: exact whether folded or not).
 */
function foldedRollups(ws: string): SQL {
	const columns = (alias: string) =>
		sql.join([...keyColumns(alias), ...FIGURES.map((c) => ref(alias, c))], sql`, `);
	return sql`(with dirty as materialized (${dirtyKeys(ws)})
		select ${columns("w")} from ${workspaceRollups} as w
		where ${ref("w", workspaceRollups.workspaceId)} = ${ws}
			and not exists (select 1 from dirty where ${sameKey("dirty", "w")})
		union all
		select ${columns("x")} from ${r} as x join dirty on ${sameKey("dirty", "x")}
		where ${ref("x", r.sessionKey)} in ${workspaceSessions(ws)} and not ${countsNothing("x")}
	) as ${r}`;
}

/** A checked query (session/metrics.ts checkMetricsQuery) over the workspace's rollups. */
export async function rollupMetrics(db: Db, ws: string, query: MetricsQuery): Promise<MetricsResult> {
	const { filter } = query;
	// Sessions are grouped, counted or filtered on: only their own rows tell them apart.
	const perSession =
		query.dimensions.includes("session") ||
		query.measures.includes("activeSessions") ||
		filter.sessionIds !== undefined ||
		filter.cwdPrefix !== undefined;
	const dimensions = DIMENSIONS.filter((d) => query.dimensions.includes(d));
	const parts = [...new Set(query.measures.flatMap(partsOf))];
	const keepSessions = query.measures.includes("activeSessions");
	const inner = [
		...dimensions.map((d) => sql`${INNER[d]} as ${sql.identifier(`i_${d}`)}`),
		...(keepSessions ? [sql`${r.sessionKey} as i_session_key`] : []),
	];
	const innerColumns = [...inner, ...parts.map((m) => sql`${MEASURE_SQL[m]} as ${part(m)}`)];
	const outer = [
		...dimensions.map((d) => sql`${outerDimension(d, query)} as ${sql.identifier(`d_${d}`)}`),
		...query.measures.map((m) => sql`${outerMeasure(m)}::float8 as ${sql.identifier(`m_${m}`)}`),
	];
	const groupBy = (n: number) =>
		n > 0
			? sql`group by ${sql.join(
					Array.from({ length: n }, (_, i) => sql.raw(String(i + 1))),
					sql`, `,
				)}`
			: sql``;
	const where: SQL[] = perSession
		? [sql`${sessions.workspaceId} = ${ws}`, sql`not ${countsNothing(getTableName(r))}`]
		: [sql`true`];
	if (filter.from !== undefined) where.push(sql`${r.bucket} >= ${filter.from}::timestamptz`);
	if (filter.to !== undefined) where.push(sql`${r.bucket} < ${filter.to}::timestamptz`);
	if (filter.sessionIds) where.push(sql`${sessions.id} in ${list(filter.sessionIds)}`);
	if (filter.providers) where.push(sql`${r.provider} in ${list(filter.providers)}`);
	if (filter.models) where.push(sql`${r.model} in ${list(filter.models)}`);
	if (filter.cwdPrefix !== undefined)
		where.push(sql`starts_with(coalesce(${sessions.cwd}, ''), ${filter.cwdPrefix})`);
	const order = [
		...query.orderBy.map(({ by, descending }) => ({ by, descending })),
		...query.dimensions.map((by) => ({ by, descending: false })),
	].map(({ by, descending }) => {
		const isDimension = (DIMENSIONS as readonly string[]).includes(by);
		const name = sql.identifier(isDimension ? `d_${by}` : `m_${by}`);
		return sql`${name}${isDimension ? sql` collate "C"` : sql``}${descending ? sql` desc` : sql``}`;
	});
	// Ordered outside the grouping: ORDER BY may name an output column only bare, not under COLLATE.
	const statement = sql`select * from (
			select ${sql.join(outer, sql`, `)} from (
				select ${innerColumns.length > 0 ? sql.join(innerColumns, sql`, `) : sql`1`}
				from ${perSession ? sql`${r} join ${sessions} on ${sessions.key} = ${r.sessionKey}` : foldedRollups(ws)}
				where ${sql.join(where, sql` and `)}
				${groupBy(inner.length)}
			) as partial
			${groupBy(dimensions.length)}
		) as grouped
		${order.length > 0 ? sql`order by ${sql.join(order, sql`, `)}` : sql``}
		limit ${query.limit + 1}`;
	const rows = await executeRows<Record<string, unknown>>(db, statement);
	return {
		rows: rows.slice(0, query.limit).map((row) => {
			const out = emptyMetricsRow();
			for (const d of dimensions)
				(out as unknown as Record<string, unknown>)[DIMENSION_FIELD[d]] = row[`d_${d}`] ?? null;
			for (const m of query.measures) {
				const value = row[`m_${m}`];
				out.values[m] = value === null || value === undefined ? null : Number(value);
			}
			return out;
		}),
		truncated: rows.length > query.limit,
	};
}
