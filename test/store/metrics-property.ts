/**
 * Property: for random workspaces (imported pi files with random usage, tool
 * calls, turn durations, creation times and parents, timestamps over two
 * weeks, usage pi ≥ 0.86 counts beside assistant messages (tool results',
 * compactions', usage entries'), entries of a type the service does not
 * know, a session written by appends, moves, summaries and labels, a fork),
 * every session's stats and every metrics query equal a recomputation from
 * the append logs and the session records: each entry placed in its group by
 * its own timestamp (its named tool calls in their tools' groups), the group
 * measured by session/analytics/measures.ts, turn statistics and session creations
 * counted here from their definitions. A backend's rollups are never read by
 * the recomputation.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { type Measures, measureEntries } from "../../src/session/analytics/measures.js";
import {
	compareRows,
	DIMENSION_FIELD,
	DIMENSIONS,
	type Dimension,
	emptyMetricsRow,
	GRANULARITIES,
	MEASURES,
	type Measure,
	type MetricsQuery,
	type MetricsRow,
	timeBucket,
} from "../../src/session/analytics/metrics.js";
import { sessionStats } from "../../src/session/analytics/session-stats.js";
import {
	type AgentMessage,
	type Entry,
	type EntryOf,
	isOf,
	type StoredEntry,
} from "../../src/session/entry.js";
import { summarizeMessage } from "../../src/session/message-summary.js";
import { readSessionStats } from "../../src/store/analytics/session-stats.js";
import type { SessionRecord, SessionStore } from "../../src/store/store.js";

const PROVIDERS = ["anthropic", "openai"];
const MODELS = ["m-small", "m-large", "m-odd"];
/** Tool names; an index past the end is a call or result without a name. */
const TOOLS = ["read", "bash", "edit"];
const ZONES = ["UTC", "Asia/Kolkata", "America/New_York", "Australia/Adelaide"];
const START = Date.UTC(2026, 9, 28); // two weeks around New York's fall back (2026-11-01)
const SPAN = 14 * 86_400_000;

interface Line {
	/** A message, or an entry of another type that may carry usage (or one the service does not know). */
	kind: "message" | "usage" | "compaction" | "other";
	role: "user" | "assistant" | "toolResult";
	minute: number;
	provider: number;
	model: number;
	input: number;
	output: number;
	cacheRead: number;
	withTotal: boolean;
	eighths: number;
	calls: number[];
	tool: number;
	/** How long the turn took (the entry's stamp minus the message's); none: the message has no number stamp. */
	took: number | undefined;
	/** pi-ai's own measure of it, which wins when present. */
	durationMs: number | undefined;
	/** An assistant message's responseModel; a tool result's usage (by its presence). */
	responseModel: number | undefined;
	withUsage: boolean;
	isError: boolean;
	branch: number;
}

const line: fc.Arbitrary<Line> = fc.record({
	kind: fc.constantFrom(
		...Array<"message">(6).fill("message"),
		"usage" as const,
		"compaction" as const,
		"other" as const,
	),
	role: fc.constantFrom("user" as const, "assistant" as const, "assistant" as const, "toolResult" as const),
	minute: fc.nat(SPAN / 60_000 - 1),
	provider: fc.nat(PROVIDERS.length - 1),
	model: fc.nat(MODELS.length - 1),
	input: fc.nat(5000),
	output: fc.nat(2000),
	cacheRead: fc.nat(100_000),
	withTotal: fc.boolean(),
	// Costs in eighths add up exactly in any order, so sums compare exactly on every backend.
	eighths: fc.nat(400),
	calls: fc.array(fc.nat(TOOLS.length), { maxLength: 4 }),
	tool: fc.nat(TOOLS.length),
	// Negative: a start stamp after the entry's, which gives no duration.
	took: fc.option(fc.integer({ min: -3000, max: 90_000 }), { nil: undefined }),
	durationMs: fc.option(fc.nat(60_000), { nil: undefined, freq: 3 }),
	responseModel: fc.option(fc.nat(MODELS.length - 1), { nil: undefined, freq: 3 }),
	withUsage: fc.boolean(),
	isError: fc.boolean(),
	branch: fc.nat(),
});

interface File {
	lines: Line[];
	/** The header's minute (the session's creation) and whether it names a parent session. */
	created: number;
	parent: boolean;
}

const file: fc.Arbitrary<File> = fc.record({
	lines: fc.array(line, { minLength: 1, maxLength: 25 }),
	created: fc.nat(SPAN / 60_000 - 1),
	parent: fc.boolean(),
});

