/**
 * Assistant turns: the values each assistant message has on its own (its
 * total tokens, its cost, how long it took), which dashboards aggregate by
 * more than sums: min, max and percentiles.
 *
 * A turn's duration: what pi measured, `message.durationMs` (pi-ai ≥ 1.0,
 * a monotonic clock from the request to the end of the response); for older
 * messages, the entry's `timestamp` (written after the response ended) less
 * the message's (ms since the epoch, stamped when the turn started). A
 * message with neither a usable `durationMs` nor a finite stamp no later
 * than its entry's (a clock step, a hand-made file) has no duration.
 *
 * A turn's tokens are its usage's input + output + cacheRead + cacheWrite,
 * as in every total (message-summary.ts `usageTokens`).
 *
 * Percentiles are discrete (PostgreSQL's percentile_disc): the p-percentile
 * of n values is the smallest value v with at least p·n of the values ≤ v,
 * i.e. the ⌈p·n⌉-th smallest, computed with the same double arithmetic as
 * PostgreSQL (`ceil(p * n)`), so both give the same value of the data.
 */
import { type AgentMessage, type Entry, isOf } from "../entry.js";
import { type MessageSummary, summarizeMessage, usageTokens } from "../message-summary.js";

export interface TurnValues {
	/** Normalised usage (../message-summary.ts), as in every sum. */
	totalTokens: number;
	cost: number;
	/** Null when the turn has no duration (see above). */
	durationMs: number | null;
}

export const TURN_VALUES = [
	"totalTokens",
	"cost",
	"durationMs",
] as const satisfies readonly (keyof TurnValues)[];
export type TurnValue = (typeof TURN_VALUES)[number];

/** The order statistics kept of each turn value. */
export const TURN_STATISTICS = ["min", "max", "p50", "p95"] as const;
export type TurnStatistic = (typeof TURN_STATISTICS)[number];

/** Min, max and percentiles of some values; null over none. */
export type Spread = Record<TurnStatistic, number | null>;
export type TurnSpreads = Record<TurnValue, Spread>;

/** How long an assistant message written at `timestamp` (an entry's) took, in ms; null when unknown. */
export function turnDurationMs(timestamp: string, message: AgentMessage): number | null {
	const measured = typeof message === "object" && message !== null ? message.durationMs : undefined;
	if (typeof measured === "number" && Number.isFinite(measured) && measured >= 0) return measured;
	const started = typeof message === "object" && message !== null ? message.timestamp : undefined;
	if (typeof started !== "number" || !Number.isFinite(started)) return null;
	const took = Date.parse(timestamp) - started;
	return took >= 0 ? took : null;
}

/** The entry's turn values when it is an assistant message, else null; `summary` when known is its message's. */
export function assistantTurnOf(entry: Entry, summary?: MessageSummary): TurnValues | null {
	if (!entry || !isOf(entry, "message")) return null;
	summary ??= summarizeMessage(entry.message);
	if (summary.role !== "assistant" || !summary.usage) return null;
	return {
		totalTokens: usageTokens(summary.usage),
		cost: summary.usage.cost.total,
		durationMs: turnDurationMs(entry.timestamp, entry.message),
	};
}

/** The p-percentile (0 < p ≤ 1) of values sorted ascending; null for none. */
export function percentileDisc(sorted: readonly number[], p: number): number | null {
	if (sorted.length === 0) return null;
	return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1] as number;
}

export const PERCENTILES: Record<Extract<TurnStatistic, `p${number}`>, number> = { p50: 0.5, p95: 0.95 };

/** Min, max, p50 and p95 of some values, in any order. */
export function spreadOf(values: readonly number[]): Spread {
	const sorted = [...values].sort((a, b) => a - b);
	return {
		min: sorted[0] ?? null,
		max: sorted[sorted.length - 1] ?? null,
		p50: percentileDisc(sorted, PERCENTILES.p50),
		p95: percentileDisc(sorted, PERCENTILES.p95),
	};
}

/** Each turn value's spread over some turns (a turn without a duration is left out of the durations). */
export function turnSpreads(turns: Iterable<TurnValues>): TurnSpreads {
	const values: Record<TurnValue, number[]> = { totalTokens: [], cost: [], durationMs: [] };
	for (const turn of turns)
		for (const value of TURN_VALUES) {
			const v = turn[value];
			if (v !== null) values[value].push(v);
		}
	return {
		totalTokens: spreadOf(values.totalTokens),
		cost: spreadOf(values.cost),
		durationMs: spreadOf(values.durationMs),
	};
}
