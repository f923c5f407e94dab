/**
 * Assistant turns (src/session/analytics/turns.ts) and the rollup rows that carry them
 * (src/session/analytics/rollup.ts): a turn's duration, exact percentiles, and tool
 * calls kept per tool name without changing any total. The real pi files
 * show the durations pi's own stamps give.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measureEntries } from "../../src/session/analytics/measures.js";
import { measuresOfRollups, rollupRows, turnRows } from "../../src/session/analytics/rollup.js";
import { assistantTurnOf, percentileDisc, spreadOf, turnSpreads } from "../../src/session/analytics/turns.js";
import type { Entry, StoredEntry } from "../../src/session/entry.js";
import { parseSessionFile } from "../../src/session/jsonl.js";

const AT = "2026-01-05T12:00:10.000Z";
const STARTED = Date.parse(AT) - 4_250;

const assistant = (over: Record<string, unknown> = {}, timestamp = AT): Entry =>
	({
		type: "message",
		id: "a",
		parentId: null,
		timestamp,
		message: {
			role: "assistant",
			content: [],
			provider: "anthropic",
			model: "m",
			usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } },
			timestamp: STARTED,
			...over,
		},
	}) as Entry;

const stored = (entry: Entry, seq = 1): StoredEntry => ({
	sessionId: "s",
	seq,
	depth: 0,
	author: null,
	entry,
});

describe("assistant turns", () => {
	it("take from the message's start stamp to the entry's stamp", () => {
		expect(assistantTurnOf(assistant())).toEqual({ totalTokens: 15, cost: 0.5, durationMs: 4_250 });
		expect(assistantTurnOf(assistant({ timestamp: Date.parse(AT) }))?.durationMs).toBe(0);
	});

	it("have no duration without a finite start stamp, or one after the entry's", () => {
		for (const timestamp of [undefined, "2026-01-05T12:00:00Z", Number.NaN, Number.POSITIVE_INFINITY, null])
			expect(assistantTurnOf(assistant({ timestamp }))?.durationMs).toBeNull();
		expect(assistantTurnOf(assistant({ timestamp: Date.parse(AT) + 1 }))?.durationMs).toBeNull();
	});

	it("are assistant messages only", () => {
		const user = { ...assistant(), message: { role: "user", content: "hi", timestamp: STARTED } } as Entry;
		expect(assistantTurnOf(user)).toBeNull();
		expect(
			assistantTurnOf({ type: "leaf", id: "l", parentId: null, timestamp: AT, targetId: null }),
		).toBeNull();
	});

	it("add their durations into the measures, counting the turns that have one", () => {
		const m = measureEntries([
			assistant(),
			assistant({ timestamp: "no" }),
			assistant({ timestamp: STARTED - 750 }),
		]);
		expect(m).toMatchObject({ assistantTurns: 3, timedAssistantTurns: 2, assistantTurnDurationMs: 9_250 });
	});
});

describe("percentileDisc", () => {
	it("is the smallest value with at least that fraction of the values at or below it", () => {
		const values = Array.from({ length: 20 }, (_, i) => i + 1);
		expect(percentileDisc(values, 0.5)).toBe(10);
		expect(percentileDisc(values, 0.95)).toBe(19);
		expect(percentileDisc([7], 0.95)).toBe(7);
		expect(percentileDisc([1, 2], 0.5)).toBe(1);
		expect(percentileDisc([1, 1, 1, 9], 0.5)).toBe(1);
		expect(percentileDisc([], 0.5)).toBeNull();
	});

	it("equals its definition on any values (sorted input)", () => {
		fc.assert(
			fc.property(
				fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 60 }),
				fc.constantFrom(0.5, 0.95, 0.01, 1),
				(values, p) => {
					const sorted = [...values].sort((a, b) => a - b);
					const wanted = sorted.find((v) => values.filter((x) => x <= v).length >= p * values.length);
					expect(percentileDisc(sorted, p)).toBe(wanted);
				},
			),
		);
	});

	it("gives min, max, p50 and p95 of unsorted values, none of nothing", () => {
		expect(spreadOf([5, 1, 4, 2, 3])).toEqual({ min: 1, max: 5, p50: 3, p95: 5 });
		expect(spreadOf([])).toEqual({ min: null, max: null, p50: null, p95: null });
		expect(
			turnSpreads([
				{ totalTokens: 3, cost: 0.25, durationMs: null },
				{ totalTokens: 1, cost: 0.5, durationMs: 10 },
			]),
		).toEqual({
			totalTokens: { min: 1, max: 3, p50: 1, p95: 3 },
			cost: { min: 0.25, max: 0.5, p50: 0.25, p95: 0.5 },
			durationMs: { min: 10, max: 10, p50: 10, p95: 10 },
		});
	});
});

describe("rollup rows by tool name", () => {
	const call = (name: unknown) => ({ type: "toolCall", id: "c", name, arguments: {} });
	const calls = assistant({ content: [call("read"), call("bash"), call("read"), call(42)] });
	const result = (toolName: unknown, isError: boolean): Entry =>
		({
			type: "message",
			id: "t",
			parentId: null,
			timestamp: AT,
			message: { role: "toolResult", toolCallId: "c", toolName, content: [], isError },
		}) as Entry;

	it("keeps a turn's figures on its own row and its named calls on a row per tool", () => {
		const rows = rollupRows([stored(calls)]);
		expect(rows.map((r) => [r.toolName, r.entries, r.toolCalls, r.totalTokens])).toEqual([
			["", 1, 1, 15],
			["read", 0, 2, 0],
			["bash", 0, 1, 0],
		]);
		expect(rows[0]).toMatchObject({ minTotalTokens: 15, maxCost: 0.5, minDurationMs: 4_250 });
		expect(rows[1]).toMatchObject({ role: "assistant", provider: "anthropic", minTotalTokens: null });
	});

	it("keys a tool result by its tool name", () => {
		const rows = rollupRows([
			stored(result("bash", true)),
			stored(result("bash", false), 2),
			stored(result(7, false), 3),
		]);
		expect(rows.map((r) => [r.toolName, r.entries, r.toolResults, r.toolErrors])).toEqual([
			["bash", 2, 2, 1],
			["", 1, 1, 0],
		]);
	});

	it("adds up to the measures of the entries, and a turn row per timed or untimed turn", () => {
		const log = [stored(calls), stored(result("read", false), 2), stored(assistant({ timestamp: "x" }), 3)];
		expect(measuresOfRollups(rollupRows(log))).toEqual(measureEntries(log.map((s) => s.entry)));
		expect(turnRows(log)).toEqual([
			{
				seq: 1,
				bucket: "2026-01-05T12:00:00.000Z",
				provider: "anthropic",
				model: "m",
				author: "",
				totalTokens: 15,
				cost: 0.5,
				durationMs: 4_250,
			},
			{
				seq: 3,
				bucket: "2026-01-05T12:00:00.000Z",
				provider: "anthropic",
				model: "m",
				author: "",
				totalTokens: 15,
				cost: 0.5,
				durationMs: null,
			},
		]);
	});
});

const repo = fileURLToPath(new URL("../..", import.meta.url));
const dir = resolve(process.env.PI_FIXTURES_DIR ?? join(repo, "..", "shared", "fixtures", "pi"));
const FILES = ["before-compaction.v1.jsonl", "large-session.v1.jsonl"];
const present = FILES.every((name) => existsSync(join(dir, name)));

describe.skipIf(!present)("assistant turn durations of the real pi files", () => {
	it.each(FILES)("%s: every turn is timed, from milliseconds to minutes", (name) => {
		const { rows } = parseSessionFile(readFileSync(join(dir, name), "utf8"));
		const turns = rows.flatMap((s) => assistantTurnOf(s.entry) ?? []);
		expect(turns.length).toBeGreaterThan(400);
		const { durationMs } = turnSpreads(turns);
		expect(turns.every((t) => t.durationMs !== null)).toBe(true);
		expect(durationMs.min).toBeGreaterThanOrEqual(0);
		expect(durationMs.max).toBeLessThan(300_000);
		expect(durationMs.p50).toBeGreaterThan(1_000);
		expect(durationMs.p95).toBeGreaterThan(durationMs.p50 as number);
	});
});
