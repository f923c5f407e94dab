/**
 * Measures over a list of entries: counts by type and role, tool calls and
 * results, token usage and cost. These are the quantities a metrics API
 * aggregates; every one is a sum over entries, so measures of a log can be
 * kept up to date one write at a time (`addEntry`) and measures of disjoint
 * lists add up (`mergeMeasures`): measureEntries(a ++ b) equals
 * mergeMeasures(measureEntries(a), measureEntries(b)).
 *
 * Per-message values come from `summarizeMessage` and usage from
 * `usageOfEntry` (src/session/message-summary.ts), never from the raw
 * message, so these totals equal the sums of the typed fields a client sees.
 * Token and cost totals count what pi's session stats count: assistant
 * messages, tool results that carry usage, compactions' and branch
 * summaries' usage, and `usage` entries; their total is input + output +
 * cacheRead + cacheWrite (`usageTokens`). Only `message` entries count as
 * messages: a `custom_message` or `branch_summary` entry becomes a message in
 * the model's context but is not one in the log, as in pi's footer and
 * session stats.
 *
 * Token and cost totals are floating-point sums. Tokens are integers in
 * practice and add exactly; costs are fractions of a dollar, and two sums of
 * the same costs taken in a different grouping (a rollup kept per write and a
 * recomputation) may differ in the last bits.
 */
import type { AgentMessage, Entry } from "../entry.js";
import { summarizeMessage, type TokenUsage, usageOfEntry, usageTokens } from "../message-summary.js";
import { turnDurationMs } from "./turns.js";

/** How a measure reads: a count of entries or sessions (a whole number), or a sum (of tokens, cost, ms). */
export type MeasureUnit = "count" | "sum";

export interface MeasureSpec {
	unit: MeasureUnit;
	/** A column of every rollup row (./rollup.ts): the measures a rollup cannot derive from its keys. */
	rollup: boolean;
	/** What the API says of it (GraphQL `Measures` and `MeasureValues`); none where the name says it. */
	description?: string;
}

/**
 * The measures of a list of entries, each a plain sum over them: the one
 * table the measures' type, the rollup's columns (`rollup`), the GraphQL
 * fields and the metrics API's `Measure` enum (./metrics.ts MEASURES) are
 * derived from. Tokens and cost are the normalised usage pi counts (above):
 * the total is the four parts' sum. A message counts under its role in
 * `messagesByRole` too, the one measure that is not a number.
 */
export const SUM_MEASURES = {
	entries: {
		unit: "count",
		rollup: true,
		description: "Every entry, leaf moves, labels and session info included.",
	},
	messages: { unit: "count", rollup: false },
	userTurns: { unit: "count", rollup: false, description: "User messages." },
	assistantTurns: { unit: "count", rollup: false, description: "Assistant messages." },
	/** Sum of `toolCallCount` (tool calls in assistant messages). */
	toolCalls: { unit: "count", rollup: true, description: "Tool calls in assistant messages." },
	toolResults: { unit: "count", rollup: true },
	toolErrors: { unit: "count", rollup: true, description: "Tool results with isError true." },
	inputTokens: { unit: "sum", rollup: true },
	outputTokens: { unit: "sum", rollup: true },
	cacheReadTokens: { unit: "sum", rollup: true },
	cacheWriteTokens: { unit: "sum", rollup: true },
	totalTokens: { unit: "sum", rollup: true, description: "Sum of normalised totalTokens (TokenUsage)." },
	cost: { unit: "sum", rollup: true, description: "Sum of usage.cost.total." },
	/** The assistant messages' share of totalTokens and cost: what per-turn averages divide (kept per turn row). */
	assistantTurnTokens: {
		unit: "sum",
		rollup: false,
		description:
			"The assistant messages' share of totalTokens (what avgTotalTokensPerAssistantTurn divides).",
	},
	assistantTurnCost: {
		unit: "sum",
		rollup: false,
		description: "The assistant messages' share of cost (what avgCostPerAssistantTurn divides).",
	},
	/** Assistant messages with a duration (./turns.ts), and the sum of their durations in ms. */
	timedAssistantTurns: {
		unit: "count",
		rollup: true,
		description:
			"Assistant messages with a duration: pi stamps message.timestamp (ms) when the turn starts and the entry's timestamp when it is written; a message without a numeric stamp, or with one after the entry's, has none.",
	},
	assistantTurnDurationMs: {
		unit: "sum",
		rollup: true,
		description: "Sum of the assistant turns' durations in ms (see avgAssistantTurnDurationMs).",
	},
	/** Entries of type "leaf" (navigation records). */
	leafMoves: { unit: "count", rollup: false, description: "Moves of the leaf pointer (going back)." },
	branchSummaries: { unit: "count", rollup: false },
	compactions: { unit: "count", rollup: false },
	labels: { unit: "count", rollup: false, description: "Label entries (set or cleared)." },
} as const satisfies Record<string, MeasureSpec>;

