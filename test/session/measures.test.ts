/**
 * Measures over entries (src/session/analytics/measures.ts): the counting rules, odd
 * shapes, the algebra a rollup relies on (fast-check), and the two real pi
 * files held against the totals pi itself computes: its cost breakdown
 * (pi-coding-agent 1.6 `getUsageCostBreakdown`, the usage its session stats
 * count, by model), over every entry and over the active path.
 *
 * The real files are read from PI_FIXTURES_DIR, default
 * `<repo>/../shared/fixtures/pi`, as in test/pi-fixtures.test.ts: without
 * them that part is skipped, except in CI, where a missing directory fails.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	addEntry,
	emptyMeasures,
	type Measures,
	measureEntries,
	mergeMeasures,
} from "../../src/session/analytics/measures.js";
import { rollupRows } from "../../src/session/analytics/rollup.js";
import type { AgentMessage, Entry, StoredEntry } from "../../src/session/entry.js";
import { parseSessionFile } from "../../src/session/jsonl.js";
import { summarizeMessage } from "../../src/session/message-summary.js";
import { boundByCompaction, pathToRoot } from "../../src/session/tree.js";
import { getUsageCostBreakdown, SessionManager } from "../support/pi-oracle.js";

let counter = 0;
const TIME = "2026-01-05T12:00:00.000Z";
const entry = (type: string, fields: Record<string, unknown> = {}): Entry =>
	({ type, id: `e${counter++}`, parentId: null, timestamp: TIME, ...fields }) as Entry;
const message = (m: unknown): Entry => entry("message", { message: m });

const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, cost: number) => ({
	input,
	output,
	cacheRead,
	cacheWrite,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});
const assistant = (content: unknown[], u: unknown) => message({ role: "assistant", content, usage: u });
const toolCall = (name: string) => ({ type: "toolCall", id: name, name, arguments: {} });
const toolResult = (isError: unknown) =>
	message({ role: "toolResult", toolCallId: "c", toolName: "bash", content: [], isError });

/** Measures with the given fields, the rest zero; messagesByRole compared by its entries. */
function measures(fields: Partial<Measures>): Measures {
	const m = emptyMeasures();
	const { messagesByRole, ...rest } = fields;
	Object.assign(m, rest);
	Object.assign(m.messagesByRole, messagesByRole);
	return m;
}