/** A line's usage: its total, when given, need not be the parts' sum (Bedrock's leaves the cache out). */
function usageOf(l: Line): Record<string, unknown> {
	const usage: Record<string, unknown> = {
		input: l.input,
		output: l.output,
		cacheRead: l.cacheRead,
		cacheWrite: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: l.eighths / 8 },
	};
	if (l.withTotal) usage.totalTokens = l.input + l.output + l.cacheRead + 7;
	return usage;
}

/** `timestamp` is the entry's; the message's own stamp is `took` before it. */
function message(l: Line, timestamp: number): AgentMessage {
	if (l.role === "user") return { role: "user", content: "hi", timestamp };
	if (l.role === "toolResult")
		return {
			role: "toolResult",
			toolCallId: "c",
			...(l.tool < TOOLS.length ? { toolName: TOOLS[l.tool] } : {}),
			content: [],
			isError: l.isError,
			...(l.withUsage ? { usage: usageOf(l) } : {}),
			timestamp,
		};
	const usage = usageOf(l);
	return {
		role: "assistant",
		content: l.calls.map((tool, i) => ({
			type: "toolCall",
			id: `c${i}`,
			...(tool < TOOLS.length ? { name: TOOLS[tool] } : {}),
			arguments: {},
		})),
		provider: PROVIDERS[l.provider],
		model: MODELS[l.model],
		...(l.responseModel === undefined ? {} : { responseModel: MODELS[l.responseModel] }),
		usage,
		stopReason: "stop",
		timestamp: l.took === undefined ? "started" : timestamp - l.took,
		...(l.durationMs === undefined ? {} : { durationMs: l.durationMs }),
	};
}

/** A line's own fields: a message, a usage entry, a compaction with its usage, or an unknown type. */
function ownFieldsOf(l: Line, timestamp: number, earlier: string | undefined): Record<string, unknown> {
	switch (l.kind) {
		case "message":
			return { type: "message", message: message(l, timestamp) };
		case "usage":
			return {
				type: "usage",
				kind: "cache_warm",
				provider: PROVIDERS[l.provider],
				model: MODELS[l.model],
				usage: usageOf(l),
			};
		case "compaction":
			return {
				type: "compaction",
				summary: "s",
				firstKeptEntryId: earlier ?? "none",
				tokensBefore: 10,
				...(l.withUsage ? { usage: usageOf(l) } : {}),
			};
		case "other":
			return { type: "checkpoint", usage: usageOf(l) };
	}
}

/** A version 3 pi file: entries at their lines' minutes, each a child of an earlier one (branches included). */
function piFile(sessionId: string, { lines, created, parent }: File): string {
	const out = [
		JSON.stringify({
			type: "session",
			version: 3,
			id: sessionId,
			timestamp: new Date(START + created * 60_000).toISOString(),
			cwd: `/w/${sessionId}`,
			...(parent ? { parentSession: "/home/u/.pi/sessions/earlier.jsonl" } : {}),
		}),
	];
	const ids: string[] = [];
	const sorted = [...lines].sort((a, b) => a.minute - b.minute);
	sorted.forEach((l, i) => {
		const timestamp = START + l.minute * 60_000 + (i % 60) * 1000;
		const parentId = ids.length === 0 ? null : (ids[l.branch % ids.length] as string);
		const id = `e${i}`;
		ids.push(id);
		out.push(
			JSON.stringify({
				id,
				parentId,
				timestamp: new Date(timestamp).toISOString(),
				...ownFieldsOf(l, timestamp, ids[0]),
			}),
		);
	});
	return `${out.join("\n")}\n`;
}

/** Measures that only some groups have: asked in most queries, so that every run tries them. */
const RARE = MEASURES.filter((m) => /^(min|max|p50|p95)|^sessionsCreated$|^forks$/.test(m));

