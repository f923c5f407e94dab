/**
 * One session's activity figures: the measures (./measures.ts) and the
 * spreads of its assistant turns' values (./turns.ts) over the whole tree
 * and over the active path, which differ once the user went back and
 * branched (the abandoned branch stays in the tree, off the path), plus the
 * tree's shape and when it was active.
 */
import { isNode, type StoredEntry } from "../entry.js";
import { tipsOf } from "../tree.js";
import { type Measures, measureEntries } from "./measures.js";
import { assistantTurnOf, type TurnSpreads, turnSpreads } from "./turns.js";

export interface SessionStats {
	/** Every entry of the append log, leaf moves and labels included. */
	tree: Measures;
	/** The entries of the full active path, root to leaf (no compaction bound: what the user sees, not the model). */
	path: Measures;
	/** Min, max, p50 and p95 of the tree's and of the path's assistant turns' values. */
	treeTurns: TurnSpreads;
	pathTurns: TurnSpreads;
	/** Tree nodes without children: one per branch. */
	tips: number;
	/** The largest depth of a tree node; -1 for a session without entries. */
	maxDepth: number;
	/** Timestamps of the first and the last entry in log order; null without entries. */
	firstActivity: string | null;
	lastActivity: string | null;
}

const turnsOf = (entries: readonly StoredEntry[]): TurnSpreads =>
	turnSpreads(entries.flatMap((s) => assistantTurnOf(s.entry) ?? []));

/** `log` in seq order; `path` root first. */
export function sessionStats(log: readonly StoredEntry[], path: readonly StoredEntry[]): SessionStats {
	let maxDepth = -1;
	for (const stored of log) if (isNode(stored.entry) && stored.depth > maxDepth) maxDepth = stored.depth;
	return {
		tree: measureEntries(log.map((s) => s.entry)),
		path: measureEntries(path.map((s) => s.entry)),
		treeTurns: turnsOf(log),
		pathTurns: turnsOf(path),
		tips: tipsOf(log).length,
		maxDepth,
		firstActivity: log[0]?.entry.timestamp ?? null,
		lastActivity: log[log.length - 1]?.entry.timestamp ?? null,
	};
}