describe("measureEntries", () => {
	it("counts nothing in an empty list, and gives a new object each time", () => {
		const a = emptyMeasures();
		expect(measureEntries([])).toEqual(a);
		expect(Object.values({ ...a, messagesByRole: 0 }).every((v) => v === 0)).toBe(true);
		expect(Object.keys(a.messagesByRole)).toEqual([]);
		a.messagesByRole.user = 1;
		expect(emptyMeasures().messagesByRole).toEqual({});
	});

	it("counts every entry type, messages by role, tool calls, tool errors, usage and cost", () => {
		const log = [
			message({ role: "user", content: "go" }),
			assistant(
				[toolCall("read"), toolCall("bash"), { type: "text", text: "x" }],
				usage(10, 5, 100, 7, 0.25),
			),
			toolResult(false),
			toolResult(true),
			assistant([{ type: "text", text: "done" }], { ...usage(1, 2, 3, 4, 0.5), totalTokens: 50 }),
			message({
				role: "toolResult",
				toolCallId: "c",
				toolName: "ask",
				content: [],
				usage: usage(0, 4, 0, 0, 0.125),
			}),
			message({ role: "bashExecution", command: "ls", output: "" }),
			entry("leaf", { targetId: "e0" }),
			entry("leaf", { targetId: null }),
			entry("label", { targetId: "e0", label: "start" }),
			entry("branch_summary", { fromId: "e1", summary: "s", usage: usage(1, 1, 0, 0, 0.125) }),
			entry("compaction", { summary: "c", tokensBefore: 9, usage: usage(2, 0, 0, 0, 0.125) }),
			entry("usage", { kind: "cache_warm", provider: "p", model: "m", usage: usage(0, 0, 8, 0, 0.0625) }),
			// A type the service does not know: counted as an entry, its fields unread.
			entry("checkpoint", { usage: usage(100, 100, 100, 100, 9) }),
			entry("custom_message", { customType: "n", content: "hi", display: true }),
			entry("custom", { customType: "n" }),
			entry("session_info", { name: "x" }),
			entry("thinking_level_change", { thinkingLevel: "high" }),
			entry("model_change", { provider: "p", modelId: "m" }),
			entry("active_tools_change", { activeToolNames: [] }),
		];
		expect(measureEntries(log)).toEqual(
			measures({
				entries: 20,
				messages: 7,
				messagesByRole: { user: 1, assistant: 2, toolResult: 3, bashExecution: 1 },
				userTurns: 1,
				assistantTurns: 2,
				toolCalls: 2,
				toolResults: 3,
				toolErrors: 1,
				// As pi's session stats: assistant messages, the tool result's usage, the summaries', the usage entry's.
				inputTokens: 14,
				outputTokens: 12,
				cacheReadTokens: 111,
				cacheWriteTokens: 11,
				// The four parts' sum: 122 and 10 of the assistants (the second's 50 as given is not), 16 of the others.
				totalTokens: 148,
				cost: 1.1875,
				assistantTurnTokens: 132,
				assistantTurnCost: 0.75,
				leafMoves: 2,
				branchSummaries: 1,
				compactions: 1,
				labels: 1,
			}),
		);
	});

	it("does not count custom_message or branch_summary entries as messages", () => {
		const m = measureEntries([
			entry("custom_message", { customType: "n", content: "hi", display: true }),
			entry("branch_summary", { fromId: "a", summary: "s" }),
		]);
		expect(m).toMatchObject({ entries: 2, messages: 0, branchSummaries: 1 });
	});

	it("equals the sum of the typed summaries' fields (the invariant the GraphQL fields rely on)", () => {
		const log = [
			assistant([toolCall("a")], { input: "7", output: 3, cacheRead: Number.NaN, cacheWrite: -2, cost: 1 }),
			assistant([], { input: 1.5, output: 1, totalTokens: 0, cost: { total: 0.125 } }),
			message({ role: "assistant" }),
		];
		const summaries = log.map((e) => summarizeMessage((e as { message: AgentMessage }).message));
		const sum = (pick: (u: NonNullable<(typeof summaries)[number]["usage"]>) => number) =>
			summaries.reduce((total, s) => total + (s.usage ? pick(s.usage) : 0), 0);
		expect(measureEntries(log)).toMatchObject({
			inputTokens: sum((u) => u.input),
			outputTokens: sum((u) => u.output),
			cacheReadTokens: sum((u) => u.cacheRead),
			cacheWriteTokens: sum((u) => u.cacheWrite),
			totalTokens: sum((u) => u.input + u.output + u.cacheRead + u.cacheWrite),
			cost: sum((u) => u.cost.total),
			toolCalls: summaries.reduce((n, s) => n + s.toolCallCount, 0),
		});
		expect(measureEntries(log)).toMatchObject({
			inputTokens: 1.5,
			outputTokens: 4,
			totalTokens: 5.5,
			cost: 0.125,
		});
	});

	it("counts odd shapes without throwing: no message, no role, roles named like Object members", () => {
		const log = [
			message(null),
			message("text"),
			entry("message"),
			message({ role: 7 }),
			message({ role: "__proto__" }),
			message({ role: "toString" }),
			message({ role: "constructor" }),
			message({ role: "assistant", content: "no array", usage: "lots" }),
			message({ role: "toolResult", isError: "yes" }),
			entry("not_a_type"),
			null as unknown as Entry,
			42 as unknown as Entry,
		];
		const m = measureEntries(log);
		expect(m).toMatchObject({
			entries: 12,
			messages: 9,
			assistantTurns: 1,
			toolCalls: 0,
			toolResults: 1,
			toolErrors: 0,
			inputTokens: 0,
			cost: 0,
		});
		expect(Object.entries(m.messagesByRole)).toEqual([
			["", 4],
			["__proto__", 1],
			["toString", 1],
			["constructor", 1],
			["assistant", 1],
			["toolResult", 1],
		]);
	});
});

