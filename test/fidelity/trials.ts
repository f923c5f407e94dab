/**
 * Fidelity trials: a random session written by one of pi's own session
 * stores, imported into the service, and held against what that pi makes
 * of it (design/tree-rules.md#two-pis).
 *
 * - `piTrial`: pi's coding agent 1.6.0 (`SessionManager`, a real file)
 *   writes every entry type it has, moves with `branch`, `resetLeaf` and
 *   `branchWithSummary`, compacts with and without a system checkpoint, and
 *   a later pi's line of an unknown type is added to its file. The service
 *   must agree with pi on the log, tree, leaf, name, context (from the leaf
 *   and from other nodes), totals, and its export.
 * - `harnessTrial`: the seed's harness 0.83.0 (`Session` over its in-memory
 *   storage) moves with `moveTo` (leaf records), with and without summaries,
 *   and writes settings, compactions (some with `retainedTail`), custom
 *   entries with a projector, labels and names. The service must agree with
 *   the harness where it follows the harness (the pointer's replay, the log,
 *   totals, custom projectors, the lossless export read back by the
 *   harness's JSONL storage), and with the coding agent where the
 *   documented rules say so: settings from the whole path, not the
 *   compaction-bounded one, and no `retainedTail`. A trial reports which of
 *   those documented differences it met.
 *
 * A trial throws (an `expect`) on the first disagreement.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { expect } from "vitest";
import { projectContext } from "../../src/session/context.js";
import type { AgentMessage, Entry } from "../../src/session/entry.js";
import { readSessionStats } from "../../src/store/analytics/session-stats.js";
import type { SessionStore } from "../../src/store/store.js";
import {
	buildHarnessContext,
	harnessReader,
	InMemorySessionStorage,
	JsonlSessionStorage,
	Session,
} from "../support/pi-harness.js";
import { buildSessionContext, getUsageCostBreakdown, SessionManager } from "../support/pi-oracle.js";
import {
	appendUnknownLine,
	asJson,
	comparableContext,
	fileText,
	jsonLines,
	readWithPi,
} from "../support/pi-sessions.js";

const MODELS = ["m-small", "m-large"];

/** Usage in eighths of a cent, so that sums in any order are exact. */
const usageArb = fc
	.record({
		input: fc.nat(900),
		output: fc.nat(400),
		cacheRead: fc.nat(5000),
		cacheWrite: fc.nat(50),
		eighths: fc.nat(64),
	})
	.map(({ eighths, ...parts }) => ({
		...parts,
		// Bedrock's total leaves the cache out: the total pi counts is the parts' sum all the same.
		totalTokens: parts.input + parts.output,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: eighths / 8 },
	}));
type Usage = typeof usageArb extends fc.Arbitrary<infer U> ? U : never;

/** pi's totals of some entries, from its own cost breakdown. */
function piTotals(entries: readonly unknown[]) {
	const rows = getUsageCostBreakdown(entries as never);
	return { tokens: rows.reduce((n, r) => n + r.tokens, 0), cost: rows.reduce((n, r) => n + r.cost, 0) };
}

// ---- pi's coding agent --------------------------------------------------------

type PiOp =
	| { k: "user"; empty: boolean }
	| { k: "assistant"; model: number; respond: boolean; calls: number; usage: Usage }
	| { k: "toolResult"; usage: Usage | null }
	| { k: "bash" | "custom" | "customMessage" | "unknown" }
	| { k: "system"; sections: boolean; tools: boolean }
	| { k: "setting"; model: boolean; value: number }
	| { k: "usage"; model: number; usage: Usage }
	| { k: "edit"; pick: number; omit: boolean }
	| { k: "label"; pick: number; clear: boolean }
	| { k: "name"; lines: number }
	| { k: "compaction"; pick: number | null; usage: Usage | null }
	| { k: "branch"; pick: number }
	| { k: "reset" }
	| { k: "summary"; pick: number | null; usage: Usage | null; fromHook: boolean };

const pick = fc.nat();
const maybeUsage = fc.option(usageArb, { nil: null });

