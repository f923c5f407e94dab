/**
 * One file: the SQL of one query, the metrics GROUP BY, built from parts
 * (keys, measures, filters, creations, percentiles) that only make sense
 * together.
 *
 * Metrics on Postgres: one GROUP BY over rollup rows, never over entries: the
 * workspace's folded rows (./fold.ts) when the query needs no session's own
 * rows, else its sessions' rows (../schema.ts usageRollups). Session
 * creations (sessionsCreated, forks) come from the sessions table, as rows
 * of their own in the same grouping, only when asked. Percentiles come from
 * the turn rows (../schema.ts assistantTurns), grouped alike and joined to the
 * groups, only when asked. The rules are session/analytics/metrics.ts's; this is their
 * SQL: each measure below is what the session layer's `measureOf` gives for
 * the same rows, and the order is its `compareRows` (text by code point:
 * COLLATE "C"; nulls last ascending, first descending, PostgreSQL's default).
 */
import { getTableName, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { SumMeasure } from "../../../session/analytics/measures.js";
import {
	countsCreations,
	DIMENSION_FIELD,
	DIMENSIONS,
	type Dimension,
	emptyMetricsRow,
	isPercentile,
	isTurnMeasure,
	type Measure,
	type MetricsQuery,
	type MetricsResult,
	TURN_MEASURES,
	type TurnMeasure,
} from "../../../session/analytics/metrics.js";
import {
	EXTREMES,
	ROLLUP_FIGURES,
	ROLLUP_MAXIMA,
	ROLLUP_MINIMA,
	type RollupExtremes,
} from "../../../session/analytics/rollup.js";
import { PERCENTILES } from "../../../session/analytics/turns.js";
import type { EntryType } from "../../../session/entry.js";
import type { Db } from "../db.js";
import { list } from "../queries.js";
import { isoText } from "../rows.js";
import { usageRollups as r, sessions, assistantTurns as t, workspaceRollups } from "../schema.js";
import { executeRows } from "../statements.js";
import {
	countsNothing,
	dirtyKeys,
	EXTREME_COLUMNS,
	keyColumns,
	ref,
	sameKey,
	workspaceSessions,
} from "./fold.js";

const sum = (column: SQL | PgColumn, where?: SQL) =>
	sql`coalesce(sum(${column})${where ? sql` filter (where ${where})` : sql``}, 0)`;

const ofType = (type: EntryType) => sql`${r.entryType} = ${sql.raw(`'${type}'`)}`;
const message = (role: string) => sql`${ofType("message")} and ${r.role} = ${sql.raw(`'${role}'`)}`;
const assistantTurns = sum(r.entries, message("assistant"));

/** The measures that are sums of rollup figures (session/analytics/measures.ts SUM_MEASURES). */
type Sum = SumMeasure;

/** Each sum as an aggregate over the grouped rollup rows. */
const SUM_SQL: Record<Sum, SQL> = {
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
	assistantTurnTokens: sum(r.totalTokens, message("assistant")),
	assistantTurnCost: sum(r.cost, message("assistant")),
	timedAssistantTurns: sum(r.timedAssistantTurns),
	assistantTurnDurationMs: sum(r.assistantTurnDurationMs),
	leafMoves: sum(r.entries, ofType("leaf")),
	branchSummaries: sum(r.entries, ofType("branch_summary")),
	compactions: sum(r.entries, ofType("compaction")),
	labels: sum(r.entries, ofType("label")),
};

type Extreme = keyof RollupExtremes;

/**
 * A partial aggregate of the inner level, combined in the outer one: a sum
 * of rollup figures, an extreme of the rows' extremes, or a count of
 * sessions created (which rollup rows never have).
 */
type Part = Sum | Extreme | "sessionsCreated" | "forks";

const PART_SQL: Record<Part, SQL> = {
	...SUM_SQL,
	...(Object.fromEntries([
		...ROLLUP_MINIMA.map((f) => [f, sql`min(${r[f]})`]),
		...ROLLUP_MAXIMA.map((f) => [f, sql`max(${r[f]})`]),
	]) as Record<Extreme, SQL>),
	// Rollup rows count no creation: the creations' own rows do (`creations` below).
	sessionsCreated: sql`null::bigint`,
	forks: sql`null::bigint`,
};

/** How the outer level combines a part's values (nulls skipped). */
const combine = (p: Part): SQL =>
	(ROLLUP_MINIMA as readonly string[]).includes(p)
		? sql`min(${part(p)})`
		: (ROLLUP_MAXIMA as readonly string[]).includes(p)
			? sql`max(${part(p)})`
			: sql`coalesce(sum(${part(p)}), 0)`;

/**
 * The query is answered in two levels: the inner one groups the rollup rows
 * (and the creations) by their plain columns (the bucket, not its day) and
 * adds up each measure's parts; the outer one groups the few resulting rows
 * by the query's keys (a bucket's day in the zone; other values as they are,
 * "" where not applicable) and combines the parts. Computing a zone's day
 * once per rollup row was most of a month's query; once per inner row it is
 * a fraction. Distinct sessions are counted in the outer level, so the inner
 * one keeps the session's key when asked. Percentiles are grouped by the
 * same keys from the turn rows and joined on them; "" turns into null only
 * after that join (so keys compare with `=`).
 */
const INNER: Record<Dimension, SQL> = {
	time: sql`${r.bucket}`,
	session: sql`${sessions.id}`,
	entryType: sql`${r.entryType}`,
	role: sql`${r.role}`,
	provider: sql`${r.provider}`,
	model: sql`${r.model}`,
	toolName: sql`${r.toolName}`,
	author: sql`${r.author}`,
};

/** A session creation's inner dimensions: its time and id; "" (not applicable) for the others. */
const CREATED: Record<Dimension, SQL> = {
	time: sql`${sessions.createdAt}`,
	session: sql`${sessions.id}`,
	entryType: sql`''`,
	role: sql`''`,
	provider: sql`''`,
	model: sql`''`,
	toolName: sql`''`,
	author: sql`''`,
};

/** A turn row's dimensions as the outer level's keys (below): an assistant message's, without a tool name. */
const TURN: Record<Exclude<Dimension, "time">, SQL> = {
	session: sql`${sessions.id}`,
	entryType: sql`'message'::text`,
	role: sql`'assistant'::text`,
	provider: sql`${t.provider}`,
	model: sql`${t.model}`,
	toolName: sql`''::text`,
	author: sql`${t.author}`,
};

const zoned = (bucket: SQL, query: MetricsQuery) =>
	sql`date_trunc(${query.granularity}, ${bucket}, ${query.timeZone})`;

/**
 * A group's key for a dimension, from the inner level's column: the bucket's
 * day (or hour, week, month) in the zone, else the value as it is ("" where
 * not applicable), so that keys compare with `=` and the turn rows' groups
 * join the rollups' ones.
 */
function outerKey(dimension: Dimension, query: MetricsQuery): SQL {
	const column = sql.identifier(`i_${dimension}`);
	return dimension === "time" ? zoned(sql`${column}`, query) : sql`${column}`;
}

/** A dimension's value in a result row, from its key: "" (not applicable) reads as null. */
function shownDimension(dimension: Dimension): SQL {
	const key = sql.identifier(`k_${dimension}`);
	switch (dimension) {
		case "time":
			return isoText(sql`${key}`);
		case "session":
			return sql`${key}`;
		default:
			return sql`nullif(${key}, '')`;
	}
}

/** The parts a measure is made of: none for distinct sessions (the keys) and percentiles (the turn rows). */
function partsOf(measure: Measure): Part[] {
	if (measure === "activeSessions") return [];
	if (!isTurnMeasure(measure)) return [measure];
	const { value, statistic } = TURN_MEASURES[measure];
	switch (statistic) {
		case "avg":
			return value === "durationMs"
				? ["assistantTurnDurationMs", "timedAssistantTurns"]
				: [value === "cost" ? "assistantTurnCost" : "assistantTurnTokens", "assistantTurns"];
		case "min":
		case "max":
			return [EXTREMES[value][statistic]];
		default:
			return [];
	}
}

const part = (p: Part) => sql.identifier(`p_${p}`);

/** A measure from the inner level's parts (a percentile: from the turn rows, see rollupMetrics). */
function outerMeasure(measure: Measure): SQL {
	if (measure === "activeSessions") return sql`count(distinct i_session_key)`;
	if (!isTurnMeasure(measure)) return combine(measure);
	const [first, second] = partsOf(measure) as [Part, Part | undefined];
	return second === undefined ? combine(first) : sql`sum(${part(first)}) / nullif(sum(${part(second)}), 0)`;
}

/** The figure and extreme columns, as both rollup tables name them. */
const FIGURES = [...ROLLUP_FIGURES.map((f) => r[f]), ...EXTREME_COLUMNS.map((e) => e.column)];

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

/** The sessions' filters (ids, cwd), on `sessions`. */
function sessionFilters(query: MetricsQuery): SQL[] {
	const { filter } = query;
	const where: SQL[] = [];
	if (filter.sessionIds) where.push(sql`${sessions.id} in ${list(filter.sessionIds)}`);
	if (filter.cwdPrefix !== undefined)
		where.push(sql`starts_with(coalesce(${sessions.cwd}, ''), ${filter.cwdPrefix})`);
	return where;
}

/** The range and the providers' and models' filters, on a table with those columns. */
function rowFilters(
	query: MetricsQuery,
	columns: { bucket: PgColumn; provider: PgColumn; model: PgColumn },
): SQL[] {
	const { filter } = query;
	const where: SQL[] = [];
	if (filter.from !== undefined) where.push(sql`${columns.bucket} >= ${filter.from}::timestamptz`);
	if (filter.to !== undefined) where.push(sql`${columns.bucket} < ${filter.to}::timestamptz`);
	if (filter.providers) where.push(sql`${columns.provider} in ${list(filter.providers)}`);
	if (filter.models) where.push(sql`${columns.model} in ${list(filter.models)}`);
	return where;
}

const groupBy = (n: number) =>
	n > 0
		? sql`group by ${sql.join(
				Array.from({ length: n }, (_, i) => sql.raw(String(i + 1))),
				sql`, `,
			)}`
		: sql``;

/**
 * The sessions created in range, as inner rows beside the rollups' (same
 * columns: their dimensions, no session key for activeSessions, parts null
 * but the creation counts). None under a provider or model filter: a session
 * has neither.
 */
function creations(
	ws: string,
	query: MetricsQuery,
	dimensions: Dimension[],
	keepSessions: boolean,
	parts: Part[],
): SQL {
	const { filter } = query;
	const where: SQL[] = [sql`${sessions.workspaceId} = ${ws}`, ...sessionFilters(query)];
	if (filter.from !== undefined) where.push(sql`${sessions.createdAt} >= ${filter.from}::timestamptz`);
	if (filter.to !== undefined) where.push(sql`${sessions.createdAt} < ${filter.to}::timestamptz`);
	const columns = [
		...dimensions.map((d) => CREATED[d]),
		...(keepSessions ? [sql`null::integer`] : []),
		...parts.map((p) =>
			p === "sessionsCreated"
				? sql`count(*)`
				: p === "forks"
					? sql`count(*) filter (where ${sessions.parentSessionId} is not null)`
					: sql`null`,
		),
	];
	return sql`select ${sql.join(columns, sql`, `)} from ${sessions}
		where ${sql.join(where, sql` and `)} ${groupBy(dimensions.length)}`;
}

/**
 * The asked percentiles of the turn rows per group, under the groups' keys
 * (outerKey) and the measures' names.
 */
function percentiles(ws: string, query: MetricsQuery, dimensions: Dimension[], asked: TurnMeasure[]): SQL {
	const keys = dimensions.map(
		(d) => sql`${d === "time" ? zoned(sql`${t.bucket}`, query) : TURN[d]} as ${sql.identifier(`k_${d}`)}`,
	);
	const values = asked.map((m) => {
		const { value, statistic } = TURN_MEASURES[m];
		const fraction = PERCENTILES[statistic as keyof typeof PERCENTILES];
		return sql`percentile_disc(${fraction}::float8) within group (order by ${t[value]}) as ${sql.identifier(`m_${m}`)}`;
	});
	const where = [sql`${sessions.workspaceId} = ${ws}`, ...sessionFilters(query), ...rowFilters(query, t)];
	return sql`select ${sql.join([...keys, ...values], sql`, `)}
		from ${t} join ${sessions} on ${sessions.key} = ${t.sessionKey}
		where ${sql.join(where, sql` and `)} ${groupBy(keys.length)}`;
}

/** A checked query (session/analytics/metrics.ts checkMetricsQuery) over the workspace's rollups. */
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
	const innerColumns = [...inner, ...parts.map((p) => sql`${PART_SQL[p]} as ${part(p)}`)];
	const keys = dimensions.map((d) => sql`${outerKey(d, query)} as ${sql.identifier(`k_${d}`)}`);
	const asked = query.measures.filter((m) => !isPercentile(m));
	const grouped = [
		...keys,
		...asked.map((m) => sql`${outerMeasure(m)}::float8 as ${sql.identifier(`m_${m}`)}`),
	];
	const where: SQL[] = perSession
		? [sql`${sessions.workspaceId} = ${ws}`, sql`not ${countsNothing(getTableName(r))}`]
		: [sql`true`];
	where.push(...rowFilters(query, r), ...sessionFilters(query));
	const rollups = sql`select ${innerColumns.length > 0 ? sql.join(innerColumns, sql`, `) : sql`1`}
		from ${perSession ? sql`${r} join ${sessions} on ${sessions.key} = ${r.sessionKey}` : foldedRollups(ws)}
		where ${sql.join(where, sql` and `)}
		${groupBy(inner.length)}`;
	const created = countsCreations(query) && !filter.providers && !filter.models;
	const partial = created
		? sql`${rollups} union all ${creations(ws, query, dimensions, keepSessions, parts)}`
		: rollups;
	const fromPercentiles = query.measures.filter(isPercentile);
	const joined =
		fromPercentiles.length === 0
			? sql``
			: sql`left join (${percentiles(ws, query, dimensions, fromPercentiles)}) as turns ${
					dimensions.length > 0
						? sql`using (${sql.join(
								dimensions.map((d) => sql.identifier(`k_${d}`)),
								sql`, `,
							)})`
						: sql`on true`
				}`;
	const shown = [
		...dimensions.map((d) => sql`${shownDimension(d)} as ${sql.identifier(`d_${d}`)}`),
		...query.measures.map((m) => sql.identifier(`m_${m}`)),
	];
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
			select ${sql.join(shown, sql`, `)} from (
				select ${grouped.length > 0 ? sql.join(grouped, sql`, `) : sql`count(*)`} from (${partial}) as partial
				${groupBy(keys.length)}
			) as grouped ${joined}
		) as shown
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