export type SumMeasure = keyof typeof SUM_MEASURES;

/** The measures of some entries: every sum of SUM_MEASURES, and messages by role. */
export type Measures = Record<SumMeasure, number> & {
	/** Messages by role ("" for a message without a string role). A null-prototype record. */
	messagesByRole: Record<string, number>;
};

/** The scalar measures in the table's order (the metrics API's measures start with these). */
export const SUMS = Object.keys(SUM_MEASURES) as SumMeasure[];

/** A measure that is a rollup column. */
export type RollupColumn = {
	[M in SumMeasure]: (typeof SUM_MEASURES)[M]["rollup"] extends true ? M : never;
}[SumMeasure];

/** The measures a rollup row keeps as columns, in the table's order. */
export const ROLLUP_FIGURES = SUMS.filter((m): m is RollupColumn => SUM_MEASURES[m].rollup);

/**
 * Roles come from stored data, so the record has no prototype: a role named
 * "__proto__" or "toString" is counted like any other.
 */
function roleCounts(): Record<string, number> {
	return Object.create(null) as Record<string, number>;
}

/** Adds `by` messages of `role` (the record has no prototype: see roleCounts). */
export function countRole(counts: Record<string, number>, role: string, by: number): void {
	counts[role] = (Object.hasOwn(counts, role) ? (counts[role] as number) : 0) + by;
}

export function emptyMeasures(): Measures {
	const measures = { messagesByRole: roleCounts() } as Measures;
	for (const key of SUMS) measures[key] = 0;
	return measures;
}

/**
 * Adds one entry; `into` is changed in place, so a rollup can be kept per
 * write. An entry of an unknown type (or not an object) counts only in
 * `entries`; a message entry whose message is not an object counts as a
 * message with role "".
 */
export function addEntry(into: Measures, entry: Entry): void {
	into.entries += 1;
	// Read defensively: the entry may come from an unchecked source.
	const e = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
	if (e.type !== "message") addUsage(into, usageOfEntry(e));
	switch (e.type) {
		case "message": {
			const summary = summarizeMessage(e.message as AgentMessage);
			addUsage(into, summary.usage);
			into.messages += 1;
			countRole(into.messagesByRole, summary.role, 1);
			if (summary.role === "user") into.userTurns += 1;
			if (summary.role === "toolResult") {
				into.toolResults += 1;
				if (summary.isError === true) into.toolErrors += 1;
			}
			into.toolCalls += summary.toolCallCount;
			if (summary.role === "assistant") {
				into.assistantTurns += 1;
				if (summary.usage) {
					into.assistantTurnTokens += usageTokens(summary.usage);
					into.assistantTurnCost += summary.usage.cost.total;
				}
				const took = turnDurationMs(e.timestamp as string, e.message as AgentMessage);
				if (took !== null) {
					into.timedAssistantTurns += 1;
					into.assistantTurnDurationMs += took;
				}
			}
			return;
		}
		case "leaf":
			into.leafMoves += 1;
			return;
		case "branch_summary":
			into.branchSummaries += 1;
			return;
		case "compaction":
			into.compactions += 1;
			return;
		case "label":
			into.labels += 1;
			return;
		default:
			return;
	}
}

/** Adds one entry's usage (none: nothing) to the token and cost sums. */
function addUsage(into: Measures, usage: TokenUsage | null): void {
	if (!usage) return;
	into.inputTokens += usage.input;
	into.outputTokens += usage.output;
	into.cacheReadTokens += usage.cacheRead;
	into.cacheWriteTokens += usage.cacheWrite;
	into.totalTokens += usageTokens(usage);
	into.cost += usage.cost.total;
}

export function measureEntries(entries: Iterable<Entry>): Measures {
	const measures = emptyMeasures();
	for (const entry of entries) addEntry(measures, entry);
	return measures;
}

/** Adds `from` into `into` (changed in place); `from` is left as it is. */
export function mergeMeasures(into: Measures, from: Measures): void {
	for (const key of SUMS) into[key] += from[key];
	for (const [role, count] of Object.entries(from.messagesByRole))
		countRole(into.messagesByRole, role, count);
}