export const piOps: fc.Arbitrary<PiOp[]> = fc.array(
	fc.oneof(
		{ weight: 5, arbitrary: fc.record({ k: fc.constant("user" as const), empty: fc.boolean() }) },
		{
			weight: 5,
			arbitrary: fc.record({
				k: fc.constant("assistant" as const),
				model: fc.nat(MODELS.length - 1),
				respond: fc.boolean(),
				calls: fc.nat(2),
				usage: usageArb,
			}),
		},
		{ weight: 2, arbitrary: fc.record({ k: fc.constant("toolResult" as const), usage: maybeUsage }) },
		{
			weight: 2,
			arbitrary: fc.record({
				k: fc.constantFrom("bash" as const, "custom" as const, "customMessage" as const, "unknown" as const),
			}),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				k: fc.constant("system" as const),
				sections: fc.boolean(),
				tools: fc.boolean(),
			}),
		},
		{
			weight: 1,
			arbitrary: fc.record({ k: fc.constant("setting" as const), model: fc.boolean(), value: fc.nat(3) }),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				k: fc.constant("usage" as const),
				model: fc.nat(MODELS.length - 1),
				usage: usageArb,
			}),
		},
		{ weight: 2, arbitrary: fc.record({ k: fc.constant("edit" as const), pick, omit: fc.boolean() }) },
		{ weight: 1, arbitrary: fc.record({ k: fc.constant("label" as const), pick, clear: fc.boolean() }) },
		{ weight: 1, arbitrary: fc.record({ k: fc.constant("name" as const), lines: fc.nat(2) }) },
		{
			weight: 1,
			arbitrary: fc.record({
				k: fc.constant("compaction" as const),
				pick: fc.option(pick, { nil: null }),
				usage: maybeUsage,
			}),
		},
		{ weight: 2, arbitrary: fc.record({ k: fc.constant("branch" as const), pick }) },
		{ weight: 1, arbitrary: fc.record({ k: fc.constant("reset" as const) }) },
		{
			weight: 2,
			arbitrary: fc.record({
				k: fc.constant("summary" as const),
				pick: fc.option(pick, { nil: null }),
				usage: maybeUsage,
				fromHook: fc.boolean(),
			}),
		},
	),
	{ minLength: 1, maxLength: 30 },
);

const chosen = <T>(items: readonly T[], n: number): T | undefined => items[n % Math.max(1, items.length)];

/** The ops run through pi's SessionManager into a file of `dir`; its path (a user message comes first, so one exists). */
function writeWithPi(dir: string, ops: readonly PiOp[]): string {
	let pi = SessionManager.create("/work/fidelity", dir);
	pi.appendMessage({ role: "user", content: "start", timestamp: 0 } as never);
	ops.forEach((op, step) => {
		const entries = pi.getEntries();
		switch (op.k) {
			case "user":
				pi.appendMessage(
					(op.empty
						? { role: "user", timestamp: step }
						: { role: "user", content: `u${step}`, timestamp: step }) as never,
				);
				return;
			case "assistant":
				pi.appendMessage({
					role: "assistant",
					content: [
						{ type: "text", text: `a${step}` },
						...Array.from({ length: op.calls }, (_, i) => ({
							type: "toolCall",
							id: `c${step}.${i}`,
							name: "read",
							arguments: {},
						})),
					],
					api: "anthropic-messages",
					provider: "anthropic",
					model: MODELS[op.model],
					...(op.respond ? { responseModel: `${MODELS[op.model]}-2026` } : {}),
					usage: op.usage,
					stopReason: "stop",
					timestamp: step,
				} as never);
				return;
			case "toolResult":
				pi.appendMessage({
					role: "toolResult",
					toolCallId: `c${step}`,
					toolName: "ask",
					content: [{ type: "text", text: `r${step}` }],
					isError: false,
					...(op.usage ? { usage: op.usage } : {}),
					timestamp: step,
				} as never);
				return;
			case "bash":
				pi.appendMessage({
					role: "bashExecution",
					command: `ls ${step}`,
					output: "",
					exitCode: 0,
					cancelled: false,
					truncated: false,
					timestamp: step,
				} as never);
				return;
			case "system":
				pi.appendMessage({
					role: "system",
					content: `instructions ${step}`,
					...(op.sections ? { sections: { [`s${step % 3}`]: `<s>${step}</s>` } } : {}),
					...(op.tools ? { toolsAdded: [{ name: `tool${step}`, description: "", parameters: {} }] } : {}),
					timestamp: step,
				} as never);
				return;
			case "custom":
				pi.appendCustomEntry("state", { step });
				return;
			case "customMessage":
				pi.appendCustomMessageEntry(
					"note",
					step % 2 ? `note ${step}` : [{ type: "text", text: `n${step}` }],
					step % 3 === 0,
					{ step },
				);
				return;
			case "setting":
				if (op.model) pi.appendModelChange("openai", `mc${op.value}`);
				else pi.appendThinkingLevelChange(["off", "low", "medium", "high"][op.value] as string);
				return;
			case "usage":
				pi.appendUsage(
					"cache_warm",
					"anthropic",
					MODELS[op.model] as string,
					op.usage as never,
					step % 2 ? "note" : undefined,
				);
				return;
			case "edit": {
				const editable = pi
					.getBranch()
					.filter(
						(e) =>
							e.type === "custom_message" ||
							(e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)),
					);
				const target = chosen(editable, op.pick);
				if (target) pi.appendContextEdit(target.id, op.omit ? null : { content: `edited ${step}` });
				return;
			}
			case "label": {
				const target = chosen(entries, op.pick);
				if (target) pi.appendLabelChange(target.id, op.clear ? undefined : `L${step}`);
				return;
			}
			case "name":
				pi.appendSessionInfo(`name ${step}${"\r\n".repeat(op.lines)} more`);
				return;
			case "compaction": {
				const branch = pi.getBranch();
				const kept = op.pick === null ? null : (chosen(branch, op.pick)?.id ?? null);
				pi.appendCompaction(`summary ${step}`, kept, step * 100, { step }, false, op.usage ?? undefined);
				return;
			}
			case "branch": {
				const target = chosen(entries, op.pick);
				if (target) pi.branch(target.id);
				return;
			}
			case "reset":
				pi.resetLeaf();
				return;
			case "summary": {
				const target = op.pick === null ? null : (chosen(entries, op.pick)?.id ?? null);
				pi.branchWithSummary(target, `left at ${step}`, { step }, op.fromHook, op.usage ?? undefined);
				return;
			}
			case "unknown":
				pi = appendUnknownLine(pi, { type: `later_${step % 2}`, id: `later${step}`, data: { step } });
				return;
		}
	});
	return pi.getSessionFile() as string;
}

