/**
 * Metrics: the measures of a workspace's entries grouped by dimensions, over
 * rollup rows (./rollup.ts). This module holds the query's rules (what each
 * measure adds up, how time is bucketed in a zone, how rows are ordered and
 * cut) and answers a query over rollup rows in memory; a backend may answer
 * it in SQL instead, and the store conformance suite holds both to a
 * recomputation from the append log.
 *
 * One file: the metrics query's rules (checking a query, time buckets in a
 * zone, what each measure is made of, ordering and cutting rows, the
 * in-memory answer) are one specification that the Postgres SQL
 * (store/postgres/analytics/metrics.ts) must match measure by measure; the rollup rows
 * it reads are ./rollup.ts, the per-turn values ./turns.ts.
 *
 * Semantics, in one place:
 * - every measure counts entries of the append logs: a fork's copied path and
 *   an import count as entries of their sessions, as pi counts them in their
 *   files;
 * - `from` (inclusive) and `to` (exclusive) must fall on quarter hours, so a
 *   range never splits a bucket and every figure is exact;
 * - a provider or model filter keeps the assistant messages of those
 *   providers or models (no other entry has one, nor has a session);
 * - a dimension that does not apply to an entry (the role of a leaf move, the
 *   model of a user message, the author of an unauthenticated write) is null;
 * - the tool name of a tool result is its tool's; tool calls count under the
 *   tool they call; everything else of an assistant message (the message,
 *   its tokens, cost and duration) has no tool name (./rollup.ts);
 * - `sessionsCreated` and `forks` count sessions, not entries: those created
 *   in the range (a file's header timestamp for an import), by the time
 *   bucket of their creation; a fork is a session with a parent session. A
 *   session has a time and an id, and no entry type, role, provider, model,
 *   tool name or author. Creations form groups only in a query that asks for
 *   one of these two measures, so other queries' rows never change with them;
 * - per-assistant-turn statistics (avg, min, max, p50, p95 of total tokens,
 *   cost and duration, ./turns.ts) are over the group's assistant turns that
 *   have the value: every turn has tokens and a cost, not every turn a
 *   duration; null over none. Averages and extremes come from rollups;
 *   percentiles from one turn row per assistant turn;
 * - rows are ordered by `orderBy`, then by every dimension ascending, so the
 *   order is total; text compares by code point, nulls last ascending.
 */
import { SessionError } from "../errors.js";
import { type Measures, SUM_MEASURES, SUMS, type SumMeasure } from "./measures.js";
import {
	BUCKET_MS,
	bucketOf,
	EXTREMES,
	extremesOfRollups,
	measuresOfRollups,
	type RollupExtremes,
	type RollupRow,
	type TurnRow,
} from "./rollup.js";
import { PERCENTILES, percentileDisc, type TurnStatistic, type TurnValue } from "./turns.js";

/**
 * Per-assistant-turn measures: each a statistic of one turn value. Averages
 * are sums divided (./measures.ts), the rest order statistics (./turns.ts).
 */
export const TURN_MEASURES = {
	avgTotalTokensPerAssistantTurn: { value: "totalTokens", statistic: "avg" },
	minTotalTokensPerAssistantTurn: { value: "totalTokens", statistic: "min" },
	maxTotalTokensPerAssistantTurn: { value: "totalTokens", statistic: "max" },
	p50TotalTokensPerAssistantTurn: { value: "totalTokens", statistic: "p50" },
	p95TotalTokensPerAssistantTurn: { value: "totalTokens", statistic: "p95" },
	avgCostPerAssistantTurn: { value: "cost", statistic: "avg" },
	minCostPerAssistantTurn: { value: "cost", statistic: "min" },
	maxCostPerAssistantTurn: { value: "cost", statistic: "max" },
	p50CostPerAssistantTurn: { value: "cost", statistic: "p50" },
	p95CostPerAssistantTurn: { value: "cost", statistic: "p95" },
	avgAssistantTurnDurationMs: { value: "durationMs", statistic: "avg" },
	minAssistantTurnDurationMs: { value: "durationMs", statistic: "min" },
	maxAssistantTurnDurationMs: { value: "durationMs", statistic: "max" },
	p50AssistantTurnDurationMs: { value: "durationMs", statistic: "p50" },
	p95AssistantTurnDurationMs: { value: "durationMs", statistic: "p95" },
} as const satisfies Record<string, { value: TurnValue; statistic: "avg" | TurnStatistic }>;
export type TurnMeasure = keyof typeof TURN_MEASURES;