const queryOf = fc.record({
	measures: fc
		.tuple(
			fc.uniqueArray(fc.constantFrom(...MEASURES), { minLength: 1, maxLength: 4 }),
			fc.constantFrom<Measure | undefined>(undefined, ...RARE),
		)
		.map(([measures, rare]) =>
			rare === undefined || measures.includes(rare) ? measures : [...measures, rare],
		),
	dimensions: fc.uniqueArray(fc.constantFrom(...DIMENSIONS), { maxLength: 3 }),
	granularity: fc.constantFrom(...GRANULARITIES),
	timeZone: fc.constantFrom(...ZONES),
	from: fc.option(fc.nat(SPAN / 900_000), { nil: undefined }),
	days: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
	providers: fc.option(fc.subarray(PROVIDERS, { minLength: 1 }), { nil: undefined }),
	models: fc.option(fc.subarray(MODELS, { minLength: 1 }), { nil: undefined }),
	sessions: fc.option(fc.nat(3), { nil: undefined }),
	cwdPrefix: fc.option(fc.constantFrom("/w/imp", "/w/", "/nowhere"), { nil: undefined }),
	orderByMeasure: fc.boolean(),
	descending: fc.boolean(),
	limit: fc.integer({ min: 1, max: 60 }),
});

/**
 * What one entry adds to a group: the entry itself (its own figures), or the
 * calls of one named tool in an assistant message, which count only as tool
 * calls and belong to that tool's group.
 */
interface Part {
	stored: StoredEntry;
	/** Null: the entry's own part. */
	tool: string | null;
	calls: number;
}

/** An entry's parts: the entry (with its calls that have no name), then one per named tool called. */
function partsOf(stored: StoredEntry): Part[] {
	const { entry } = stored;
	if (!isOf(entry, "message")) return [{ stored, tool: null, calls: 0 }];
	const names = summarizeMessage(entry.message).toolCallNames;
	const own: Part = { stored, tool: null, calls: names.filter((n) => n === "").length };
	const named = [...new Set(names.filter((n) => n !== ""))].map((tool) => ({
		stored,
		tool,
		calls: names.filter((n) => n === tool).length,
	}));
	return [own, ...named];
}

/**
 * The provider and model an entry's usage is grouped under, as pi's cost
 * breakdown groups it: an assistant message's provider and responseModel (else
 * model), a usage entry's provider and model; none for the rest.
 */
function billedTo(entry: Entry): { provider: string | null; model: string | null } {
	if (isOf(entry, "usage")) return { provider: entry.provider || null, model: entry.model || null };
	if (!isOf(entry, "message")) return { provider: null, model: null };
	const message = entry.message;
	if (message.role !== "assistant") return { provider: null, model: null };
	return {
		provider: (message.provider as string) || null,
		model: ((message.responseModel ?? message.model) as string) || null,
	};
}

/** Each part's value of each dimension (null where it does not apply), for the recomputation. */
function dimensionValue(d: Dimension, part: Part, query: MetricsQuery): string | null {
	const { stored } = part;
	const entry = stored.entry;
	const summary = isOf(entry, "message") ? summarizeMessage(entry.message) : null;
	switch (d) {
		case "time":
			return timeBucket(entry.timestamp, query.granularity, query.timeZone);
		case "session":
			return stored.sessionId;
		case "entryType":
			return entry.type;
		case "role":
			return summary?.role || null;
		case "provider":
			return billedTo(entry).provider;
		case "model":
			return billedTo(entry).model;
		case "toolName":
			return part.tool ?? (summary?.toolName || null);
		case "author":
			return stored.author || null;
	}
}

/**
 * An assistant turn's duration by its definition: pi-ai's durationMs when it has one, else entry stamp −
 * message stamp, when that is a number ≥ 0.
 */
function durationOf(entry: Entry): number | null {
	if (!isOf(entry, "message") || entry.message.role !== "assistant") return null;
	if (typeof entry.message.durationMs === "number") return entry.message.durationMs;
	const started = entry.message.timestamp;
	if (typeof started !== "number" || !Number.isFinite(started)) return null;
	const took = Date.parse(entry.timestamp) - started;
	return took >= 0 ? took : null;
}

interface Group {
	row: MetricsRow;
	/** The entries whose own part falls in the group, and the tool calls of every part that does. */
	entries: Entry[];
	toolCalls: number;
	sessions: Set<string>;
	created: number;
	forks: number;
}

/** The smallest value with at least `p` of the values at or below it. */
const percentile = (values: readonly number[], p: number): number | null =>
	values.find((v) => values.filter((x) => x <= v).length >= p * values.length) ?? null;

const TURN_MEASURE =
	/^(avg|min|max|p50|p95)(TotalTokensPerAssistantTurn|CostPerAssistantTurn|AssistantTurnDurationMs)$/;

