/**
 * Rollups: the activity of a session's entries added up per quarter hour and
 * per the dimensions a dashboard groups by (entry type, message role,
 * provider, model, tool name, author). A metrics query then adds rollup rows
 * instead of reading entries, and a backend keeps them in the same
 * transaction as the rows they count, so they are never behind the log.
 *
 * Invariants:
 * - a rollup row's figures are the measures (./measures.ts) of exactly the
 *   entries with its key: counts by type and role follow from the key and
 *   `entries`, and every other figure is a plain sum (the message summaries
 *   of ../message-summary.ts), so rows of one key merge by addition, in any
 *   order and any grouping;
 * - the tool name of a tool result is its `toolName`; an assistant message's
 *   own row has none (""), and the calls it makes to each named tool are on
 *   a row of that tool's name with `entries` 0 and only `toolCalls` set (its
 *   calls without a name stay on its own row). So every figure, `toolCalls`
 *   included, still adds up to the entries' measures in any grouping, and
 *   grouped by tool name the calls fall under the tool called;
 * - a row's extremes (min/max of its assistant turns' values, ./turns.ts) are
 *   null without a turn, and rows of one key merge by min and max;
 * - buckets are quarter hours of UTC: every time zone in use today is offset
 *   from UTC by a whole number of quarter hours, so an hour, day, week or
 *   month of any zone is a union of whole buckets.
 *
 * Percentiles cannot be merged from rows: they read one turn row per
 * assistant turn (`turnRows`), which a backend keeps beside the rollups.
 */
import { isOf, type StoredEntry } from "../entry.js";
import {
	type MessageSummary,
	summarizeMessage,
	type TokenUsage,
	usageOfEntry,
	usageTokens,
} from "../message-summary.js";
import { countRole, emptyMeasures, type Measures, ROLLUP_FIGURES } from "./measures.js";
import { assistantTurnOf, TURN_VALUES, type TurnValue, type TurnValues } from "./turns.js";

export const BUCKET_MS = 15 * 60 * 1000;

export interface RollupKey {
	/** The bucket's start, ISO 8601 UTC with milliseconds. */
	bucket: string;
	/** The entry's type as written (a type the service does not know included). */
	entryType: string;
	/** A message's role; "" for other entries. */
	role: string;
	/**
	 * The model whose usage the row counts, as pi's cost breakdown groups it:
	 * an assistant message's provider and the model that answered
	 * (`responseModel`, else `model`), a `usage` entry's provider and model;
	 * "" for every other entry (pi's "Tools/summaries") and where none is given.
	 */
	provider: string;
	model: string;
	/** A tool result's tool, or the tool an assistant message's calls on this row call; "" otherwise. */
	toolName: string;
	/** The writer's subject; "" when written without authentication. */
	author: string;
}

/** The additive figures a rollup row keeps: the measures the table marks `rollup` (./measures.ts SUM_MEASURES). */
export { ROLLUP_FIGURES };

export type RollupFigures = Pick<Measures, (typeof ROLLUP_FIGURES)[number]>;

/** The fields that keep the smallest and the largest of each turn value. */
export const EXTREMES = {
	totalTokens: { min: "minTotalTokens", max: "maxTotalTokens" },
	cost: { min: "minCost", max: "maxCost" },
	durationMs: { min: "minDurationMs", max: "maxDurationMs" },
} as const satisfies Record<TurnValue, { min: string; max: string }>;

export const ROLLUP_MINIMA = TURN_VALUES.map((v) => EXTREMES[v].min);
export const ROLLUP_MAXIMA = TURN_VALUES.map((v) => EXTREMES[v].max);

/** Min and max of the row's assistant turns' values; null without one (or without a duration). */
export type RollupExtremes = Record<(typeof EXTREMES)[TurnValue]["min" | "max"], number | null>;

export type RollupRow = RollupKey & RollupFigures & RollupExtremes;

/** One assistant turn's values, with the dimensions it is grouped by (its tool name is always ""). */
export interface TurnRow extends TurnValues {
	/** The entry's seq in its session's log. */
	seq: number;
	bucket: string;
	provider: string;
	model: string;
	author: string;
}

/** The start of the quarter hour (UTC) an instant falls in. */
export function bucketOf(timestamp: string): string {
	const ms = Date.parse(timestamp);
	return new Date(Math.floor(ms / BUCKET_MS) * BUCKET_MS).toISOString();
}

/** A row of `key` that counts nothing (an object literal: this runs for every entry written). */
function emptyRow(key: RollupKey): RollupRow {
	return {
		bucket: key.bucket,
		entryType: key.entryType,
		role: key.role,
		provider: key.provider,
		model: key.model,
		toolName: key.toolName,
		author: key.author,
		entries: 0,
		toolCalls: 0,
		toolResults: 0,
		toolErrors: 0,
		inputTokens: 0,
		outputTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		totalTokens: 0,
		cost: 0,
		timedAssistantTurns: 0,
		assistantTurnDurationMs: 0,
		minTotalTokens: null,
		maxTotalTokens: null,
		minCost: null,
		maxCost: null,
		minDurationMs: null,
		maxDurationMs: null,
	};
}