describe("addEntry and mergeMeasures", () => {
	it("addEntry changes only the measures it is given", () => {
		const a = emptyMeasures();
		addEntry(a, message({ role: "user", content: "hi" }));
		addEntry(a, entry("leaf", { targetId: null }));
		expect(a).toEqual(
			measures({ entries: 2, messages: 1, messagesByRole: { user: 1 }, userTurns: 1, leafMoves: 1 }),
		);
	});

	it("mergeMeasures adds every field and role count into the first, leaving the second as it was", () => {
		const a = measureEntries([
			message({ role: "user", content: "a" }),
			assistant([], usage(1, 2, 3, 4, 0.5)),
		]);
		const b = measureEntries([message({ role: "user", content: "b" }), message({ role: "custom" })]);
		const bBefore = structuredClone({ ...b, messagesByRole: { ...b.messagesByRole } });
		mergeMeasures(a, b);
		expect(a).toEqual(
			measures({
				entries: 4,
				messages: 4,
				messagesByRole: { user: 2, assistant: 1, custom: 1 },
				userTurns: 2,
				assistantTurns: 1,
				inputTokens: 1,
				outputTokens: 2,
				cacheReadTokens: 3,
				cacheWriteTokens: 4,
				totalTokens: 10,
				cost: 0.5,
				assistantTurnTokens: 10,
				assistantTurnCost: 0.5,
			}),
		);
		expect({ ...b, messagesByRole: { ...b.messagesByRole } }).toEqual(bBefore);
	});

	// Costs are multiples of 1/1024 so that float sums are exact in any grouping; with
	// arbitrary decimals the two sides may differ in the last bits (see measures.ts).
	const exact = fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 1024);
	const number = fc.oneof(
		fc.nat(5_000_000),
		exact,
		fc.constantFrom<unknown>(Number.NaN, Infinity, -3, "12", null, undefined, true),
	);
	const arbUsage = fc.oneof(
		fc.record(
			{
				input: number,
				output: number,
				cacheRead: number,
				cacheWrite: number,
				totalTokens: number,
				cost: fc.oneof(fc.record({ total: number, input: number }, { requiredKeys: [] }), fc.constant("x")),
			},
			{ requiredKeys: [] },
		),
		fc.constantFrom<unknown>(undefined, null, "usage", [1]),
	);
	const content = fc.array(
		fc.oneof(
			fc.record({ type: fc.constant("toolCall"), name: fc.oneof(fc.string(), fc.constant(undefined)) }),
			fc.record({ type: fc.constantFrom("text", "thinking"), text: fc.string() }),
			fc.constantFrom<unknown>(null, 3),
		),
		{ maxLength: 4 },
	);
	const arbMessage = fc.oneof(
		fc.record({ role: fc.constant("assistant"), content: fc.oneof(content, fc.string()), usage: arbUsage }),
		fc.record({ role: fc.constant("toolResult"), isError: fc.constantFrom<unknown>(true, false, "true") }),
		fc.record({ role: fc.constantFrom("user", "custom", "bashExecution", "__proto__", "toString", "") }),
		fc.constantFrom<unknown>(null, "m", { role: 5 }),
	);
	const arbEntry: fc.Arbitrary<Entry> = fc.oneof(
		{ weight: 6, arbitrary: arbMessage.map(message) },
		{
			weight: 3,
			arbitrary: fc
				.constantFrom(
					"leaf",
					"label",
					"branch_summary",
					"compaction",
					"session_info",
					"custom",
					"custom_message",
					"model_change",
					"thinking_level_change",
					"active_tools_change",
					"unknown",
				)
				.map((type) => entry(type)),
		},
	);
	const log = fc.array(arbEntry, { maxLength: 30 });

	it("measures of a ++ b equal the merge of the measures of a and of b", () => {
		fc.assert(
			fc.property(log, log, (a, b) => {
				const merged = measureEntries(a);
				mergeMeasures(merged, measureEntries(b));
				expect(merged).toEqual(measureEntries([...a, ...b]));
			}),
		);
	});

	it("adding entries one by one equals measuring the list", () => {
		fc.assert(
			fc.property(log, (entries) => {
				const rolled = emptyMeasures();
				for (const e of entries) addEntry(rolled, e);
				expect(rolled).toEqual(measureEntries(entries));
				expect(rolled.entries).toBe(entries.length);
			}),
		);
	});
});

