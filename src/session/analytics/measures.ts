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
import type { AgentMessage, Entry } from "./entry.js";
import { summarizeMessage, type TokenUsage, usageOfEntry, usageTokens } from "./message-summary.js";
import { turnDurationMs } from "./turns.js";

export interface Measures {
	/** Every entry, leaf records, labels and session_info included. */
	entries: number;
	/** Entries of type "message". */
	messages: number;
	/** Messages by role ("" for a message without a string role). A null-prototype record. */
	messagesByRole: Record<string, number>;
	/** Messages with role "user". */
	userTurns: number;
	/** Messages with role "assistant". */
	assistantTurns: number;
	/** Sum of `toolCallCount` (tool calls in assistant messages). */
	toolCalls: number;
	/** Messages with role "toolResult". */
	toolResults: number;
	/** toolResult messages with `isError: true`. */
	toolErrors: number;
	/** Sums of the normalised usage pi counts (above); the total is the four parts' sum. */
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	totalTokens: number;
	/** Sum of `usage.cost.total`. */
	cost: number;
	/** The assistant messages' share of totalTokens and cost: what per-turn averages divide. */
	assistantTurnTokens: number;
	assistantTurnCost: number;
	/** Assistant messages with a duration (./turns.ts), and the sum of their durations in ms. */
	timedAssistantTurns: number;
	assistantTurnDurationMs: number;
	/** Entries of type "leaf" (navigation records). */
	leafMoves: number;
	branchSummaries: number;
	compactions: number;
	labels: number;
}

/** The scalar fields, each a plain sum (the metrics API's measures start with these). */
export const SUMS = [
	"entries",
	"messages",
	"userTurns",
	"assistantTurns",
	"toolCalls",
	"toolResults",
	"toolErrors",
	"inputTokens",
	"outputTokens",
	"cacheReadTokens",
	"cacheWriteTokens",
	"totalTokens",
	"cost",
	"assistantTurnTokens",
	"assistantTurnCost",
	"timedAssistantTurns",
	"assistantTurnDurationMs",
	"leafMoves",
	"branchSummaries",
	"compactions",
	"labels",
] as const satisfies readonly Exclude<keyof Measures, "messagesByRole">[];

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