function recomputed(measure: Measure, g: Group): number | null {
	const m: Measures = { ...measureEntries(g.entries), toolCalls: g.toolCalls };
	const turns = g.entries.filter((e) => isOf(e, "message") && e.message.role === "assistant");
	const durations = turns.map(durationOf).filter((d): d is number => d !== null);
	if (measure === "activeSessions") return g.sessions.size;
	if (measure === "sessionsCreated") return g.created;
	if (measure === "forks") return g.forks;
	if (measure === "timedAssistantTurns") return durations.length;
	if (measure === "assistantTurnDurationMs") return durations.reduce((a, b) => a + b, 0);
	const turnMeasure = TURN_MEASURE.exec(measure);
	if (!turnMeasure) return m[measure as keyof Measures] as number;
	const [, statistic, of] = turnMeasure;
	const values =
		of === "AssistantTurnDurationMs"
			? durations
			: turns.map((e) => {
					const usage = summarizeMessage((e as EntryOf<"message">).message).usage;
					if (!usage) throw new Error("an assistant turn without usage");
					// A turn's tokens are its four parts, as every total's (pi's session stats).
					return of === "CostPerAssistantTurn"
						? usage.cost.total
						: usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
				});
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	switch (statistic) {
		case "avg":
			// Per assistant turn: the turns' own tokens and cost (summaries' and usage entries' are not a turn's).
			return of === "TotalTokensPerAssistantTurn"
				? m.assistantTurnTokens / m.assistantTurns
				: of === "CostPerAssistantTurn"
					? m.assistantTurnCost / m.assistantTurns
					: values.reduce((a, b) => a + b, 0) / values.length;
		case "min":
			return sorted[0] as number;
		case "max":
			return sorted[sorted.length - 1] as number;
		default:
			return percentile(sorted, statistic === "p50" ? 0.5 : 0.95);
	}
}

/**
 * The recomputation: every part of every entry of every log, filtered,
 * grouped and measured on its own; with sessionsCreated or forks asked, every
 * session whose creation falls in the range, with the dimensions a session has.
 */
function recompute(query: MetricsQuery, logs: ReadonlyArray<{ record: SessionRecord; log: StoredEntry[] }>) {
	const { filter } = query;
	const groups = new Map<string, Group>();
	const groupOf = (values: Partial<Record<Dimension, string | null>>): Group => {
		const row = emptyMetricsRow();
		for (const d of query.dimensions)
			(row as unknown as Record<string, unknown>)[DIMENSION_FIELD[d]] = values[d] ?? null;
		const key = JSON.stringify(DIMENSIONS.map((d) => row[DIMENSION_FIELD[d]]));
		const group = groups.get(key) ?? {
			row,
			entries: [],
			toolCalls: 0,
			sessions: new Set(),
			created: 0,
			forks: 0,
		};
		groups.set(key, group);
		return group;
	};
	const inRange = (at: number) =>
		(filter.from === undefined || at >= Date.parse(filter.from)) &&
		(filter.to === undefined || at < Date.parse(filter.to));
	const creations = query.measures.includes("sessionsCreated") || query.measures.includes("forks");
	for (const { record, log } of logs) {
		if (filter.sessionIds && !filter.sessionIds.includes(record.sessionId)) continue;
		if (filter.cwdPrefix !== undefined && !(record.cwd ?? "").startsWith(filter.cwdPrefix)) continue;
		// A session has no provider or model: a filter on them leaves its creation out.
		if (creations && !filter.providers && !filter.models && inRange(Date.parse(record.createdAt))) {
			const group = groupOf({
				time: timeBucket(record.createdAt, query.granularity, query.timeZone),
				session: record.sessionId,
			});
			group.created += 1;
			if (record.parentSessionId !== null) group.forks += 1;
		}
		for (const stored of log) {
			if (!inRange(Date.parse(stored.entry.timestamp))) continue;
			const billed = billedTo(stored.entry);
			if (filter.providers && !filter.providers.includes(billed.provider ?? "")) continue;
			if (filter.models && !filter.models.includes(billed.model ?? "")) continue;
			for (const part of partsOf(stored)) {
				const values: Partial<Record<Dimension, string | null>> = {};
				for (const d of query.dimensions) values[d] = dimensionValue(d, part, query);
				const group = groupOf(values);
				if (part.tool === null) group.entries.push(stored.entry);
				group.toolCalls += part.calls;
				group.sessions.add(stored.sessionId);
			}
		}
	}
	if (groups.size === 0 && query.dimensions.length === 0) groupOf({});
	const rows = [...groups.values()].map((group) => {
		for (const m of query.measures) group.row.values[m] = recomputed(m, group);
		return group.row;
	});
	rows.sort(compareRows(query));
	return { rows: rows.slice(0, query.limit), truncated: rows.length > query.limit };
}