// ---------------------------------------------------------------------------
// The real pi files

const repo = fileURLToPath(new URL("../..", import.meta.url));
const dir = resolve(process.env.PI_FIXTURES_DIR ?? join(repo, "..", "shared", "fixtures", "pi"));

type Totals = Omit<Measures, "messagesByRole" | "cost"> & { messagesByRole: Record<string, number> };

interface RealFile {
	name: string;
	/** measureEntries over every entry of the file. */
	all: Partial<Totals>;
	allCost: number;
	/** measureEntries over the active path bounded at the latest compaction. */
	active: Partial<Totals>;
	activeCost: number;
}

const FILES: RealFile[] = [
	{
		name: "large-session.v1.jsonl",
		all: {
			entries: 1018,
			messages: 914,
			messagesByRole: { user: 88, assistant: 453, toolResult: 373 },
			userTurns: 88,
			assistantTurns: 453,
			toolCalls: 391,
			toolResults: 373,
			toolErrors: 19,
			inputTokens: 1049,
			outputTokens: 83156,
			cacheReadTokens: 43229469,
			cacheWriteTokens: 4296232,
			totalTokens: 47609906,
			compactions: 0,
		},
		allCost: 30.3301977,
		// No compaction: the active path is the whole file.
		active: { entries: 1018, messages: 914, totalTokens: 47609906 },
		activeCost: 30.3301977,
	},
	{
		name: "before-compaction.v1.jsonl",
		all: {
			entries: 1002,
			messages: 990,
			messagesByRole: { user: 55, assistant: 484, toolResult: 448, bashExecution: 3 },
			userTurns: 55,
			assistantTurns: 484,
			toolCalls: 454,
			toolResults: 448,
			toolErrors: 12,
			inputTokens: 3689,
			outputTokens: 187895,
			cacheReadTokens: 54693675,
			cacheWriteTokens: 1685320,
			totalTokens: 56570579,
			compactions: 2,
		},
		allCost: 42.5959075,
		active: {
			entries: 452,
			messages: 445,
			messagesByRole: { user: 31, assistant: 219, toolResult: 192, bashExecution: 3 },
			userTurns: 31,
			assistantTurns: 219,
			toolCalls: 194,
			toolResults: 192,
			toolErrors: 5,
			inputTokens: 458,
			outputTokens: 73557,
			cacheReadTokens: 24940954,
			cacheWriteTokens: 1159975,
			totalTokens: 26174944,
			compactions: 1,
		},
		activeCost: 21.56153575,
	},
];

const present = FILES.every((f) => existsSync(join(dir, f.name)));

if (!present && process.env.CI) {
	describe("measures of the real pi files", () => {
		it("are present in CI", () => {
			expect.fail(
				`The real pi session files are missing from ${dir} (expected ${FILES.map((f) => f.name).join(", ")}). ` +
					"CI must provide them: check out ../shared/fixtures/pi beside the repo or set PI_FIXTURES_DIR.",
			);
		});
	});
}

/**
 * pi's own totals of some entries: its cost breakdown (pi-coding-agent
 * dist/core/usage-totals.js), which adds the usage its session stats add
 * (`AgentSession.getSessionStats`, which needs a running agent), grouped by
 * provider and model: tokens are the four parts' sum.
 */
function piTotals(entries: readonly Entry[]) {
	const rows = getUsageCostBreakdown(entries as never);
	return {
		tokens: rows.reduce((sum, r) => sum + r.tokens, 0),
		cost: rows.reduce((sum, r) => sum + r.cost, 0),
		byModel: new Map(rows.map((r) => [r.key, { tokens: r.tokens, cost: r.cost }])),
	};
}