/** What the service makes of a file pi 1.6.0 wrote is what pi makes of it. */
export async function piTrial(
	store: SessionStore,
	ws: string,
	dir: string,
	ops: readonly PiOp[],
): Promise<void> {
	const text = fileText(writeWithPi(dir, ops));
	const pi = readWithPi(dir, text);
	const { sessionId, leafId, name } = await store.importSession(ws, text);
	const log = await store.listEntries(ws, sessionId);
	expect(
		log.map((e) => asJson(e.entry)),
		"the log",
	).toEqual(jsonLines(text).slice(1));
	expect(leafId, "the leaf").toBe(pi.leafId);
	expect(name, "the name").toBe(pi.name ?? null);
	expect(comparableContext(await store.context(ws, sessionId)), "the context").toEqual(asJson(pi.context));
	for (const [i, { entry }] of log.entries()) {
		if (i % 5 !== 2) continue;
		expect(
			comparableContext(await store.context(ws, sessionId, { fromId: entry.id })),
			`the context from ${entry.id}`,
		).toEqual(asJson(buildSessionContext(pi.entries, entry.id)));
	}
	// Tips: every entry no other names as its parent (pi's tree, where every line is a node).
	const parents = new Set(pi.entries.map((e) => e.parentId));
	expect(
		(await store.tips(ws, sessionId)).map((e) => e.entry.id),
		"the tips",
	).toEqual(pi.entries.filter((e) => !parents.has(e.id)).map((e) => e.id));
	const stats = await readSessionStats(store, ws, sessionId);
	const all = piTotals(pi.entries);
	expect([stats.tree.totalTokens, stats.tree.cost], "the totals").toEqual([all.tokens, all.cost]);
	const onPath = piTotals(pi.manager.getBranch());
	expect([stats.path.totalTokens, stats.path.cost], "the path's totals").toEqual([
		onPath.tokens,
		onPath.cost,
	]);
	expect(jsonLines(await store.exportSession(ws, sessionId)), "the export").toEqual(jsonLines(text));
}

// ---- the seed's harness -------------------------------------------------------

type HarnessOp =
	| { k: "user" }
	| { k: "assistant"; model: number; usage: Usage }
	| { k: "toolResult" | "customMessage" | "name" }
	| { k: "setting"; which: number; value: number }
	| { k: "compaction"; pick: number | null; usage: Usage | null; tail: boolean }
	| { k: "custom"; projected: boolean }
	| { k: "label"; pick: number; clear: boolean }
	| { k: "move"; pick: number | null; summary: boolean; usage: Usage | null };

