/**
 * Workspace rollups folded from the sessions' rows (src/store/postgres/analytics/fold.ts):
 * a workspace-wide metrics query reads the folded rows, and its answer is the
 * one read from every session's rows, before a fold, after it, with writes
 * in between, with a write holding a row while the fold runs, and after a
 * rebuild that drops a key. The per-session answer is the one the property
 * test holds to a recomputation from the log (metrics-property.ts); asking
 * for `activeSessions` makes a query read the sessions' rows.
 */
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import type { MetricsQuery, MetricsResult } from "../../src/session/analytics/metrics.js";
import { openPglite, openPostgres } from "../../src/store/postgres/open.js";
import type { PgStore } from "../../src/store/postgres/store.js";
import { createTestDatabase } from "../support/databases.js";
import { freshPgliteDirectory } from "../support/pglite-directories.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
	for (const cleanup of cleanups.reverse()) await cleanup();
});

const DAY = Date.UTC(2026, 5, 1);
const MODELS = ["m-a", "m-b", "m-c"];

/** A chain of user and assistant messages every 10 minutes from `start`; models rotate. */
function sessionFile(id: string, start: number, entries: number): string {
	const lines = [
		JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(start).toISOString(), cwd: "/w" }),
	];
	for (let i = 0; i < entries; i++) {
		const at = start + i * 600_000;
		const message =
			i % 2 === 1
				? {
						role: "assistant",
						content: [{ type: "text", text: `a${i}` }],
						provider: "p",
						model: MODELS[i % MODELS.length],
						usage: {
							input: i,
							output: 2 * i,
							cacheRead: 0,
							cacheWrite: 0,
							totalTokens: 3 * i,
							cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: i / 1000 },
						},
						stopReason: "stop",
						timestamp: at,
					}
				: { role: "user", content: `u${i}`, timestamp: at };
		lines.push(
			JSON.stringify({
				type: "message",
				id: `${id}-${i}`,
				parentId: i === 0 ? null : `${id}-${i - 1}`,
				timestamp: new Date(at).toISOString(),
				message,
			}),
		);
	}
	return `${lines.join("\n")}\n`;
}

const byDayAndModel: MetricsQuery = {
	measures: [
		"entries",
		"messages",
		"assistantTurns",
		"totalTokens",
		"cost",
		"minTotalTokensPerAssistantTurn",
		"maxCostPerAssistantTurn",
		"avgAssistantTurnDurationMs",
	],
	dimensions: ["time", "model", "role"],
	granularity: "day",
	timeZone: "Europe/Paris",
	filter: {},
	orderBy: [],
	limit: 1000,
};

/** The query's answer from the sessions' rows: the same query with activeSessions (then dropped). */
async function fromSessionRows(store: PgStore, ws: string, query: MetricsQuery): Promise<MetricsResult> {
	const result = await store.metrics(ws, { ...query, measures: [...query.measures, "activeSessions"] });
	for (const row of result.rows) delete row.values.activeSessions;
	return result;
}

async function count(store: PgStore, query: string): Promise<number> {
	const result = (await store.db.execute(sql.raw(query))) as unknown;
	const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
		n: number;
	}>;
	return Number(rows[0]?.n);
}

const dirtyRows = (store: PgStore) => count(store, "select count(*) as n from usage_rollups where dirty");
const workspaceRows = (store: PgStore) => count(store, "select count(*) as n from workspace_rollups");

/**
 * Costs are fractions added in another grouping, so they may differ in the
 * last bits (session/analytics/measures.ts): compared to 12 significant digits.
 */
const rounded = (result: MetricsResult) =>
	JSON.parse(
		JSON.stringify(result, (_, value) =>
			typeof value === "number" && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value,
		),
	) as MetricsResult;

/** The workspace-wide answer equals the sessions' rows' answer; returns it. */
async function expectExact(store: PgStore, ws: string, query = byDayAndModel): Promise<MetricsResult> {
	const folded = rounded(await store.metrics(ws, query));
	expect(folded).toEqual(rounded(await fromSessionRows(store, ws, query)));
	return folded;
}

const total = (result: MetricsResult, measure: "entries" | "assistantTurns") =>
	result.rows.reduce((sum, row) => sum + (row.values[measure] ?? 0), 0);

type Open = (foldDelayMs: number) => Promise<{ store: PgStore; url?: string }>;

const backends: Array<[string, Open]> = [
	[
		"postgres",
		async (foldDelayMs) => {
			const database = await createTestDatabase();
			const store = await openPostgres(database.url, { foldDelayMs });
			cleanups.push(
				() => database.drop(),
				() => store.close(),
			);
			return { store, url: database.url };
		},
	],
	[
		"pglite",
		async (foldDelayMs) => {
			const dir = freshPgliteDirectory("session-tree-fold-");
			const store = await openPglite(dir, { foldDelayMs });
			cleanups.push(
				async () => rmSync(dir, { recursive: true, force: true }),
				() => store.close(),
			);
			return { store };
		},
	],
];

// A delay no test waits for: folds run only when a test asks (foldRollups).
const NEVER = 3_600_000;