/** An entry's rollup rows: its own, then one per tool its named calls call (./rollup.ts invariants). */
function rollupsOf(stored: StoredEntry): RollupRow[] {
	const { entry } = stored;
	const row = emptyRow({
		bucket: bucketOf(entry.timestamp),
		entryType: entry.type,
		role: "",
		provider: "",
		model: "",
		toolName: "",
		author: stored.author ?? "",
	});
	row.entries = 1;
	if (!isOf(entry, "message")) {
		if (isOf(entry, "usage")) {
			row.provider = typeof entry.provider === "string" ? entry.provider : "";
			row.model = typeof entry.model === "string" ? entry.model : "";
		}
		setUsage(row, usageOfEntry(entry));
		return [row];
	}
	const summary = summarizeMessage(entry.message);
	row.role = summary.role;
	row.provider = summary.provider ?? "";
	row.model = billedModel(summary);
	if (summary.role === "toolResult") {
		row.toolName = summary.toolName ?? "";
		row.toolResults = 1;
		if (summary.isError === true) row.toolErrors = 1;
	}
	setUsage(row, summary.usage);
	const turn = assistantTurnOf(entry, summary);
	if (turn) {
		row.minTotalTokens = row.maxTotalTokens = turn.totalTokens;
		row.minCost = row.maxCost = turn.cost;
		row.minDurationMs = row.maxDurationMs = turn.durationMs;
		if (turn.durationMs !== null) {
			row.timedAssistantTurns = 1;
			row.assistantTurnDurationMs = turn.durationMs;
		}
	}
	const rows = [row];
	for (const toolName of summary.toolCallNames) {
		if (toolName === "") {
			row.toolCalls += 1;
			continue;
		}
		let called = rows.find((r) => r.toolName === toolName);
		if (!called) {
			called = emptyRow({ ...row, toolName });
			rows.push(called);
		}
		called.toolCalls += 1;
	}
	return rows;
}

/** The model a message's usage is grouped under: the one that answered, as pi's cost breakdown has it. */
const billedModel = (summary: MessageSummary): string => summary.responseModel ?? summary.model ?? "";

/** A row's token and cost figures from one entry's usage (none: zeros). */
function setUsage(row: RollupRow, usage: TokenUsage | null): void {
	if (!usage) return;
	row.inputTokens = usage.input;
	row.outputTokens = usage.output;
	row.cacheReadTokens = usage.cacheRead;
	row.cacheWriteTokens = usage.cacheWrite;
	row.totalTokens = usageTokens(usage);
	row.cost = usage.cost.total;
}

/** The key of a rollup row as one string (for grouping). */
export const rollupKeyOf = (k: RollupKey): string =>
	JSON.stringify([k.bucket, k.entryType, k.role, k.provider, k.model, k.toolName, k.author]);

/** The smaller (or larger) of two extremes, either of which may be null (none). */
const least = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const greatest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/** Merges `from`'s extremes into `into`. */
function mergeExtremes(into: RollupExtremes, from: RollupExtremes): void {
	for (const field of ROLLUP_MINIMA) into[field] = least(into[field], from[field]);
	for (const field of ROLLUP_MAXIMA) into[field] = greatest(into[field], from[field]);
}

/** Adds `from`'s figures into `into`, and merges its extremes. */
function mergeRollup(into: RollupRow, from: RollupRow): void {
	for (const figure of ROLLUP_FIGURES) into[figure] += from[figure];
	mergeExtremes(into, from);
}

/** The rollup rows of some entries (one session's), one per key, in first-seen order. */
export function rollupRows(rows: readonly StoredEntry[]): RollupRow[] {
	const byKey = new Map<string, RollupRow>();
	for (const stored of rows)
		for (const row of rollupsOf(stored)) {
			const key = rollupKeyOf(row);
			const found = byKey.get(key);
			if (found) mergeRollup(found, row);
			else byKey.set(key, row);
		}
	return [...byKey.values()];
}

/** One turn row per assistant message among some entries (one session's), in their order. */
export function turnRows(rows: readonly StoredEntry[]): TurnRow[] {
	const turns: TurnRow[] = [];
	for (const { entry, seq, author } of rows) {
		if (!isOf(entry, "message")) continue;
		const summary = summarizeMessage(entry.message);
		const turn = assistantTurnOf(entry, summary);
		if (!turn) continue;
		turns.push({
			seq,
			bucket: bucketOf(entry.timestamp),
			provider: summary.provider ?? "",
			model: billedModel(summary),
			author: author ?? "",
			...turn,
		});
	}
	return turns;
}

/** The extremes of some rollup rows, merged. */
export function extremesOfRollups(rows: Iterable<RollupExtremes>): RollupExtremes {
	const merged = {} as RollupExtremes;
	for (const field of [...ROLLUP_MINIMA, ...ROLLUP_MAXIMA]) merged[field] = null;
	for (const r of rows) mergeExtremes(merged, r);
	return merged;
}

/**
 * The measures (./measures.ts) of the entries some rollup rows count: equal
 * to measuring those entries, however the rows were grouped (the figures are
 * sums, and the type and role are part of every key).
 */
export function measuresOfRollups(
	rows: Iterable<Pick<RollupKey, "entryType" | "role"> & RollupFigures>,
): Measures {
	const m = emptyMeasures();
	for (const r of rows) {
		for (const figure of ROLLUP_FIGURES) m[figure] += r[figure];
		// A row of tool calls counts no entry (and names no role of its own).
		if (r.entries === 0) continue;
		switch (r.entryType) {
			case "message":
				m.messages += r.entries;
				countRole(m.messagesByRole, r.role, r.entries);
				if (r.role === "user") m.userTurns += r.entries;
				if (r.role === "assistant") {
					m.assistantTurns += r.entries;
					m.assistantTurnTokens += r.totalTokens;
					m.assistantTurnCost += r.cost;
				}
				break;
			case "leaf":
				m.leafMoves += r.entries;
				break;
			case "branch_summary":
				m.branchSummaries += r.entries;
				break;
			case "compaction":
				m.compactions += r.entries;
				break;
			case "label":
				m.labels += r.entries;
				break;
			default:
				break;
		}
	}
	return m;
}