export const harnessOps: fc.Arbitrary<HarnessOp[]> = fc.array(
	fc.oneof(
		{ weight: 5, arbitrary: fc.record({ k: fc.constant("user" as const) }) },
		{
			weight: 5,
			arbitrary: fc.record({
				k: fc.constant("assistant" as const),
				model: fc.nat(MODELS.length - 1),
				usage: usageArb,
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				k: fc.constantFrom("toolResult" as const, "customMessage" as const, "name" as const),
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({ k: fc.constant("setting" as const), which: fc.nat(2), value: fc.nat(3) }),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				k: fc.constant("compaction" as const),
				pick: fc.option(pick, { nil: null }),
				usage: maybeUsage,
				tail: fc.boolean(),
			}),
		},
		{ weight: 1, arbitrary: fc.record({ k: fc.constant("custom" as const), projected: fc.boolean() }) },
		{ weight: 1, arbitrary: fc.record({ k: fc.constant("label" as const), pick, clear: fc.boolean() }) },
		{
			weight: 3,
			arbitrary: fc.record({
				k: fc.constant("move" as const),
				pick: fc.option(pick, { nil: null }),
				summary: fc.boolean(),
				usage: maybeUsage,
			}),
		},
	),
	{ minLength: 1, maxLength: 30 },
);

/** The harness's projector of `custom` entries of type "projected", and the service's of the same. */
const projected = (entry: { timestamp: string; data?: unknown }): AgentMessage[] => [
	{
		role: "custom",
		customType: "projected",
		content: JSON.stringify(entry.data ?? null),
		display: false,
		timestamp: Date.parse(entry.timestamp),
	},
];

async function writeWithHarness(
	ops: readonly HarnessOp[],
): Promise<{ session: Session; storage: InMemorySessionStorage }> {
	const storage = new InMemorySessionStorage();
	const session = new Session(storage);
	for (const [step, op] of ops.entries()) {
		const nodes = (await storage.getEntries()).filter((e) => e.type !== "leaf");
		switch (op.k) {
			case "user":
				await session.appendMessage({ role: "user", content: `u${step}`, timestamp: step } as never);
				break;
			case "assistant":
				await session.appendMessage({
					role: "assistant",
					content: [{ type: "text", text: `a${step}` }],
					api: "anthropic-messages",
					provider: "anthropic",
					model: MODELS[op.model],
					usage: op.usage,
					stopReason: "stop",
					timestamp: step,
				} as never);
				break;
			case "toolResult":
				await session.appendMessage({
					role: "toolResult",
					toolCallId: `c${step}`,
					toolName: "read",
					content: [],
					isError: false,
					timestamp: step,
				} as never);
				break;
			case "customMessage":
				await session.appendCustomMessageEntry("note", `note ${step}`, true, { step });
				break;
			case "name":
				await session.appendSessionName(`name ${step}`);
				break;
			case "setting":
				if (op.which === 0)
					await session.appendThinkingLevelChange(["off", "low", "medium", "high"][op.value] as string);
				else if (op.which === 1) await session.appendModelChange("openai", `mc${op.value}`);
				else await session.appendActiveToolsChange(["read", "bash", "edit"].slice(0, op.value));
				break;
			case "compaction": {
				const kept = op.pick === null ? undefined : chosen(nodes, op.pick)?.id;
				const tail = op.tail ? [{ role: "user", content: `kept ${step}`, timestamp: step }] : undefined;
				await session.appendCompaction(
					`summary ${step}`,
					kept,
					step * 100,
					undefined,
					false,
					(op.usage ?? undefined) as never,
					tail as never,
				);
				break;
			}
			case "custom":
				await session.appendCustomEntry(op.projected ? "projected" : "state", { step });
				break;
			case "label": {
				const target = chosen(nodes, op.pick);
				if (target) await session.appendLabel(target.id, op.clear ? undefined : `L${step}`);
				break;
			}
			case "move": {
				const target = op.pick === null ? null : (chosen(nodes, op.pick)?.id ?? null);
				await session.moveTo(
					target,
					op.summary
						? { summary: `left at ${step}`, ...(op.usage ? { usage: op.usage as never } : {}) }
						: undefined,
				);
				break;
			}
		}
	}
	return { session, storage };
}

/** The documented rules on which the service follows the coding agent rather than the harness. */
export type Documented = "settings from the whole path" | "no retainedTail" | "one compaction summary";

/**
 * The documented compaction rules a path meets: a compaction with a
 * `retainedTail` (the harness stops its walk there and projects the tail),
 * and an older compaction among the latest one's kept entries (the harness
 * projects its summary again).
 */