const TURN_MEASURE_NAMES = Object.keys(TURN_MEASURES) as TurnMeasure[];

const TURN_VALUE_TEXT = {
	totalTokens: "normalised totalTokens of an assistant turn",
	cost: "usage.cost.total of an assistant turn",
	durationMs:
		"duration in ms of an assistant turn (entry timestamp − message.timestamp; see timedAssistantTurns)",
} as const satisfies Record<TurnValue, string>;

const STATISTIC_TEXT = {
	avg: "Average",
	min: "Smallest",
	max: "Largest",
	p50: "Median (percentile_disc 0.5: the smallest value with at least half of the turns' at or below it)",
	p95: "95th percentile (percentile_disc 0.95: the smallest value with at least 95% of the turns' at or below it)",
} as const;

/** Measures only a group of entries has: counts of sessions (see the header). */
export const GROUP_MEASURES = {
	activeSessions: {
		unit: "count",
		description: "Sessions with at least one counted entry (or tool call, grouped by TOOL_NAME).",
	},
	sessionsCreated: {
		unit: "count",
		description:
			"Sessions created in the range (an import: its header's timestamp), in the TIME bucket of their creation. A session has no entry type, role, provider, model, tool name or author, and none of the providers or models a filter keeps.",
	},
	forks: { unit: "count", description: "Of sessionsCreated, those with a parent session." },
} as const satisfies Record<string, { unit: "count"; description: string }>;
export type GroupMeasure = keyof typeof GROUP_MEASURES;

/** Every measure the metrics API knows: the entries' sums (./measures.ts), then the groups', then the turns'. */
export const MEASURES: readonly Measure[] = [
	...SUMS,
	...(Object.keys(GROUP_MEASURES) as GroupMeasure[]),
	...TURN_MEASURE_NAMES,
];
export type Measure = SumMeasure | GroupMeasure | TurnMeasure;

/**
 * A measure's unit and what the API says of it, from the tables above and
 * ./measures.ts: a count is a whole number (GraphQL Int), a sum or a
 * statistic a Float, which a statistic over no turns leaves null.
 */
export function measureSpec(measure: Measure): { unit: "count" | "sum" | "statistic"; description?: string } {
	if (isTurnMeasure(measure)) {
		const { value, statistic } = TURN_MEASURES[measure];
		return {
			unit: "statistic",
			description: `${STATISTIC_TEXT[statistic]} ${TURN_VALUE_TEXT[value]}; null without such turns.`,
		};
	}
	if (Object.hasOwn(GROUP_MEASURES, measure)) return GROUP_MEASURES[measure as GroupMeasure];
	return SUM_MEASURES[measure as SumMeasure];
}

export const isTurnMeasure = (measure: string): measure is TurnMeasure =>
	Object.hasOwn(TURN_MEASURES, measure);

/** Turn measures that need every turn's value (no rollup holds a percentile). */
export const isPercentile = (measure: Measure): measure is TurnMeasure =>
	isTurnMeasure(measure) && TURN_MEASURES[measure].statistic in PERCENTILES;

