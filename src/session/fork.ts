/**
 * Fork: the path root → entry copied into a new session. Entry ids and
 * placement are kept, so the copy is the same branch; labels the source
 * holds for entries on the path are carried over by label entries appended
 * after the path (as pi's `createBranchedSession` does).
 */
import { type KnownEntry, type PlanClock, planAppend } from "./append.js";
import { type DraftEntry, isNode, type StoredEntry } from "./entry.js";
import { SessionError } from "./errors.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "./limits.js";
import { labelsOf, replayLeaf } from "./tree.js";

export interface ForkPlan {
	rows: StoredEntry[];
	leafId: string | null;
	leafDepth: number | null;
}

/**
 * One small request must not copy an unbounded number of rows in one
 * transaction. A backend that knows the path's length before walking it
 * (the start entry's depth + 1) checks here first.
 */
export function checkForkSize(pathLength: number, limits: InputLimits = DEFAULT_INPUT_LIMITS): void {
	if (pathLength > limits.forkEntries) {
		throw new SessionError(
			"LIMIT_EXCEEDED",
			`entryId: the path to fork has ${pathLength} entries; a fork copies at most ${limits.forkEntries} (fork limit; the server's MAX_FORK_ENTRIES)`,
			{ field: "entryId" },
		);
	}
}

/**
 * Copied rows keep their authors (the fork copies what they wrote); the label
 * entries the fork appends are the forker's (`author`).
 */
export function planFork(
	newSessionId: string,
	fullPath: readonly StoredEntry[],
	sourceLabels: ReadonlyMap<string, { label?: string }>,
	clock: PlanClock,
	author: string | null,
	limits: InputLimits = DEFAULT_INPUT_LIMITS,
): ForkPlan {
	checkForkSize(fullPath.length, limits);
	const copied: StoredEntry[] = fullPath.map((e, i) => ({
		sessionId: newSessionId,
		seq: i + 1,
		depth: i,
		author: e.author,
		entry: structuredClone(e.entry),
	}));
	const copiedLabels = labelsOf(copied);
	const drafts: DraftEntry[] = [];
	for (const { entry } of copied) {
		const want = sourceLabels.get(entry.id)?.label || undefined;
		const have = copiedLabels.get(entry.id)?.label || undefined;
		if (want !== have)
			drafts.push({ type: "label", targetId: entry.id, ...(want ? { label: want } : {}) } as DraftEntry);
	}
	const known = new Map<string, KnownEntry>(
		copied.map((e) => [e.entry.id, { id: e.entry.id, isNode: isNode(e.entry), depth: e.depth }]),
	);
	const leafId = replayLeaf(copied.map((e) => e.entry));
	const head = {
		leafId,
		leafDepth: leafId === null ? null : (known.get(leafId)?.depth ?? null),
		lastSeq: copied.length,
	};
	const labels = planAppend(newSessionId, head, drafts, (id) => known.get(id), clock, author);
	return { rows: [...copied, ...labels.rows], leafId: labels.leafId, leafDepth: labels.leafDepth };
}