function compactionDifferences(fullPath: readonly Entry[]): Documented[] {
	const found: Documented[] = [];
	if (fullPath.some((e) => e.type === "compaction" && (e as { retainedTail?: unknown }).retainedTail))
		found.push("no retainedTail");
	const latest = fullPath.findLastIndex((e) => e.type === "compaction");
	const keptFrom =
		latest < 0
			? -1
			: fullPath.findIndex(
					(e) => e.id === (fullPath[latest] as { firstKeptEntryId?: string }).firstKeptEntryId,
				);
	if (
		keptFrom >= 0 &&
		keptFrom < latest &&
		fullPath.slice(keptFrom, latest).some((e) => e.type === "compaction")
	)
		found.push("one compaction summary");
	return found;
}

/** What the service makes of a harness session agrees with the harness, or with the coding agent where documented. */
export async function harnessTrial(
	store: SessionStore,
	ws: string,
	dir: string,
	ops: readonly HarnessOp[],
): Promise<Documented[]> {
	const { session, storage } = await writeWithHarness(ops);
	const entries = (await storage.getEntries()) as unknown as Entry[];
	const header = {
		type: "session",
		version: 3,
		id: `h-${Math.random().toString(16).slice(2)}`,
		timestamp: new Date().toISOString(),
		cwd: "/work/harness",
	};
	const text = `${[header, ...entries].map((line) => JSON.stringify(line)).join("\n")}\n`;
	const { sessionId, leafId, name } = await store.importSession(ws, text);
	const documented: Documented[] = [];

	expect(
		(await store.listEntries(ws, sessionId)).map((e) => asJson(e.entry)),
		"the log",
	).toEqual(asJson(entries));
	expect(leafId, "the pointer's replay").toBe(await session.getLeafId());
	expect(name, "the name").toBe((await session.getSessionName()) ?? null);

	const ours = await store.context(ws, sessionId);
	const fullPath = (await store.activePath(ws, sessionId, { full: true })).map((e) => e.entry);
	const harness = await session.buildContext();
	// Settings come from the whole path (the coding agent's rule), which the harness's own projection gives for it.
	const whole = buildHarnessContext(fullPath as never);
	expect({ ...ours, messages: [] }, "the settings").toEqual({ ...asJson(whole), messages: [] });
	if (JSON.stringify({ ...harness, messages: [] }) !== JSON.stringify({ ...whole, messages: [] }))
		documented.push("settings from the whole path");
	// Where the harness reads compactions otherwise, the service reads them as the coding agent does.
	const differences = compactionDifferences(fullPath);
	if (differences.length > 0) {
		documented.push(...differences);
		expect(asJson(ours.messages), "the messages, as the coding agent reads them").toEqual(
			asJson(buildSessionContext(entries as never, leafId).messages),
		);
	} else {
		expect(asJson(ours.messages), "the messages").toEqual(asJson(harness.messages));
		// A projector of custom entries projects alike in the service's rules and in the harness.
		const withProjector = await session.buildContext({ entryProjectors: { projected: projected as never } });
		expect(
			asJson(projectContext(fullPath, { customProjectors: { projected } }).messages),
			"projected custom entries",
		).toEqual(asJson(withProjector.messages));
	}

	const stats = await session.getSessionStats();
	const { tree } = await readSessionStats(store, ws, sessionId);
	expect([tree.messages, tree.totalTokens, tree.cost], "the totals").toEqual([
		stats.messageCount,
		stats.totalTokens,
		stats.costTotal,
	]);

	// The lossless export is the harness's file: its JSONL storage replays it to the same pointer and context.
	const file = join(dir, `${sessionId}.jsonl`);
	writeFileSync(file, await store.exportSession(ws, sessionId, { format: "lossless" }));
	const read = new Session(await JsonlSessionStorage.open(harnessReader, file));
	expect(await read.getLeafId(), "the harness's reading of the export").toBe(leafId);
	expect(asJson(await read.buildContext()), "the harness's context of the export").toEqual(asJson(harness));
	return documented;
}

/**
 * The quick run inside the conformance suite: `runs` random sessions of
 * each pi through the store, shrunk to the smallest disagreement when one is
 * found (`npm run test:fidelity` runs a thousand of each and counts).
 */
export async function fidelityProperty(
	store: () => SessionStore,
	workspace: () => string,
	dir: () => string,
	runs: number,
): Promise<void> {
	await fc.assert(
		fc.asyncProperty(piOps, (ops) => piTrial(store(), workspace(), dir(), ops)),
		{ numRuns: runs },
	);
	await fc.assert(
		fc.asyncProperty(harnessOps, async (ops) => {
			await harnessTrial(store(), workspace(), dir(), ops);
		}),
		{ numRuns: runs },
	);
}
