/**
 * Upgrading a database whose rollups were written before totals counted
 * what pi 1.6 counts (drizzle/0013_pi_totals.sql): the migration empties
 * the old rollups and turn rows, and opening the store makes them again
 * from the log, so a tool result's, a compaction's and a branch summary's
 * usage, stored before but never counted, now is; tokens are the four
 * parts' sum; an assistant turn is grouped by the model that answered. The
 * database is first migrated to the version before and filled in that
 * version's shape (its rollups as that version wrote them), on Postgres and
 * on PGlite.
 */
import { describe, expect, it } from "vitest";
import type { MetricsQuery } from "../../src/session/analytics/metrics.js";
import { readSessionStats } from "../../src/store/analytics/session-stats.js";
import type { PgStore } from "../../src/store/postgres/store.js";
import { checkUpgrade } from "../support/upgrade-from.js";

const BEFORE = "0012_search_index_fastupdate";

/** Usage whose reported total (Bedrock's) leaves the cache out. */
const usage = (input: number, cacheRead: number, cost: number) => ({
	input,
	output: 0,
	cacheRead,
	cacheWrite: 0,
	totalTokens: input,
	cost: { total: cost },
});

const PAYLOADS: Array<[string, string, Record<string, unknown>]> = [
	[
		"message",
		"a1",
		{
			message: {
				role: "assistant",
				content: [],
				provider: "anthropic",
				model: "m",
				responseModel: "m-2026",
				usage: usage(100, 900, 0.5),
				timestamp: Date.parse("2026-01-01T00:00:00Z"),
			},
		},
	],
	[
		"message",
		"t1",
		{
			message: {
				role: "toolResult",
				toolCallId: "c",
				toolName: "ask",
				content: [],
				usage: usage(10, 0, 0.25),
			},
		},
	],
	["compaction", "c1", { summary: "s", firstKeptEntryId: "a1", tokensBefore: 1, usage: usage(20, 0, 0.125) }],
	["branch_summary", "b1", { fromId: "a1", summary: "s", usage: usage(30, 0, 0.125) }],
];

/** The session, and the rollups and turn row the previous version kept of it: the assistant message alone. */
const OLD_ROWS = [
	`insert into sessions (workspace_id, id, created_at, updated_at, leaf_id, leaf_depth, last_seq, entry_count)
		values ('ws', 's', '2026-01-01T00:00:00Z', '2026-01-01T00:00:04Z', 'b1', 3, 4, 4)`,
	...PAYLOADS.map(
		(
			[type, id, payload],
			i,
		) => `insert into entries (session_key, seq, id, parent_id, type, timestamp, depth, payload)
			values ((select key from sessions where id = 's'), ${i + 1}, '${id}', ${i === 0 ? "null" : `'${PAYLOADS[i - 1]?.[1]}'`},
				'${type}', '2026-01-01T00:00:0${i + 1}Z', ${i}, '${JSON.stringify(payload)}')`,
	),
	`insert into usage_rollups (session_key, bucket, entry_type, role, provider, model, tool_name, author, entries,
			tool_calls, tool_results, tool_errors, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
			total_tokens, cost, timed_assistant_turns, assistant_turn_duration_ms, min_total_tokens, max_total_tokens,
			min_cost, max_cost)
		values ((select key from sessions where id = 's'), '2026-01-01T00:00:00Z', 'message', 'assistant', 'anthropic', 'm',
			'', '', 1, 0, 0, 0, 100, 0, 900, 0, 100, 0.5, 1, 1000, 100, 100, 0.5, 0.5),
		((select key from sessions where id = 's'), '2026-01-01T00:00:00Z', 'message', 'toolResult', '', '', 'ask', '',
			1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, null),
		((select key from sessions where id = 's'), '2026-01-01T00:00:00Z', 'compaction', '', '', '', '', '',
			1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, null),
		((select key from sessions where id = 's'), '2026-01-01T00:00:00Z', 'branch_summary', '', '', '', '', '',
			1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, null, null)`,
	`insert into assistant_turns (session_key, seq, bucket, provider, model, author, total_tokens, cost, duration_ms)
		values ((select key from sessions where id = 's'), 1, '2026-01-01T00:00:00Z', 'anthropic', 'm', '', 100, 0.5, 1000)`,
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

async function expectCountedAsPi(store: PgStore) {
	// 1,000 tokens (the parts, not the reported 100) of the answer, and 60 of the others it never counted.
	expect((await readSessionStats(store, "ws", "s")).tree).toMatchObject({ totalTokens: 1060, cost: 1 });
	const byModel = await store.metrics(
		"ws",
		query(["totalTokens", "cost", "maxTotalTokensPerAssistantTurn"], ["model"]),
	);
	expect(byModel.rows.map((r) => [r.model, r.values])).toEqual([
		["m-2026", { totalTokens: 1000, cost: 0.5, maxTotalTokensPerAssistantTurn: 1000 }],
		[null, { totalTokens: 60, cost: 0.5, maxTotalTokensPerAssistantTurn: null }],
	]);
	const perTurn = await store.metrics(
		"ws",
		query(["avgCostPerAssistantTurn", "p50TotalTokensPerAssistantTurn"], []),
	);
	expect(perTurn.rows[0]?.values).toEqual({
		avgCostPerAssistantTurn: 0.5,
		p50TotalTokensPerAssistantTurn: 1000,
	});
}

describe("the pi-totals migration rebuilds the rollups written before it", () => {
	it.each([
		["on Postgres", "postgres"],
		["on PGlite", "pglite"],
	] as const)("%s", (_, backend) =>
		checkUpgrade(backend, BEFORE, OLD_ROWS, async (store) => {
			await expectCountedAsPi(store);
			expect(await store.rebuildRollups()).toBe(1);
			await expectCountedAsPi(store);
		}),
	);
});
