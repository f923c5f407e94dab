/**
 * Property: for random workspaces (imported pi files with random usage and
 * timestamps over two weeks, a session written by appends, moves, summaries
 * and labels, a fork), every session's stats and every metrics query equal a
 * recomputation from the append logs: each entry placed in its group by its own timestamp, the
 * group measured by session/measures.ts. A backend's rollups are never read
 * by the recomputation.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { AgentMessage, Entry, StoredEntry } from "../../src/session/entry.js";
import { type Measures, measureEntries } from "../../src/session/measures.js";
import { summarizeMessage } from "../../src/session/message-summary.js";
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
} from "../../src/session/metrics.js";
import { sessionStats } from "../../src/session/session-stats.js";
import { readSessionStats } from "../../src/store/session-stats.js";
import type { SessionRecord, SessionStore } from "../../src/store/store.js";

const PROVIDERS = ["anthropic", "openai"];
const MODELS = ["m-small", "m-large", "m-odd"];
const ZONES = ["UTC", "Asia/Kolkata", "America/New_York", "Australia/Adelaide"];
const START = Date.UTC(2026, 9, 28); // two weeks around New York's fall back (2026-11-01)
const SPAN = 14 * 86_400_000;

interface Line {
	role: "user" | "assistant" | "toolResult";
	minute: number;
	provider: number;
	model: number;
	input: number;
	output: number;
	cacheRead: number;
	withTotal: boolean;
	eighths: number;
	calls: number;
	isError: boolean;
	branch: number;
}

const line: fc.Arbitrary<Line> = fc.record({
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
	calls: fc.nat(3),
	isError: fc.boolean(),
	branch: fc.nat(),
});

function message(l: Line, timestamp: number): AgentMessage {
	if (l.role === "user") return { role: "user", content: "hi", timestamp };
	if (l.role === "toolResult")
		return {
			role: "toolResult",
			toolCallId: "c",
			toolName: "bash",
			content: [],
			isError: l.isError,
			timestamp,
		};
	const usage: Record<string, unknown> = {
		input: l.input,
		output: l.output,
		cacheRead: l.cacheRead,
		cacheWrite: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: l.eighths / 8 },
	};
	if (l.withTotal) usage.totalTokens = l.input + l.output + l.cacheRead + 7;
	return {
		role: "assistant",
		content: Array.from({ length: l.calls }, (_, i) => ({
			type: "toolCall",
			id: `c${i}`,
			name: "read",
			arguments: {},
		})),
		provider: PROVIDERS[l.provider],
		model: MODELS[l.model],
		usage,
		stopReason: "stop",
		timestamp,
	};
}

/** A version 3 pi file: entries at their lines' minutes, each a child of an earlier one (branches included). */
function piFile(sessionId: string, lines: readonly Line[]): string {
	const out = [
		JSON.stringify({
			type: "session",
			version: 3,
			id: sessionId,
			timestamp: new Date(START).toISOString(),
			cwd: `/w/${sessionId}`,
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
				type: "message",
				id,
				parentId,
				timestamp: new Date(timestamp).toISOString(),
				message: message(l, timestamp),
			}),
		);
	});
	return `${out.join("\n")}\n`;
}

const queryOf = fc.record({
	measures: fc.uniqueArray(fc.constantFrom(...MEASURES), { minLength: 1, maxLength: 5 }),
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

/** Each entry's value of each dimension (null where it does not apply), for the recomputation. */
function dimensionValue(d: Dimension, stored: StoredEntry, query: MetricsQuery): string | null {
	const entry = stored.entry;
	const summary = entry.type === "message" ? summarizeMessage(entry.message) : null;
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
			return summary?.provider || null;
		case "model":
			return summary?.model || null;
		case "author":
			return stored.author || null;
	}
}

function recomputed(measure: Measure, m: Measures, sessions: number): number | null {
	if (measure === "activeSessions") return sessions;
	if (measure === "avgTotalTokensPerAssistantTurn")
		return m.assistantTurns === 0 ? null : m.totalTokens / m.assistantTurns;
	if (measure === "avgCostPerAssistantTurn") return m.assistantTurns === 0 ? null : m.cost / m.assistantTurns;
	return m[measure];
}

/** The recomputation: every entry of every log, filtered, grouped and measured on its own. */
function recompute(query: MetricsQuery, logs: ReadonlyArray<{ record: SessionRecord; log: StoredEntry[] }>) {
	const { filter } = query;
	const groups = new Map<string, { row: MetricsRow; entries: Entry[]; sessions: Set<string> }>();
	for (const { record, log } of logs) {
		if (filter.sessionIds && !filter.sessionIds.includes(record.sessionId)) continue;
		if (filter.cwdPrefix !== undefined && !(record.cwd ?? "").startsWith(filter.cwdPrefix)) continue;
		for (const stored of log) {
			const at = Date.parse(stored.entry.timestamp);
			if (filter.from !== undefined && at < Date.parse(filter.from)) continue;
			if (filter.to !== undefined && at >= Date.parse(filter.to)) continue;
			const summary = stored.entry.type === "message" ? summarizeMessage(stored.entry.message) : null;
			if (filter.providers && !filter.providers.includes(summary?.provider ?? "")) continue;
			if (filter.models && !filter.models.includes(summary?.model ?? "")) continue;
			const row = emptyMetricsRow();
			for (const d of query.dimensions)
				(row as unknown as Record<string, unknown>)[DIMENSION_FIELD[d]] = dimensionValue(d, stored, query);
			const key = JSON.stringify(DIMENSIONS.map((d) => row[DIMENSION_FIELD[d]]));
			const group = groups.get(key) ?? { row, entries: [], sessions: new Set<string>() };
			groups.set(key, group);
			group.entries.push(stored.entry);
			group.sessions.add(stored.sessionId);
		}
	}
	if (groups.size === 0 && query.dimensions.length === 0) {
		groups.set("", { row: emptyMetricsRow(), entries: [], sessions: new Set() });
	}
	const rows = [...groups.values()].map(({ row, entries, sessions }) => {
		const measured = measureEntries(entries);
		for (const m of query.measures) row.values[m] = recomputed(m, measured, sessions.size);
		return row;
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

export async function metricsProperty(
	store: () => SessionStore,
	workspace: () => string,
	runs: number,
): Promise<void> {
	await fc.assert(
		fc.asyncProperty(
			fc.array(fc.array(line, { minLength: 1, maxLength: 25 }), { minLength: 1, maxLength: 3 }),
			fc.array(queryOf, { minLength: 3, maxLength: 6 }),
			async (files, queries) => {
				const ws = workspace();
				const s = store();
				const ids: string[] = [];
				for (const [i, lines] of files.entries()) {
					const { sessionId } = await s.importSession(ws, piFile(`imp${i}`, lines), { sessionId: `imp${i}` });
					ids.push(sessionId);
				}
				// Appends, a move with a summary, a label: the tree-write path, at the server's clock.
				await s.createSession(ws, { sessionId: "live", cwd: "/w/live" });
				const u = await s.appendEntry(
					ws,
					"live",
					{ type: "message", message: message({ ...(files[0]?.[0] as Line), role: "user" }, START) },
					{ author: "ana" },
				);
				await s.appendEntry(ws, "live", {
					type: "message",
					message: message({ ...(files[0]?.[0] as Line), role: "assistant" }, START),
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
							if (a === null || b === null || a === undefined || b === undefined)
								expect(a ?? null).toBe(b ?? null);
							else expect(a, `${m} ${JSON.stringify(query)}`).toBeCloseTo(b, 6);
						}
					});
				}
			},
		),
		{ numRuns: runs },
	);
}
