/**
 * Rollups: the activity of a session's entries added up per quarter hour and
 * per the dimensions a dashboard groups by (entry type, message role,
 * provider, model, author). A metrics query then adds rollup rows instead of
 * reading entries, and a backend keeps them in the same transaction as the
 * rows they count, so they are never behind the log.
 *
 * Invariants:
 * - a rollup row's figures are the measures (./measures.ts) of exactly the
 *   entries with its key: counts by type and role follow from the key and
 *   `entries`, and every other figure is a plain sum (the message summaries
 *   of ./message-summary.ts), so rows of one key merge by addition, in any
 *   order and any grouping;
 * - buckets are quarter hours of UTC: every time zone in use today is offset
 *   from UTC by a whole number of quarter hours, so an hour, day, week or
 *   month of any zone is a union of whole buckets.
 */
import type { AgentMessage, EntryType, StoredEntry } from "./entry.js";
import { countRole, emptyMeasures, type Measures } from "./measures.js";
import { summarizeMessage } from "./message-summary.js";

export const BUCKET_MS = 15 * 60 * 1000;

export interface RollupKey {
	/** The bucket's start, ISO 8601 UTC with milliseconds. */
	bucket: string;
	entryType: EntryType;
	/** A message's role; "" for other entries. */
	role: string;
	/** An assistant message's provider and model; "" otherwise or when it has none. */
	provider: string;
	model: string;
	/** The writer's subject; "" when written without authentication. */
	author: string;
}

/** The additive figures a rollup row keeps: measures (session/measures.ts) that are sums. */
export const ROLLUP_FIGURES = [
	"entries",
	"toolCalls",
	"toolResults",
	"toolErrors",
	"inputTokens",
	"outputTokens",
	"cacheReadTokens",
	"cacheWriteTokens",
	"totalTokens",
	"cost",
] as const satisfies readonly (keyof Measures)[];

export type RollupFigures = Pick<Measures, (typeof ROLLUP_FIGURES)[number]>;

export type RollupRow = RollupKey & RollupFigures;

/** The start of the quarter hour (UTC) an instant falls in. */
export function bucketOf(timestamp: string): string {
	const ms = Date.parse(timestamp);
	return new Date(Math.floor(ms / BUCKET_MS) * BUCKET_MS).toISOString();
}

function rollupOf(stored: StoredEntry): RollupRow {
	const { entry } = stored;
	const row: RollupRow = {
		bucket: bucketOf(entry.timestamp),
		entryType: entry.type,
		role: "",
		provider: "",
		model: "",
		author: stored.author ?? "",
		entries: 1,
		toolCalls: 0,
		toolResults: 0,
		toolErrors: 0,
		inputTokens: 0,
		outputTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		totalTokens: 0,
		cost: 0,
	};
	if (entry.type !== "message") return row;
	const summary = summarizeMessage(entry.message as AgentMessage);
	row.role = summary.role;
	row.provider = summary.provider ?? "";
	row.model = summary.model ?? "";
	row.toolCalls = summary.toolCallCount;
	if (summary.role === "toolResult") {
		row.toolResults = 1;
		if (summary.isError === true) row.toolErrors = 1;
	}
	if (summary.usage) {
		row.inputTokens = summary.usage.input;
		row.outputTokens = summary.usage.output;
		row.cacheReadTokens = summary.usage.cacheRead;
		row.cacheWriteTokens = summary.usage.cacheWrite;
		row.totalTokens = summary.usage.totalTokens;
		row.cost = summary.usage.cost.total;
	}
	return row;
}

/** The key of a rollup row as one string (for grouping). */
export const rollupKeyOf = (k: RollupKey): string =>
	JSON.stringify([k.bucket, k.entryType, k.role, k.provider, k.model, k.author]);

/** Adds `from`'s figures into `into`. */
function addFigures(into: RollupFigures, from: RollupFigures): void {
	for (const figure of ROLLUP_FIGURES) into[figure] += from[figure];
}

/** The rollup rows of some entries (one session's), one per key, in first-seen order. */
export function rollupRows(rows: readonly StoredEntry[]): RollupRow[] {
	const byKey = new Map<string, RollupRow>();
	for (const stored of rows) {
		const row = rollupOf(stored);
		const key = rollupKeyOf(row);
		const found = byKey.get(key);
		if (found) addFigures(found, row);
		else byKey.set(key, row);
	}
	return [...byKey.values()];
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
		m.entries += r.entries;
		m.toolCalls += r.toolCalls;
		m.toolResults += r.toolResults;
		m.toolErrors += r.toolErrors;
		m.inputTokens += r.inputTokens;
		m.outputTokens += r.outputTokens;
		m.cacheReadTokens += r.cacheReadTokens;
		m.cacheWriteTokens += r.cacheWriteTokens;
		m.totalTokens += r.totalTokens;
		m.cost += r.cost;
		switch (r.entryType) {
			case "message":
				m.messages += r.entries;
				countRole(m.messagesByRole, r.role, r.entries);
				if (r.role === "user") m.userTurns += r.entries;
				if (r.role === "assistant") m.assistantTurns += r.entries;
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