export const DIMENSIONS = [
	"time",
	"session",
	"entryType",
	"role",
	"provider",
	"model",
	"toolName",
	"author",
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export const GRANULARITIES = ["hour", "day", "week", "month"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export interface MetricsFilter {
	/** Inclusive, on a quarter hour. */
	from?: string;
	/** Exclusive, on a quarter hour. */
	to?: string;
	sessionIds?: readonly string[];
	providers?: readonly string[];
	models?: readonly string[];
	/** Sessions whose cwd starts with this text. */
	cwdPrefix?: string;
}

export interface MetricsOrder {
	by: Measure | Dimension;
	descending: boolean;
}

export interface MetricsQuery {
	measures: readonly Measure[];
	dimensions: readonly Dimension[];
	granularity: Granularity;
	/** An IANA time zone; days, weeks (from Monday) and months start at its midnight. */
	timeZone: string;
	filter: MetricsFilter;
	orderBy: readonly MetricsOrder[];
	limit: number;
}

/** One group: its dimension values (null where not grouped or not applicable) and its measures. */
export interface MetricsRow {
	time: string | null;
	sessionId: string | null;
	/** As written (a type the service does not know included). */
	entryType: string | null;
	role: string | null;
	provider: string | null;
	model: string | null;
	toolName: string | null;
	author: string | null;
	/** The asked measures; a statistic over no assistant turn is null. */
	values: Partial<Record<Measure, number | null>>;
}

export interface MetricsResult {
	rows: MetricsRow[];
	/** More groups matched than `limit`. */
	truncated: boolean;
}

export const DEFAULT_METRICS_LIMIT = 1000;
export const MAX_METRICS_LIMIT = 10_000;

const invalid = (message: string, field: string) => new SessionError("INVALID_INPUT", message, { field });

/** Whether the runtime (and so the query) knows the zone. */
function knownZone(zone: string): boolean {
	try {
		new Intl.DateTimeFormat("en-US", { timeZone: zone });
		return true;
	} catch {
		return false;
	}
}

function onQuarterHour(value: string, field: string): string {
	const ms = Date.parse(value);
	if (!Number.isFinite(ms)) throw invalid(`${field} is not a date-time`, field);
	if (ms % BUCKET_MS !== 0)
		throw invalid(`${field} must fall on a quarter hour (metrics are kept per 15 minutes)`, field);
	return new Date(ms).toISOString();
}

/** The query with its defaults, checked; INVALID_INPUT names the field at fault. */
export function checkMetricsQuery(query: MetricsQuery): MetricsQuery {
	if (query.measures.length === 0) throw invalid("ask for at least one measure", "measures");
	if (new Set(query.dimensions).size !== query.dimensions.length)
		throw invalid("a dimension is named twice", "dimensions");
	if (!knownZone(query.timeZone))
		throw invalid(`unknown time zone ${JSON.stringify(query.timeZone)}`, "timeZone");
	if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_METRICS_LIMIT)
		throw invalid(`limit must be 1 to ${MAX_METRICS_LIMIT}`, "limit");
	for (const { by } of query.orderBy) {
		const known = (MEASURES as readonly string[]).includes(by)
			? query.measures.includes(by as Measure)
			: query.dimensions.includes(by as Dimension);
		if (!known) throw invalid(`orderBy ${by} is neither an asked measure nor a grouped dimension`, "orderBy");
	}
	const filter: MetricsFilter = { ...query.filter };
	if (filter.from !== undefined) filter.from = onQuarterHour(filter.from, "filter.from");
	if (filter.to !== undefined) filter.to = onQuarterHour(filter.to, "filter.to");
	return { ...query, filter };
}

// ---- Time buckets in a zone -------------------------------------------------

const formats = new Map<string, Intl.DateTimeFormat>();

function wallClock(ms: number, zone: string): number[] {
	let format = formats.get(zone);
	if (!format) {
		format = new Intl.DateTimeFormat("en-US", {
			timeZone: zone,
			hourCycle: "h23",
			year: "numeric",
			month: "numeric",
			day: "numeric",
			hour: "numeric",
			minute: "numeric",
		});
		formats.set(zone, format);
	}
	const parts: Record<string, number> = {};
	for (const part of format.formatToParts(ms))
		if (part.type !== "literal") parts[part.type] = Number(part.value);
	return [parts.year, parts.month, parts.day, parts.hour, parts.minute] as number[];
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(ms: number, zone: string): number {
	const [y, mo, d, h, mi] = wallClock(ms, zone) as [number, number, number, number, number];
	return Date.UTC(y, mo - 1, d, h, mi) - Math.floor(ms / 60_000) * 60_000;
}

/**
 * The instant a wall-clock time of the zone names. A time the zone skips (a
 * spring-forward gap) or repeats (a fall-back hour) reads with the offset in
 * force just before the change, as PostgreSQL does.
 */
function instantOf(wall: number, zone: string): number {
	const before = offsetAt(wall - 86_400_000, zone);
	const after = offsetAt(wall + 86_400_000, zone);
	for (const offset of before === after ? [before] : [before, after]) {
		const ms = wall - offset;
		if (offsetAt(ms, zone) === offset) return ms;
	}
	return wall - before;
}

/** The start of the hour, day, week (Monday) or month of the zone that an instant falls in. */
export function timeBucket(instant: string, granularity: Granularity, zone: string): string {
	const ms = Date.parse(instant);
	if (granularity === "hour") {
		// An hour of any zone in use is an hour of UTC shifted by a whole number of quarter hours.
		const offset = offsetAt(ms, zone);
		return new Date(Math.floor((ms + offset) / 3_600_000) * 3_600_000 - offset).toISOString();
	}
	const [y, mo, d] = wallClock(ms, zone) as [number, number, number];
	let wall: number;
	if (granularity === "month") wall = Date.UTC(y, mo - 1, 1);
	else {
		wall = Date.UTC(y, mo - 1, d);
		if (granularity === "week") wall -= ((new Date(wall).getUTCDay() + 6) % 7) * 86_400_000;
	}
	return new Date(instantOf(wall, zone)).toISOString();
}

// ---- Answering over rollup rows ---------------------------------------------

/** The rollup and turn rows of one session, with what the filters and creations read of the session. */
export interface SessionRollups {
	sessionId: string;
	cwd: string | null;
	createdAt: string;
	parentSessionId: string | null;
	rows: readonly RollupRow[];
	turns: readonly TurnRow[];
}

/** What a group's measures are made of. */
export interface GroupFigures {
	/** The sums of the group's entries. */
	measures: Measures;
	/** Min and max of its assistant turns' values. */
	extremes: RollupExtremes;
	/** Its assistant turns' values, sorted ascending; only read for a percentile. */
	sorted: Record<TurnValue, readonly number[]>;
	/** Sessions with a rollup row in the group; sessions created in it, and those of them with a parent. */
	activeSessions: number;
	sessionsCreated: number;
	forks: number;
}

interface Group {
	row: MetricsRow;
	/** The group's rollup rows: its measures are theirs (./rollup.ts measuresOfRollups). */
	rows: RollupRow[];
	turns: TurnRow[];
	sessions: Set<string>;
	created: number;
	forks: number;
}

const orNull = (value: string) => (value === "" ? null : value);

function included(filter: MetricsFilter, row: Pick<RollupRow, "bucket" | "provider" | "model">): boolean {
	if (filter.from !== undefined && row.bucket < filter.from) return false;
	if (filter.to !== undefined && row.bucket >= filter.to) return false;
	if (filter.providers && !filter.providers.includes(row.provider)) return false;
	if (filter.models && !filter.models.includes(row.model)) return false;
	return true;
}

function sessionIncluded(filter: MetricsFilter, session: SessionRollups): boolean {
	if (filter.sessionIds && !filter.sessionIds.includes(session.sessionId)) return false;
	if (filter.cwdPrefix !== undefined && !(session.cwd ?? "").startsWith(filter.cwdPrefix)) return false;
	return true;
}

/** An average per assistant turn: a sum over the number of turns that have the value; null over none. */
function average(value: TurnValue, m: Measures): number | null {
	const [sum, turns] =
		value === "durationMs"
			? [m.assistantTurnDurationMs, m.timedAssistantTurns]
			: [value === "cost" ? m.assistantTurnCost : m.assistantTurnTokens, m.assistantTurns];
	return turns === 0 ? null : sum / turns;
}

/**
 * A per-assistant-turn measure: an average from the sums, any other
 * statistic from `statisticOf` (a group's extremes and percentiles, or a
 * session's spreads).
 */
export function turnMeasureOf(
	measure: TurnMeasure,
	measures: Measures,
	statisticOf: (value: TurnValue, statistic: TurnStatistic) => number | null,
): number | null {
	const { value, statistic } = TURN_MEASURES[measure];
	return statistic === "avg" ? average(value, measures) : statisticOf(value, statistic);
}

/** A measure of a group. */
export function measureOf(measure: Measure, figures: GroupFigures): number | null {
	switch (measure) {
		case "activeSessions":
		case "sessionsCreated":
		case "forks":
			return figures[measure];
		default:
			return isTurnMeasure(measure)
				? turnMeasureOf(measure, figures.measures, (value, statistic) =>
						statistic === "min" || statistic === "max"
							? figures.extremes[EXTREMES[value][statistic]]
							: percentileDisc(figures.sorted[value], PERCENTILES[statistic]),
					)
				: figures.measures[measure];
	}
}

/**
 * Code point order, as PostgreSQL's "C" collation orders UTF-8 text (`<` on
 * JS strings compares UTF-16 units, which puts U+E000–U+FFFF after the
 * characters above U+FFFF).
 */
export function compareCodePoints(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	for (let i = 0; i < n; i++) {
		const x = a.codePointAt(i) as number;
		const y = b.codePointAt(i) as number;
		if (x !== y) return x < y ? -1 : 1;
		if (x > 0xffff) i++;
	}
	return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const compareText = (a: string | null, b: string | null, descending: boolean): number => {
	if (a === b) return 0;
	// Nulls last ascending, first descending (PostgreSQL's default).
	if (a === null) return descending ? -1 : 1;
	if (b === null) return descending ? 1 : -1;
	const order = compareCodePoints(a, b);
	return descending ? -order : order;
};

/** The field of a result row that holds each dimension. */
export const DIMENSION_FIELD: Record<Dimension, keyof Omit<MetricsRow, "values">> = {
	time: "time",
	session: "sessionId",
	entryType: "entryType",
	role: "role",
	provider: "provider",
	model: "model",
	toolName: "toolName",
	author: "author",
};

/** Orders rows as the query says, then by every dimension ascending. */
export function compareRows(query: MetricsQuery): (a: MetricsRow, b: MetricsRow) => number {
	const keys: MetricsOrder[] = [
		...query.orderBy,
		...query.dimensions.map((by) => ({ by, descending: false })),
	];
	return (a, b) => {
		for (const { by, descending } of keys) {
			let order: number;
			if ((DIMENSIONS as readonly string[]).includes(by)) {
				const field = DIMENSION_FIELD[by as Dimension];
				order = compareText(a[field], b[field], descending);
			} else {
				const x = a.values[by as Measure] ?? null;
				const y = b.values[by as Measure] ?? null;
				order =
					x === y
						? 0
						: x === null
							? descending
								? -1
								: 1
							: y === null
								? descending
									? 1
									: -1
								: x < y
									? -1
									: 1;
				if (descending && x !== null && y !== null) order = -order;
			}
			if (order !== 0) return order;
		}
		return 0;
	};
}

/** A row with every dimension null and no measure yet. */
export const emptyMetricsRow = (): MetricsRow => ({
	time: null,
	sessionId: null,
	entryType: null,
	role: null,
	provider: null,
	model: null,
	toolName: null,
	author: null,
	values: {},
});

function emptyGroup(row: MetricsRow): Group {
	return { row, rows: [], turns: [], sessions: new Set(), created: 0, forks: 0 };
}

/** The values of one turn value among some turns, sorted ascending (a turn without it left out). */
function sortedValues(turns: readonly TurnRow[], value: TurnValue): number[] {
	const values: number[] = [];
	for (const turn of turns) {
		const v = turn[value];
		if (v !== null) values.push(v);
	}
	return values.sort((a, b) => a - b);
}

/** Whether the query counts session creations (see the semantics above). */
export const countsCreations = (query: Pick<MetricsQuery, "measures">): boolean =>
	query.measures.includes("sessionsCreated") || query.measures.includes("forks");

/** The key values of a rollup row, a turn row or a creation; a field absent is "" (not applicable). */
type Keyed = Partial<
	Pick<RollupRow, "bucket" | "entryType" | "role" | "provider" | "model" | "toolName" | "author">
>;

/** A checked query (checkMetricsQuery) answered over every session's rollup and turn rows. */
export function metricsOfRollups(query: MetricsQuery, sessions: Iterable<SessionRollups>): MetricsResult {
	const { filter } = query;
	const grouped = new Set(query.dimensions);
	const groups = new Map<string, Group>();
	const groupOf = (sessionId: string, k: Keyed): Group => {
		const row: MetricsRow = {
			...emptyMetricsRow(),
			...(grouped.has("time")
				? { time: timeBucket(k.bucket as string, query.granularity, query.timeZone) }
				: {}),
			...(grouped.has("session") ? { sessionId } : {}),
			...(grouped.has("entryType") ? { entryType: k.entryType ?? null } : {}),
			...(grouped.has("role") ? { role: orNull(k.role ?? "") } : {}),
			...(grouped.has("provider") ? { provider: orNull(k.provider ?? "") } : {}),
			...(grouped.has("model") ? { model: orNull(k.model ?? "") } : {}),
			...(grouped.has("toolName") ? { toolName: orNull(k.toolName ?? "") } : {}),
			...(grouped.has("author") ? { author: orNull(k.author ?? "") } : {}),
		};
		const key = JSON.stringify(DIMENSIONS.map((d) => row[DIMENSION_FIELD[d]]));
		let group = groups.get(key);
		if (!group) {
			group = emptyGroup(row);
			groups.set(key, group);
		}
		return group;
	};
	const creations = countsCreations(query) && !filter.providers && !filter.models;
	const percentiles = query.measures.some(isPercentile);
	for (const session of sessions) {
		if (!sessionIncluded(filter, session)) continue;
		const { sessionId } = session;
		const created = { bucket: bucketOf(session.createdAt), provider: "", model: "" };
		if (creations && included(filter, created)) {
			const group = groupOf(sessionId, created);
			group.created += 1;
			if (session.parentSessionId !== null) group.forks += 1;
		}
		for (const r of session.rows) {
			if (!included(filter, r)) continue;
			const group = groupOf(sessionId, r);
			group.rows.push(r);
			group.sessions.add(sessionId);
		}
		if (!percentiles) continue;
		for (const t of session.turns) {
			if (!included(filter, t)) continue;
			groupOf(sessionId, { ...t, entryType: "message", role: "assistant" }).turns.push(t);
		}
	}
	// Without dimensions the answer is one row, the totals, even over nothing.
	if (groups.size === 0 && query.dimensions.length === 0) groups.set("", emptyGroup(emptyMetricsRow()));
	const rows = [...groups.values()].map((g) => {
		const figures: GroupFigures = {
			measures: measuresOfRollups(g.rows),
			extremes: extremesOfRollups(g.rows),
			sorted: {
				totalTokens: sortedValues(g.turns, "totalTokens"),
				cost: sortedValues(g.turns, "cost"),
				durationMs: sortedValues(g.turns, "durationMs"),
			},
			activeSessions: g.sessions.size,
			sessionsCreated: g.created,
			forks: g.forks,
		};
		for (const measure of query.measures) g.row.values[measure] = measureOf(measure, figures);
		return g.row;
	});
	rows.sort(compareRows(query));
	return { rows: rows.slice(0, query.limit), truncated: rows.length > query.limit };
}