/** Our rollups' tokens and cost by model, keyed as pi's breakdown keys them. */
function totalsByModel(rows: readonly StoredEntry[]) {
	const byModel = new Map<string, { tokens: number; cost: number }>();
	for (const row of rollupRows(rows)) {
		const key = row.provider === "" ? "Tools/summaries" : `${row.provider}/${row.model}`;
		const totals = byModel.get(key) ?? { tokens: 0, cost: 0 };
		totals.tokens += row.totalTokens;
		totals.cost += row.cost;
		byModel.set(key, totals);
	}
	for (const [key, totals] of byModel) if (totals.tokens === 0 && totals.cost === 0) byModel.delete(key);
	return byModel;
}

describe.skipIf(!present)(
	present ? "measures of the real pi files" : "measures of the real pi files (set PI_FIXTURES_DIR)",
	() => {
		let temp: string;
		beforeAll(() => {
			temp = mkdtempSync(join(tmpdir(), "pi-measures-"));
		});
		afterAll(() => {
			if (temp) rmSync(temp, { recursive: true, force: true });
		});

		describe.each(FILES)("$name", (file) => {
			let pi: SessionManager;
			let rows: StoredEntry[];
			let activePath: Entry[];

			beforeAll(() => {
				// pi rewrites a file it migrates, so it opens a copy.
				const copy = join(temp, file.name);
				copyFileSync(join(dir, file.name), copy);
				pi = SessionManager.open(copy, temp);
				const parsed = parseSessionFile(readFileSync(join(dir, file.name), "utf8"));
				rows = parsed.rows;
				const byId = new Map(rows.map((r) => [r.entry.id, r]));
				// The active path as the store serves it by default: root → leaf, bounded at the
				// latest compaction's kept entry (store.activePath without `full`).
				activePath = boundByCompaction(pathToRoot(parsed.leafId, (id) => byId.get(id))).map((r) => r.entry);
			});

			it("totals over all entries equal pi's (tokens and cost), by model too", () => {
				const ours = measureEntries(rows.map((r) => r.entry));
				const pis = piTotals(pi.getEntries() as unknown as Entry[]);
				expect(ours.totalTokens).toBe(pis.tokens);
				expect(ours.cost).toBeCloseTo(pis.cost, 9);
				expect(ours.entries).toBe(pi.getEntries().length);
				expect(ours).toMatchObject(file.all);
				expect(ours.cost).toBeCloseTo(file.allCost, 6);
				const byModel = totalsByModel(rows);
				expect([...byModel.keys()].sort()).toEqual([...pis.byModel.keys()].sort());
				for (const [key, totals] of byModel) {
					expect(totals.tokens, key).toBe(pis.byModel.get(key)?.tokens);
					expect(totals.cost, key).toBeCloseTo(pis.byModel.get(key)?.cost ?? Number.NaN, 9);
				}
			});

			it("totals over the active path equal pi's over the same entries", () => {
				const ours = measureEntries(activePath);
				const pis = piTotals(activePath);
				expect(ours.totalTokens).toBe(pis.tokens);
				expect(ours.cost).toBeCloseTo(pis.cost, 9);
				expect(ours).toMatchObject(file.active);
				expect(ours.cost).toBeCloseTo(file.activeCost, 6);
			});

			it("the active path's message entries are exactly the context's stored messages", () => {
				// Why the active path is the right set: pi's context is the summary of the latest
				// compaction plus the messages from its kept entry on; the summary (and branch
				// summaries, custom messages) are not `message` entries and count in no stat.
				const fromEntries = activePath.flatMap((e) => (e.type === "message" ? [e.message] : []));
				const context = pi
					.buildSessionContext()
					.messages.filter((m) => !["compactionSummary", "branchSummary", "custom"].includes(m.role));
				expect(fromEntries).toEqual(JSON.parse(JSON.stringify(context)));
			});
		});
	},
);
