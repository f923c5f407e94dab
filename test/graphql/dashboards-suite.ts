/**
 * Dashboards over HTTP (issue 11): typed message fields, and a session's
 * stats over its tree and its active path, on a real server per backend
 * (dashboards.*.test.ts). The real pi files check the totals against pi's
 * own reading of them: pi's footer adds up the usage of every assistant
 * message in the file (dist/modes/interactive/components/footer.js).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../support/pi-oracle.js";
import { type BackendName, startTestServer, type TestServer } from "../support/server.js";
import { assistantMessage, expectError, ok, uniqueId, userMessage } from "./http.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const piDir = resolve(process.env.PI_FIXTURES_DIR ?? join(repo, "..", "shared", "fixtures", "pi"));
const PI_FILES = ["before-compaction.v1.jsonl", "large-session.v1.jsonl"];
const piPresent = PI_FILES.every((name) => existsSync(join(piDir, name)));

const MEASURES = `{
	entries messages messagesByRole { role count } userTurns assistantTurns toolCalls toolResults toolErrors
	inputTokens outputTokens cacheReadTokens cacheWriteTokens totalTokens cost
	leafMoves branchSummaries compactions labels
}`;
const STATS = `query($id: String!) { session(sessionId: $id) {
	stats { tree ${MEASURES} path ${MEASURES} tips maxDepth firstActivity lastActivity }
} }`;
const TYPED = `
	... on MessageEntry {
		role provider model api stopReason errorMessage
		usage { input output cacheRead cacheWrite totalTokens cost { input output cacheRead cacheWrite total } }
		toolCallCount toolCallNames toolName toolCallId isError preview short: preview(maxLength: 12)
	}`;
const PAGE = `query($id: String!, $after: String) { session(sessionId: $id) {
	entries(first: 500, after: $after) { pageInfo { hasNextPage endCursor } edges { node { entryId type ${TYPED} } } }
} }`;

interface Measures {
	entries: number;
	assistantTurns: number;
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	totalTokens: number;
	cost: number;
	messagesByRole: Array<{ role: string; count: number }>;
	[measure: string]: unknown;
}
interface Stats {
	tree: Measures;
	path: Measures;
	tips: number;
	maxDepth: number;
	firstActivity: string | null;
	lastActivity: string | null;
}
interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: Record<string, number>;
}
interface Node {
	entryId: string;
	type: string;
	role?: string;
	usage?: Usage | null;
	[field: string]: unknown;
}

const toolUse = {
	role: "assistant",
	content: [
		{ type: "thinking", thinking: "look first" },
		{ type: "text", text: "Reading   the\nfile." },
		{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } },
		{ type: "toolCall", id: "c2", name: "bash", arguments: { command: "ls" } },
	],
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-sonnet-4-5",
	// An older pi file: no totalTokens, so it is derived as pi derives it.
	usage: {
		input: 100,
		output: 20,
		cacheRead: 300,
		cacheWrite: 4,
		cost: { input: 0.1, output: 0.2, cacheRead: 0.03, cacheWrite: 0.004, total: 0.334 },
	},
	stopReason: "toolUse",
	timestamp: 1_767_225_602_000,
};
const toolFailed = {
	role: "toolResult",
	toolCallId: "c2",
	toolName: "bash",
	content: [{ type: "text", text: "ls: cannot access" }],
	isError: true,
	timestamp: 1_767_225_603_000,
};

export function dashboardsSuite(backend: BackendName): void {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer(backend);
	});
	afterAll(async () => {
		await server?.close();
	});

	const append = (sessionId: string, message: unknown, entryId: string) =>
		ok(server, `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { entryId } } }`, {
			input: { sessionId, entryId, entry: { message } },
		});
	const stats = async (id: string) =>
		(await ok<{ session: { stats: Stats } }>(server, STATS, { id })).session.stats;
	async function allEntries(id: string): Promise<Node[]> {
		const nodes: Node[] = [];
		let after: string | null = null;
		for (;;) {
			type Page = {
				session: {
					entries: { pageInfo: { hasNextPage: boolean; endCursor: string }; edges: Array<{ node: Node }> };
				};
			};
			const page: Page = await ok<Page>(server, PAGE, { id, after });
			nodes.push(...page.session.entries.edges.map((e) => e.node));
			if (!page.session.entries.pageInfo.hasNextPage) return nodes;
			after = page.session.entries.pageInfo.endCursor;
		}
	}
	/** Sums of the typed usage of `nodes`: what a client adds up must be what the stats say. */
	const usageSums = (nodes: readonly Node[]) => {
		const sums = {
			inputTokens: 0,
			outputTokens: 0,
			cacheReadTokens: 0,
			cacheWriteTokens: 0,
			totalTokens: 0,
			cost: 0,
		};
		for (const { usage } of nodes) {
			if (!usage) continue;
			sums.inputTokens += usage.input;
			sums.outputTokens += usage.output;
			sums.cacheReadTokens += usage.cacheRead;
			sums.cacheWriteTokens += usage.cacheWrite;
			sums.totalTokens += usage.totalTokens;
			sums.cost += usage.cost.total as number;
		}
		return sums;
	};

	describe("typed messages and session stats", () => {
		it("types an assistant turn's usage, tool calls and preview, and a failed tool result", async () => {
			const sessionId = uniqueId("typed");
			await ok(server, `mutation($s: String!) { createSession(input: { sessionId: $s }) { sessionId } }`, {
				s: sessionId,
			});
			await append(sessionId, userMessage("List the files, please"), "u1");
			await append(sessionId, toolUse, "a1");
			await append(sessionId, toolFailed, "t1");
			const [user, assistant, result] = await allEntries(sessionId);
			expect(user).toMatchObject({
				role: "user",
				provider: null,
				usage: null,
				toolCallCount: 0,
				toolCallNames: [],
				isError: null,
				preview: "List the files, please",
				short: "List the fi…",
			});
			expect(assistant).toMatchObject({
				role: "assistant",
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				api: "anthropic-messages",
				stopReason: "toolUse",
				errorMessage: null,
				usage: {
					input: 100,
					output: 20,
					cacheRead: 300,
					cacheWrite: 4,
					totalTokens: 424,
					cost: { input: 0.1, output: 0.2, cacheRead: 0.03, cacheWrite: 0.004, total: 0.334 },
				},
				toolCallCount: 2,
				toolCallNames: ["read", "bash"],
				toolName: null,
				preview: "Reading the file.",
			});
			expect(result).toMatchObject({
				role: "toolResult",
				usage: null,
				toolName: "bash",
				toolCallId: "c2",
				isError: true,
				preview: "ls: cannot access",
			});
		});

		it("measures the whole tree and the active path apart once the session branched", async () => {
			const sessionId = uniqueId("branched");
			await ok(server, `mutation($s: String!) { createSession(input: { sessionId: $s }) { sessionId } }`, {
				s: sessionId,
			});
			const empty = await stats(sessionId);
			expect(empty).toMatchObject({ tips: 0, maxDepth: -1, firstActivity: null, lastActivity: null });
			expect(empty.tree.entries).toBe(0);

			await append(sessionId, userMessage("u1"), "u1");
			await append(sessionId, toolUse, "a1");
			await append(sessionId, toolFailed, "t1");
			// Back to u1 with a summary, then a plain answer: a1 and t1 stay in the tree, off the path.
			await ok(
				server,
				`mutation($input: MoveLeafInput!) { moveLeaf(input: $input) { session { leafId } } }`,
				{ input: { sessionId, targetId: "u1", summary: { summary: "tried tools" } } },
			);
			await append(sessionId, assistantMessage("a2"), "a2");
			const { tree, path, tips, maxDepth, firstActivity, lastActivity } = await stats(sessionId);
			expect(tree).toMatchObject({
				entries: 6,
				messages: 4,
				userTurns: 1,
				assistantTurns: 2,
				toolCalls: 2,
				toolResults: 1,
				toolErrors: 1,
				inputTokens: 100,
				totalTokens: 424,
				cost: 0.334,
				leafMoves: 1,
				branchSummaries: 1,
				compactions: 0,
			});
			expect(tree.messagesByRole).toEqual([
				{ role: "assistant", count: 2 },
				{ role: "toolResult", count: 1 },
				{ role: "user", count: 1 },
			]);
			// u1 → summary → a2.
			expect(path).toMatchObject({
				entries: 3,
				messages: 2,
				userTurns: 1,
				assistantTurns: 1,
				toolCalls: 0,
				toolErrors: 0,
				totalTokens: 0,
				cost: 0,
				leafMoves: 0,
				branchSummaries: 1,
			});
			expect(tips).toBe(2);
			expect(maxDepth).toBe(2);
			const log = await allEntries(sessionId);
			expect(log).toHaveLength(6);
			expect(Date.parse(firstActivity as string)).toBeLessThanOrEqual(Date.parse(lastActivity as string));
		});
	});

	describe("metrics", () => {
		const METRICS = `query($q: MetricsQuery!) { metrics(query: $q) {
			truncated rows { time sessionId session { sessionId } provider model role
				values { assistantTurns totalTokens cost activeSessions avgCostPerAssistantTurn entries } }
		} }`;
		/** A v3 file of one user message and assistant turns at the given times (UTC), with usage. */
		const file = (sessionId: string, turns: Array<[string, string, number, number]>) =>
			`${[
				{
					type: "session",
					version: 3,
					id: sessionId,
					timestamp: "2026-03-01T00:00:00.000Z",
					cwd: `/dash/${sessionId}`,
				},
				{
					type: "message",
					id: "u",
					parentId: null,
					timestamp: "2026-03-01T00:00:00.000Z",
					message: userMessage("go"),
				},
				...turns.map(([timestamp, model, tokens, cost], i) => ({
					type: "message",
					id: `a${i}`,
					parentId: i === 0 ? "u" : `a${i - 1}`,
					timestamp,
					message: {
						...assistantMessage(`turn ${i}`, model),
						usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: cost } },
					},
				})),
			]
				.map((line) => JSON.stringify(line))
				.join("\n")}\n`;

		it("answers tokens and cost by day and model in a time zone, ordered by cost", async () => {
			const one = uniqueId("dash");
			const two = uniqueId("dash");
			for (const [id, turns] of [
				[
					one,
					[
						// 23:30 UTC on March 1 is already March 2 in Berlin (UTC+1).
						["2026-03-01T23:30:00.000Z", "small", 100, 0.5],
						["2026-03-02T10:00:00.000Z", "large", 1000, 4],
					],
				],
				[two, [["2026-03-02T12:00:00.000Z", "small", 50, 0.25]]],
			] as const)
				await ok(
					server,
					`mutation($input: ImportSessionInput!) { importSession(input: $input) { sessionId } }`,
					{
						input: { jsonl: file(id, turns as never), sessionId: id },
					},
				);
			const { metrics } = await ok<{ metrics: { truncated: boolean; rows: Array<Record<string, unknown>> } }>(
				server,
				METRICS,
				{
					q: {
						measures: [
							"ASSISTANT_TURNS",
							"TOTAL_TOKENS",
							"COST",
							"ACTIVE_SESSIONS",
							"AVG_COST_PER_ASSISTANT_TURN",
						],
						dimensions: ["TIME", "MODEL"],
						timeZone: "Europe/Berlin",
						filter: { sessionIds: [one, two], providers: ["anthropic"] },
						orderBy: [{ measure: "COST", descending: true }],
					},
				},
			);
			expect(metrics).toEqual({
				truncated: false,
				rows: [
					{
						time: "2026-03-01T23:00:00.000Z",
						sessionId: null,
						session: null,
						provider: null,
						model: "large",
						role: null,
						values: {
							assistantTurns: 1,
							totalTokens: 1000,
							cost: 4,
							activeSessions: 1,
							avgCostPerAssistantTurn: 4,
							entries: null,
						},
					},
					{
						time: "2026-03-01T23:00:00.000Z",
						sessionId: null,
						session: null,
						provider: null,
						model: "small",
						role: null,
						values: {
							assistantTurns: 2,
							totalTokens: 150,
							cost: 0.75,
							activeSessions: 2,
							avgCostPerAssistantTurn: 0.375,
							entries: null,
						},
					},
				],
			});
			// By session, the busiest first, cut at one row.
			const bySession = await ok<{ metrics: { truncated: boolean; rows: Array<Record<string, unknown>> } }>(
				server,
				METRICS,
				{
					q: {
						measures: ["ENTRIES"],
						dimensions: ["SESSION"],
						filter: { sessionIds: [one, two] },
						orderBy: [{ measure: "ENTRIES", descending: true }],
						limit: 1,
					},
				},
			);
			expect(bySession.metrics.truncated).toBe(true);
			expect(bySession.metrics.rows).toMatchObject([
				{ sessionId: one, session: { sessionId: one }, values: { entries: 3 } },
			]);
		});

		it("answers by tool name, with exact turn percentiles and durations, and counts sessions created and forked", async () => {
			const id = uniqueId("tools");
			const at = (s: number) => `2026-04-01T10:00:${String(s).padStart(2, "0")}.000Z`;
			const call = (name: string, n: number) => ({ type: "toolCall", id: `c${n}`, name, arguments: {} });
			/** An assistant turn written at second `s` that took `took` seconds, with `tokens` and `cost`. */
			const turn = (s: number, took: number, tokens: number, cost: number, calls: unknown[]) => ({
				...assistantMessage("…"),
				content: calls,
				usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: cost } },
				timestamp: Date.parse(at(s)) - took * 1000,
			});
			const result = (name: string, isError: boolean) => ({
				role: "toolResult",
				toolCallId: "c",
				toolName: name,
				content: [],
				isError,
				timestamp: 0,
			});
			// Each message with the second its entry is written at (a turn's entry when `turn` says).
			const messages: Array<[number, unknown]> = [
				[0, userMessage("go")],
				[10, turn(10, 4, 100, 0.5, [call("read", 1), call("read", 2), call("bash", 3)])],
				[11, result("read", false)],
				[12, result("read", false)],
				[13, result("bash", true)],
				[20, turn(20, 1, 300, 0.25, [call("bash", 4)])],
				[21, result("bash", false)],
				[30, turn(30, 2, 200, 1, [])],
			];
			const jsonl = `${[
				{ type: "session", version: 3, id, timestamp: at(0), cwd: "/dash/tools" },
				...messages.map(([second, message], i) => ({
					type: "message",
					id: `m${i}`,
					parentId: i === 0 ? null : `m${i - 1}`,
					timestamp: at(second),
					message,
				})),
			]
				.map((line) => JSON.stringify(line))
				.join("\n")}\n`;
			await ok(
				server,
				`mutation($input: ImportSessionInput!) { importSession(input: $input) { sessionId } }`,
				{
					input: { jsonl, sessionId: id },
				},
			);
			const fork = uniqueId("tools-fork");
			await ok(server, `mutation($input: ForkSessionInput!) { forkSession(input: $input) { sessionId } }`, {
				input: { sessionId: id, entryId: "m1", newSessionId: fork },
			});
			type Rows = { metrics: { rows: Array<Record<string, unknown>> } };
			const query = (fields: string, q: Record<string, unknown>) =>
				ok<Rows>(server, `query($q: MetricsQuery!) { metrics(query: $q) { rows { ${fields} } } }`, { q });

			const byTool = await query(
				"toolName values { toolCalls toolResults toolErrors assistantTurns totalTokens }",
				{
					measures: ["TOOL_CALLS", "TOOL_RESULTS", "TOOL_ERRORS", "ASSISTANT_TURNS", "TOTAL_TOKENS"],
					dimensions: ["TOOL_NAME"],
					filter: { sessionIds: [id] },
				},
			);
			expect(byTool.metrics.rows).toEqual([
				{
					toolName: "bash",
					values: { toolCalls: 2, toolResults: 2, toolErrors: 1, assistantTurns: 0, totalTokens: 0 },
				},
				{
					toolName: "read",
					values: { toolCalls: 2, toolResults: 2, toolErrors: 0, assistantTurns: 0, totalTokens: 0 },
				},
				{
					toolName: null,
					values: { toolCalls: 0, toolResults: 0, toolErrors: 0, assistantTurns: 3, totalTokens: 600 },
				},
			]);

			const perTurn = await query(
				`values { p50TotalTokensPerAssistantTurn p95TotalTokensPerAssistantTurn minTotalTokensPerAssistantTurn
					maxCostPerAssistantTurn p50CostPerAssistantTurn avgAssistantTurnDurationMs p50AssistantTurnDurationMs
					p95AssistantTurnDurationMs minAssistantTurnDurationMs timedAssistantTurns assistantTurnDurationMs }`,
				{
					measures: [
						"P50_TOTAL_TOKENS_PER_ASSISTANT_TURN",
						"P95_TOTAL_TOKENS_PER_ASSISTANT_TURN",
						"MIN_TOTAL_TOKENS_PER_ASSISTANT_TURN",
						"MAX_COST_PER_ASSISTANT_TURN",
						"P50_COST_PER_ASSISTANT_TURN",
						"AVG_ASSISTANT_TURN_DURATION_MS",
						"P50_ASSISTANT_TURN_DURATION_MS",
						"P95_ASSISTANT_TURN_DURATION_MS",
						"MIN_ASSISTANT_TURN_DURATION_MS",
						"TIMED_ASSISTANT_TURNS",
						"ASSISTANT_TURN_DURATION_MS",
					],
					filter: { sessionIds: [id] },
				},
			);
			expect(perTurn.metrics.rows).toEqual([
				{
					values: {
						p50TotalTokensPerAssistantTurn: 200,
						p95TotalTokensPerAssistantTurn: 300,
						minTotalTokensPerAssistantTurn: 100,
						maxCostPerAssistantTurn: 1,
						p50CostPerAssistantTurn: 0.5,
						avgAssistantTurnDurationMs: 7000 / 3,
						p50AssistantTurnDurationMs: 2000,
						p95AssistantTurnDurationMs: 4000,
						minAssistantTurnDurationMs: 1000,
						timedAssistantTurns: 3,
						assistantTurnDurationMs: 7000,
					},
				},
			]);

			// The import was created at its header's time; the fork now, with a parent.
			const created = await query("sessionId values { sessionsCreated forks entries }", {
				measures: ["SESSIONS_CREATED", "FORKS", "ENTRIES"],
				dimensions: ["SESSION"],
				filter: { sessionIds: [id, fork] },
				orderBy: [{ dimension: "SESSION" }],
			});
			expect(created.metrics.rows).toEqual(
				[
					{ sessionId: id, values: { sessionsCreated: 1, forks: 0, entries: 8 } },
					{ sessionId: fork, values: { sessionsCreated: 1, forks: 1, entries: 2 } },
				].sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1)),
			);
			const april = await query("time values { sessionsCreated }", {
				measures: ["SESSIONS_CREATED"],
				dimensions: ["TIME"],
				filter: { sessionIds: [id, fork], from: "2026-04-01T00:00:00Z", to: "2026-04-02T00:00:00Z" },
			});
			expect(april.metrics.rows).toEqual([
				{ time: "2026-04-01T00:00:00.000Z", values: { sessionsCreated: 1 } },
			]);

			const { tree, path } = (
				await ok<{ session: { stats: Record<string, Record<string, number | null>> } }>(
					server,
					`query($id: String!) { session(sessionId: $id) { stats {
						tree { p95TotalTokensPerAssistantTurn avgCostPerAssistantTurn maxAssistantTurnDurationMs timedAssistantTurns }
						path { p95TotalTokensPerAssistantTurn avgCostPerAssistantTurn maxAssistantTurnDurationMs timedAssistantTurns }
					} } }`,
					{ id: fork },
				)
			).session.stats;
			// The fork holds the user message and the first turn.
			const first = {
				p95TotalTokensPerAssistantTurn: 100,
				avgCostPerAssistantTurn: 0.5,
				maxAssistantTurnDurationMs: 4000,
				timedAssistantTurns: 1,
			};
			expect(tree).toEqual(first);
			expect(path).toEqual(first);
		});

		it("refuses a malformed query with INVALID_INPUT naming the field", async () => {
			const base = { measures: ["ENTRIES"] };
			for (const [q, field] of [
				[{ ...base, filter: { from: "2026-03-01T00:05:00.000Z" } }, "filter.from"],
				[{ ...base, timeZone: "Nowhere/Else" }, "timeZone"],
				[{ ...base, limit: 100_000 }, "limit"],
				[{ ...base, orderBy: [{ measure: "ENTRIES", dimension: "MODEL" }] }, "orderBy"],
				[{ ...base, orderBy: [{ dimension: "MODEL" }] }, "orderBy"],
			] as const)
				expectError(await server.request(METRICS, { q }), "INVALID_INPUT", { field });
		});
	});

	if (!piPresent && process.env.CI) {
		it("has the real pi files in CI", () => {
			expect.fail(`The real pi session files are missing from ${piDir}; set PI_FIXTURES_DIR.`);
		});
	}
	describe.skipIf(!piPresent)(
		piPresent ? "real pi files" : `real pi files (skipped: none in ${piDir}; set PI_FIXTURES_DIR)`,
		() => {
			let temp: string;
			beforeAll(() => {
				temp = mkdtempSync(join(tmpdir(), "pi-dash-"));
			});
			afterAll(() => {
				if (temp) rmSync(temp, { recursive: true, force: true });
			});

			it.each(PI_FILES)(
				"%s: the tree's totals are pi's footer totals and the sums of the typed fields",
				async (name) => {
					const text = readFileSync(join(piDir, name), "utf8");
					const { importSession } = await ok<{ importSession: { sessionId: string } }>(
						server,
						`mutation($input: ImportSessionInput!) { importSession(input: $input) { sessionId } }`,
						{ input: { jsonl: text } },
					);
					const { tree } = await stats(importSession.sessionId);
					const nodes = await allEntries(importSession.sessionId);
					expect(nodes).toHaveLength(tree.entries);
					const typed = usageSums(nodes);
					for (const [key, value] of Object.entries(typed))
						expect(tree[key] as number, key).toBeCloseTo(value, 9);

					// pi's footer: every assistant message of the file, with pi's own reading of it.
					const copy = join(temp, name);
					copyFileSync(join(piDir, name), copy);
					const pi = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, assistants: 0 };
					for (const entry of SessionManager.open(copy, temp).getEntries()) {
						if (entry.type !== "message" || entry.message.role !== "assistant") continue;
						pi.assistants++;
						pi.input += entry.message.usage.input;
						pi.output += entry.message.usage.output;
						pi.cacheRead += entry.message.usage.cacheRead;
						pi.cacheWrite += entry.message.usage.cacheWrite;
						pi.cost += entry.message.usage.cost.total;
					}
					expect(pi.assistants).toBeGreaterThan(10);
					expect(tree.assistantTurns).toBe(pi.assistants);
					expect(tree.inputTokens).toBe(pi.input);
					expect(tree.outputTokens).toBe(pi.output);
					expect(tree.cacheReadTokens).toBe(pi.cacheRead);
					expect(tree.cacheWriteTokens).toBe(pi.cacheWrite);
					expect(tree.cost).toBeCloseTo(pi.cost, 9);
					expect(tree.totalTokens).toBeGreaterThanOrEqual(pi.input + pi.output);
				},
			);
		},
	);
}
