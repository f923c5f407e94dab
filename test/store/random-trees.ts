/**
 * Property: for random sessions built through the store (appends, moves with
 * and without summaries, compactions with and without a system checkpoint,
 * system messages, context edits, usage entries, tool results and summaries
 * with usage, types the service does not know, labels, renames, settings),
 * the store's context equals what pi 1.6's own `buildSessionContext` makes of
 * the stored log and pointer, from the leaf and from a random node, and its
 * totals equal pi's cost breakdown of the log.
 */

import fc from "fast-check";
import { expect } from "vitest";
import { type DraftEntry, type Entry, isOf } from "../../src/session/entry.js";
import { replayLeaf } from "../../src/session/tree.js";
import { readSessionStats } from "../../src/store/analytics/session-stats.js";
import type { SessionStore } from "../../src/store/store.js";
import { buildSessionContext, getUsageCostBreakdown } from "../support/pi-oracle.js";

type Op =
	| { kind: "user" | "assistant" | "system" | "toolResult" | "usage" | "other"; model: number }
	| { kind: "setting"; which: number; value: number }
	| { kind: "custom"; message: boolean }
	| { kind: "compaction"; pick: number; checkpoint: boolean }
	| { kind: "edit"; pick: number; omit: boolean }
	| { kind: "move"; pick: number; toNull: boolean; summary: boolean }
	| { kind: "label"; pick: number; clear: boolean }
	| { kind: "rename" };

const op: fc.Arbitrary<Op> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({ kind: fc.constantFrom("user" as const, "assistant" as const), model: fc.nat(2) }),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constantFrom("system" as const, "toolResult" as const, "usage" as const, "other" as const),
			model: fc.nat(2),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("edit" as const), pick: fc.nat(), omit: fc.boolean() }),
	},
	{
		weight: 2,
		arbitrary: fc.record({ kind: fc.constant("setting" as const), which: fc.nat(2), value: fc.nat(3) }),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("custom" as const), message: fc.boolean() }) },
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("compaction" as const),
			pick: fc.nat(),
			checkpoint: fc.boolean(),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("move" as const),
			pick: fc.nat(),
			toNull: fc.boolean(),
			summary: fc.boolean(),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("label" as const), pick: fc.nat(), clear: fc.boolean() }),
	},
	{ weight: 1, arbitrary: fc.constant({ kind: "rename" as const }) },
);

const MODELS = ["m-a", "m-b", "m-c"];
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Usage whose costs are eighths, so that sums compare exactly in any order. */
const usageAt = (step: number) => ({
	input: step,
	output: 2 * step,
	cacheRead: 10 * step,
	cacheWrite: step % 3,
	totalTokens: 13 * step + (step % 3),
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: step / 8 },
});

function draftFor(o: Op, step: number, nodes: readonly string[]): DraftEntry | undefined {
	switch (o.kind) {
		case "user":
			return { type: "message", message: { role: "user", content: `u${step}`, timestamp: step } };
		case "assistant":
			return {
				type: "message",
				message: {
					role: "assistant",
					content: [{ type: "text", text: `a${step}` }],
					provider: "p",
					model: MODELS[o.model],
					usage: usageAt(step),
					timestamp: step,
				},
			};
		case "system":
			return {
				type: "message",
				message: { role: "system", content: `rule ${step}`, sections: { s: `${step}` }, timestamp: step },
			};
		case "toolResult":
			return {
				type: "message",
				message: {
					role: "toolResult",
					toolCallId: `c${step}`,
					toolName: "ask",
					content: [{ type: "text", text: `r${step}` }],
					isError: false,
					...(o.model === 0 ? {} : { usage: usageAt(step) }),
					timestamp: step,
				},
			};
		case "usage":
			return {
				type: "usage",
				kind: "cache_warm",
				provider: "p",
				model: MODELS[o.model],
				usage: usageAt(step),
			};
		case "other":
			return { type: `later_type_${o.model}`, step, usage: usageAt(step) } as DraftEntry;
		case "edit":
			if (nodes.length === 0) return undefined;
			return {
				type: "context_edit",
				targetId: nodes[o.pick % nodes.length] as string,
				replacement: o.omit ? null : { content: `edited at ${step}` },
			};
		case "setting":
			if (o.which === 0)
				return {
					type: "thinking_level_change",
					thinkingLevel: ["off", "low", "medium", "high"][o.value] as string,
				};
			if (o.which === 1) return { type: "model_change", provider: "q", modelId: `mc${o.value}` };
			return { type: "active_tools_change", activeToolNames: ["read", "bash", "edit"].slice(0, o.value) };
		case "custom":
			return o.message
				? { type: "custom_message", customType: "note", content: `note ${step}`, display: step % 2 === 0 }
				: { type: "custom", customType: "state", data: { step } };
		case "compaction":
			if (nodes.length === 0) return undefined;
			return {
				type: "compaction",
				summary: `summary ${step}`,
				firstKeptEntryId: nodes[o.pick % nodes.length] as string,
				tokensBefore: step * 10,
				...(o.checkpoint
					? {
							systemMessage: { role: "system", content: `checkpoint ${step}`, timestamp: step },
							usage: usageAt(step),
						}
					: {}),
			};
		default:
			return undefined;
	}
}