/** Every session of the workspace with its whole log, read through the store. */
async function logsOf(store: SessionStore, ws: string) {
	const records = (await store.listSessions(ws, { first: 100 })).items.map((i) => i.node);
	return Promise.all(
		records.map(async (record) => ({ record, log: await store.listEntries(ws, record.sessionId) })),
	);
}

/** Order statistics are values of the data, never computed: they compare exactly. */
const EXACT = /^(min|max|p50|p95)/;

export async function metricsProperty(
	store: () => SessionStore,
	workspace: () => string,
	runs: number,
): Promise<void> {
	await fc.assert(
		fc.asyncProperty(
			fc.array(file, { minLength: 1, maxLength: 3 }),
			fc.array(queryOf, { minLength: 3, maxLength: 6 }),
			async (files, queries) => {
				const ws = workspace();
				const s = store();
				const ids: string[] = [];
				for (const [i, f] of files.entries()) {
					const { sessionId } = await s.importSession(ws, piFile(`imp${i}`, f), { sessionId: `imp${i}` });
					ids.push(sessionId);
				}
				// Appends, a move with a summary, a label: the tree-write path, at the server's clock.
				const first = files[0]?.lines[0] as Line;
				await s.createSession(ws, { sessionId: "live", cwd: "/w/live" });
				const u = await s.appendEntry(
					ws,
					"live",
					{ type: "message", message: message({ ...first, role: "user" }, START) },
					{ author: "ana" },
				);
				await s.appendEntry(ws, "live", {
					type: "message",
					message: message({ ...first, role: "assistant", took: 0 }, Date.now() - 1500),
				});
				await s.moveLeaf(ws, "live", { targetId: u.entry.entry.id, summary: { summary: "back" } });
				await s.setLabel(ws, "live", u.entry.entry.id, "start");
				ids.push("live");
				await s.forkSession(ws, "imp0", { newSessionId: "fork" });
				ids.push("fork");

				const logs = await logsOf(s, ws);
				// Each session's stats (rollups and the shape, where the backend keeps them) equal its log measured.
				for (const { record, log } of logs) {
					const path = await s.activePath(ws, record.sessionId, { full: true });
					expect(await readSessionStats(s, ws, record.sessionId)).toEqual(sessionStats(log, path));
				}
				for (const q of queries) {
					const from = q.from === undefined ? undefined : START + q.from * 900_000;
					const query: MetricsQuery = {
						measures: q.measures,
						dimensions: q.dimensions,
						granularity: q.granularity,
						timeZone: q.timeZone,
						filter: {
							...(from === undefined ? {} : { from: new Date(from).toISOString() }),
							...(q.days === undefined
								? {}
								: { to: new Date((from ?? START) + q.days * 86_400_000).toISOString() }),
							...(q.providers ? { providers: q.providers } : {}),
							...(q.models ? { models: q.models } : {}),
							...(q.sessions === undefined ? {} : { sessionIds: ids.slice(0, q.sessions + 1) }),
							...(q.cwdPrefix === undefined ? {} : { cwdPrefix: q.cwdPrefix }),
						},
						orderBy: q.orderByMeasure
							? [{ by: q.measures[0] as Measure, descending: q.descending }]
							: q.dimensions.length > 0
								? [{ by: q.dimensions[0] as Dimension, descending: q.descending }]
								: [],
						limit: q.limit,
					};
					const ours = await s.metrics(ws, query);
					const expected = recompute(query, logs);
					expect(ours.truncated, JSON.stringify(query)).toBe(expected.truncated);
					expect(ours.rows.length, JSON.stringify(query)).toBe(expected.rows.length);
					ours.rows.forEach((row, i) => {
						const want = expected.rows[i] as MetricsRow;
						const { values, ...dims } = row;
						const { values: wantValues, ...wantDims } = want;
						expect(dims, JSON.stringify(query)).toEqual(wantDims);
						for (const m of query.measures) {
							const [a, b] = [values[m], wantValues[m]];
							if (a === null || b === null || a === undefined || b === undefined || EXACT.test(m))
								expect(a ?? null, `${m} ${JSON.stringify(query)}`).toBe(b ?? null);
							else expect(a, `${m} ${JSON.stringify(query)}`).toBeCloseTo(b, 6);
						}
					});
				}
			},
		),
		{ numRuns: runs },
	);
}
