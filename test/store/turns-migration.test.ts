/**
 * Upgrading a database whose rollups were written before tool names and
 * assistant turn statistics (drizzle/0009_tool_names_and_turns.sql): the
 * migration empties the old rollups, and opening the store makes them again
 * from the log, with the tool-name rows, extremes and turn rows, so every
 * new measure is exact for data written before it. The database is first
 * migrated to the version before and filled in that version's shape (its
 * rollups as that version wrote them), on Postgres and on PGlite.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { MetricsQuery } from "../../src/session/analytics/metrics.js";
import type { PgStore } from "../../src/store/postgres/store.js";
import type { SessionStore } from "../../src/store/store.js";
import { checkUpgrade } from "../support/upgrade-from.js";

const BEFORE = "0008_workspace_rollups";
const assistant = (calls: string[], tokens: number, startedSecond: number) =>
	JSON.stringify({
		message: {
			role: "assistant",
			content: calls.map((name, i) => ({ type: "toolCall", id: `c${i}`, name, arguments: {} })),
			provider: "anthropic",
			model: "m",
			usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } },
			timestamp: Date.parse(`2026-01-01T00:00:0${startedSecond}Z`),
		},
	});
const result = JSON.stringify({
	message: { role: "toolResult", toolCallId: "c0", toolName: "bash", content: [] },
});

/** A session of two assistant turns and a tool result, with the rollups the previous version wrote for it. */
const OLD_ROWS = [
	`insert into sessions (workspace_id, id, created_at, updated_at, leaf_id, leaf_depth, last_seq, entry_count)
		values ('ws', 's', '2026-01-01T00:00:00Z', '2026-01-01T00:00:09Z', 'a2', 2, 3, 3)`,
	...[
		[1, "a1", null, assistant(["read", "bash"], 100, 1), 5],
		[2, "t1", "a1", result, 6],
		[3, "a2", "t1", assistant([], 300, 7), 9],
	].map(
		([
			seq,
			id,
			parent,
			payload,
			second,
		]) => `insert into entries (session_key, seq, id, parent_id, type, timestamp, depth, payload)
			values ((select key from sessions where id = 's'), ${seq}, '${id}', ${parent === null ? "null" : `'${parent}'`},
				'message', '2026-01-01T00:00:0${second}Z', ${Number(seq) - 1}, '${payload}')`,
	),
	// As the previous version kept them: the calls on their message's row, no tool name.
	`insert into usage_rollups (session_key, bucket, entry_type, role, provider, model, author, entries, tool_calls,
			tool_results, tool_errors, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, total_tokens, cost)
		values ((select key from sessions where id = 's'), '2026-01-01T00:00:00Z', 'message', 'assistant', 'anthropic', 'm', '',
			2, 2, 0, 0, 400, 0, 0, 0, 400, 1),
		((select key from sessions where id = 's'), '2026-01-01T00:00:00Z', 'message', 'toolResult', '', '', '',
			1, 0, 1, 0, 0, 0, 0, 0, 0, 0)`,
];

const query = (measures: MetricsQuery["measures"], dimensions: MetricsQuery["dimensions"]): MetricsQuery => ({
	measures,
	dimensions,
	granularity: "day",
	timeZone: "UTC",
	filter: {},
	orderBy: [],
	limit: 10,
});

async function expectRebuilt(store: SessionStore) {
	const byTool = await store.metrics("ws", query(["toolCalls", "toolResults", "entries"], ["toolName"]));
	expect(byTool.rows.map((r) => [r.toolName, r.values])).toEqual([
		["bash", { toolCalls: 1, toolResults: 1, entries: 1 }],
		["read", { toolCalls: 1, toolResults: 0, entries: 0 }],
		[null, { toolCalls: 0, toolResults: 0, entries: 2 }],
	]);
	const turns = await store.metrics(
		"ws",
		query(
			["p50TotalTokensPerAssistantTurn", "maxTotalTokensPerAssistantTurn", "avgAssistantTurnDurationMs"],
			[],
		),
	);
	// Turns of 100 and 300 tokens, taking 4 s and 2 s.
	expect(turns.rows[0]?.values).toEqual({
		p50TotalTokensPerAssistantTurn: 100,
		maxTotalTokensPerAssistantTurn: 300,
		avgAssistantTurnDurationMs: 3000,
	});
}

/** One turn row per assistant turn, however often the rollups are rebuilt. */
async function turnRows(store: PgStore): Promise<number> {
	const result = (await store.db.execute(sql`select count(*) as n from assistant_turns`)) as unknown;
	const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
		n: number;
	}>;
	return Number(rows[0]?.n);
}

async function expectUpgraded(store: PgStore) {
	await expectRebuilt(store);
	expect(await turnRows(store)).toBe(2);
	expect(await store.rebuildRollups()).toBe(1);
	await expectRebuilt(store);
	expect(await turnRows(store)).toBe(2);
}

describe("the tool-name and turn migration rebuilds the rollups written before it", () => {
	it.each([
		["on Postgres", "postgres"],
		["on PGlite", "pglite"],
	] as const)("%s", (_, backend) => checkUpgrade(backend, BEFORE, OLD_ROWS, expectUpgraded));
});