function activeToolsOf(path: readonly Entry[]): string[] | null {
	let tools: string[] | null = null;
	for (const e of path) if (isOf(e, "active_tools_change")) tools = e.activeToolNames;
	return tools;
}

function pathTo(log: readonly Entry[], id: string | null): Entry[] {
	const byId = new Map(log.map((e) => [e.id, e]));
	const path: Entry[] = [];
	for (
		let e = id === null ? undefined : byId.get(id);
		e;
		e = e.parentId === null ? undefined : byId.get(e.parentId)
	)
		path.unshift(e);
	return path;
}

export async function randomTreeProperty(
	store: () => SessionStore,
	workspace: () => string,
	numRuns: number,
): Promise<void> {
	await fc.assert(
		fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 24 }), fc.nat(), async (ops, probe) => {
			const s = store();
			const ws = workspace();
			const { sessionId } = await s.createSession(ws);
			const nodes: string[] = [];
			for (const [step, o] of ops.entries()) {
				if (o.kind === "move") {
					const target = o.toNull || nodes.length === 0 ? null : (nodes[o.pick % nodes.length] as string);
					const moved = await s.moveLeaf(ws, sessionId, {
						targetId: target,
						...(o.summary ? { summary: { summary: `left at ${step}`, usage: usageAt(step) } } : {}),
					});
					if (moved.summaryEntry) nodes.push(moved.summaryEntry.entry.id);
				} else if (o.kind === "label") {
					if (nodes.length === 0) continue;
					const r = await s.setLabel(
						ws,
						sessionId,
						nodes[o.pick % nodes.length] as string,
						o.clear ? "" : `L${step}`,
					);
					nodes.push(r.entry.entry.id);
				} else if (o.kind === "rename") {
					nodes.push((await s.renameSession(ws, sessionId, ` name ${step} `)).entry.entry.id);
				} else {
					const draft = draftFor(o, step, nodes);
					if (draft) nodes.push((await s.appendEntry(ws, sessionId, draft)).entry.entry.id);
				}
			}
			const log = (await s.listEntries(ws, sessionId)).map((e) => e.entry);
			const session = await s.getSession(ws, sessionId);
			const leaf = session?.leafId ?? null;
			expect(leaf).toBe(replayLeaf(log));

			const ours = await s.context(ws, sessionId);
			const { activeToolNames, ...rest } = ours;
			expect(json(rest)).toEqual(json(buildSessionContext(log as never, leaf)));
			expect(activeToolNames).toEqual(activeToolsOf(pathTo(log, leaf)));

			if (nodes.length > 0) {
				const from = nodes[probe % nodes.length] as string;
				const fromContext = await s.context(ws, sessionId, { fromId: from });
				const { activeToolNames: fromTools, ...fromRest } = fromContext;
				expect(json(fromRest)).toEqual(json(buildSessionContext(log as never, from)));
				expect(fromTools).toEqual(activeToolsOf(pathTo(log, from)));
			}

			const pis = getUsageCostBreakdown(log as never);
			const { tree } = await readSessionStats(s, ws, sessionId);
			expect(tree.totalTokens).toBe(pis.reduce((n, r) => n + r.tokens, 0));
			expect(tree.cost).toBe(pis.reduce((n, r) => n + r.cost, 0));
		}),
		{ numRuns },
	);
}
