/**
 * Metrics: the measures of a workspace's entries grouped by dimensions, over
 * rollup rows (./rollup.ts). This module holds the query's rules (what each
 * measure adds up, how time is bucketed in a zone, how rows are ordered and
 * cut) and answers a query over rollup rows in memory; a backend may answer
 * it in SQL instead, and the store conformance suite holds both to a
 * recomputation from the append log.
 *
 * Semantics, in one place:
 * - every measure counts entries of the append logs: a fork's copied path and
 *   an import count as entries of their sessions, as pi counts them in their
 *   files;
 * - `from` (inclusive) and `to` (exclusive) must fall on quarter hours, so a
 *   range never splits a bucket and every figure is exact;
 * - a provider or model filter keeps the assistant messages of those
 *   providers or models (no other entry has one);
 * - a dimension that does not apply to an entry (the role of a leaf move, the
 *   model of a user message, the author of an unauthenticated write) is null;
 * - rows are ordered by `orderBy`, then by every dimension ascending, so the
 *   order is total; text compares by code point, nulls last ascending.
 */
import type { EntryType } from "./entry.js";
import { SessionError } from "./errors.js";
import { type Measures, SUMS } from "./measures.js";
import { BUCKET_MS, measuresOfRollups, type RollupRow } from "./rollup.js";

/** The measures of ./measures.ts (each a count or a sum), then those only a group has. */
export const MEASURES = [
	...SUMS,
	"activeSessions",
	"avgTotalTokensPerAssistantTurn",
	"avgCostPerAssistantTurn",
] as const;
export type Measure = (typeof MEASURES)[number];

export const DIMENSIONS = ["time", "session", "entryType", "role", "provider", "model", "author"] as const;
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
	entryType: EntryType | null;
	role: string | null;
	provider: string | null;
	model: string | null;
	author: string | null;
	/** The asked measures; an average over no assistant turn is null. */
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

/** The rollup rows of one session, with what the filters read of the session. */
export interface SessionRollups {
	sessionId: string;
	cwd: string | null;
	rows: readonly RollupRow[];
}

interface Group {
	row: MetricsRow;
	/** The group's rollup rows: its measures are theirs (./rollup.ts measuresOfRollups). */
	rows: RollupRow[];
	sessions: Set<string>;
}

const orNull = (value: string) => (value === "" ? null : value);

function included(filter: MetricsFilter, row: RollupRow): boolean {
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

/** A measure of a group, from the measures of its entries and its number of sessions. */
export function measureOf(measure: Measure, measures: Measures, sessions: number): number | null {
	switch (measure) {
		case "activeSessions":
			return sessions;
		case "avgTotalTokensPerAssistantTurn":
			return measures.assistantTurns === 0 ? null : measures.totalTokens / measures.assistantTurns;
		case "avgCostPerAssistantTurn":
			return measures.assistantTurns === 0 ? null : measures.cost / measures.assistantTurns;
		default:
			return measures[measure];
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
	author: null,
	values: {},
});

function emptyGroup(row: MetricsRow): Group {
	return { row, rows: [], sessions: new Set() };
}

/** A checked query (checkMetricsQuery) answered over every session's rollup rows. */
export function metricsOfRollups(query: MetricsQuery, sessions: Iterable<SessionRollups>): MetricsResult {
	const grouped = new Set(query.dimensions);
	const groups = new Map<string, Group>();
	for (const session of sessions) {
		if (!sessionIncluded(query.filter, session)) continue;
		for (const r of session.rows) {
			if (!included(query.filter, r)) continue;
			const row: MetricsRow = {
				...emptyMetricsRow(),
				...(grouped.has("time") ? { time: timeBucket(r.bucket, query.granularity, query.timeZone) } : {}),
				...(grouped.has("session") ? { sessionId: session.sessionId } : {}),
				...(grouped.has("entryType") ? { entryType: r.entryType } : {}),
				...(grouped.has("role") ? { role: orNull(r.role) } : {}),
				...(grouped.has("provider") ? { provider: orNull(r.provider) } : {}),
				...(grouped.has("model") ? { model: orNull(r.model) } : {}),
				...(grouped.has("author") ? { author: orNull(r.author) } : {}),
			};
			const key = JSON.stringify([
				row.time,
				row.sessionId,
				row.entryType,
				row.role,
				row.provider,
				row.model,
				row.author,
			]);
			let group = groups.get(key);
			if (!group) {
				group = emptyGroup(row);
				groups.set(key, group);
			}
			group.rows.push(r);
			group.sessions.add(session.sessionId);
		}
	}
	// Without dimensions the answer is one row, the totals, even over nothing.
	if (groups.size === 0 && query.dimensions.length === 0) groups.set("", emptyGroup(emptyMetricsRow()));
	const rows = [...groups.values()].map((g) => {
		const measures = measuresOfRollups(g.rows);
		for (const measure of query.measures)
			g.row.values[measure] = measureOf(measure, measures, g.sessions.size);
		return g.row;
	});
	rows.sort(compareRows(query));
	return { rows: rows.slice(0, query.limit), truncated: rows.length > query.limit };
}