describe.each(backends)("workspace rollups folded on %s", (_, open) => {
	it("answers from the folded rows as from the sessions' rows, before and after folds and writes", async () => {
		const { store } = await open(NEVER);
		for (let s = 0; s < 6; s++)
			await store.importSession("ws", sessionFile(`s${s}`, DAY + s * 7_200_000, 40));
		await store.importSession("other", sessionFile("o", DAY, 10));
		const unfolded = await expectExact(store, "ws");
		expect(total(unfolded, "entries")).toBe(240);
		expect(await dirtyRows(store)).toBeGreaterThan(0);

		expect(await store.foldRollups()).toBeGreaterThan(0);
		expect(await dirtyRows(store)).toBe(0);
		expect(await workspaceRows(store)).toBeGreaterThan(0);
		expect(await expectExact(store, "ws")).toEqual(unfolded);
		// Another workspace's rows are its own.
		expect(total(await expectExact(store, "other"), "entries")).toBe(10);

		// Appends after the fold: their rows are dirty, and counted.
		await store.appendEntry("ws", "s0", {
			type: "message",
			message: { role: "user", content: "more", timestamp: 1 },
		});
		await store.appendEntry("ws", "s3", {
			type: "message",
			message: {
				role: "assistant",
				content: [{ type: "text", text: "late" }],
				provider: "p",
				model: "m-new",
				usage: {
					input: 1,
					output: 1,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 2,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
				},
				stopReason: "stop",
				timestamp: 1,
			},
		});
		expect(await dirtyRows(store)).toBe(2);
		const appended = await expectExact(store, "ws");
		expect(total(appended, "entries")).toBe(242);
		expect(appended.rows.some((r) => r.model === "m-new")).toBe(true);
		await store.foldRollups();
		expect(await dirtyRows(store)).toBe(0);
		expect(await expectExact(store, "ws")).toEqual(appended);
		// Filters apply to folded rows as to the sessions'.
		await expectExact(store, "ws", {
			...byDayAndModel,
			filter: { models: ["m-a", "m-new"], from: new Date(DAY + 3_600_000).toISOString() },
			orderBy: [{ by: "cost", descending: true }],
			limit: 3,
		});
	});

	it("drops a key a rebuild no longer finds from the folded rows", async () => {
		const { store } = await open(NEVER);
		await store.importSession("ws", sessionFile("s", DAY, 20));
		// A row the log does not account for (as a change to the rollup rules would leave), then folded.
		await store.db.execute(sql`insert into usage_rollups (session_key, bucket, entry_type, role, provider, model,
				tool_name, author, entries, tool_calls, tool_results, tool_errors, input_tokens, output_tokens,
				cache_read_tokens, cache_write_tokens, total_tokens, cost, timed_assistant_turns, assistant_turn_duration_ms,
				dirty)
			select session_key, bucket, entry_type, role, provider, 'ghost', tool_name, author, entries, tool_calls,
				tool_results, tool_errors, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, total_tokens,
				cost, timed_assistant_turns, assistant_turn_duration_ms, true
			from usage_rollups where role = 'assistant' limit 1`);
		await store.foldRollups();
		expect((await expectExact(store, "ws")).rows.some((r) => r.model === "ghost")).toBe(true);

		expect(await store.rebuildRollups()).toBe(1);
		const rebuilt = await expectExact(store, "ws");
		expect(rebuilt.rows.some((r) => r.model === "ghost")).toBe(false);
		expect(total(rebuilt, "entries")).toBe(20);
		expect(await dirtyRows(store)).toBe(0);
		expect(await count(store, "select count(*) as n from usage_rollups where entries = 0")).toBe(0);
		expect(await count(store, "select count(*) as n from workspace_rollups where model = 'ghost'")).toBe(0);
	});

	it("folds a workspace in the background after it is written to", async () => {
		const { store } = await open(0);
		await store.importSession("ws", sessionFile("s", DAY, 10));
		await store.appendEntry("ws", "s", {
			type: "message",
			message: { role: "user", content: "x", timestamp: 1 },
		});
		const deadline = Date.now() + 10_000;
		while ((await dirtyRows(store)) > 0) {
			expect(Date.now()).toBeLessThan(deadline);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		expect(total(await expectExact(store, "ws"), "entries")).toBe(11);
	});
});

describe("workspace rollups folded on postgres, beside writes in flight", () => {
	it("leaves a row a write holds dirty, and counts the write once it commits", async () => {
		const database = await createTestDatabase();
		const store = await openPostgres(database.url, { foldDelayMs: NEVER });
		const raw = postgres(database.url, { max: 1, onnotice: () => {} });
		cleanups.push(
			() => database.drop(),
			() => store.close(),
			() => raw.end(),
		);
		for (let s = 0; s < 3; s++) await store.importSession("ws", sessionFile(`s${s}`, DAY, 30));
		await store.foldRollups();
		const before = total(await expectExact(store, "ws"), "assistantTurns");

		// A write in flight: it holds one of s1's assistant rows (one more turn) and has not committed.
		const reserved = await raw.reserve();
		cleanups.push(async () => reserved.release());
		await reserved`begin`;
		await reserved`update usage_rollups set entries = entries + 1, dirty = true
			where ctid = (select ctid from usage_rollups where role = 'assistant' and session_key =
				(select key from sessions where id = 's1') order by bucket limit 1)`;
		// Another dirty row of the same key elsewhere, which the fold may take.
		await store.appendEntry("ws", "s0", {
			type: "message",
			message: { role: "user", content: "y", timestamp: 1 },
		});
		// The fold does not wait for the write, and leaves its row dirty.
		await store.foldRollups();
		expect(await expectExact(store, "ws")).toBeDefined();
		await reserved`commit`;
		expect(await dirtyRows(store)).toBeGreaterThanOrEqual(1);
		const after = await expectExact(store, "ws");
		expect(total(after, "assistantTurns")).toBe(before + 1);
		await store.foldRollups();
		expect(await dirtyRows(store)).toBe(0);
		expect(await expectExact(store, "ws")).toEqual(after);
	});
});
