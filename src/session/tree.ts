/**
 * Pure tree rules over a session's entries: leaf replay, path walks, the
 * compaction bound, tips, children, labels and the session name. Every
 * backend either calls these or answers the same question in SQL; the
 * conformance suite holds both to the same results.
 */
import { type Entry, isNode, isOf, type LabelEntry, type StoredEntry } from "./entry.js";

/** The leaf pointer after an entry: a leaf record points at its target, anything else at itself. */
export function leafAfter(entry: Pick<Entry, "type" | "id"> & { targetId?: unknown }): string | null {
	return entry.type === "leaf" ? ((entry.targetId as string | null | undefined) ?? null) : entry.id;
}

/** Replaying the log from the first line rebuilds the pointer. */
export function replayLeaf(entries: Iterable<Entry>): string | null {
	let leaf: string | null = null;
	for (const entry of entries) leaf = leafAfter(entry);
	return leaf;
}

/**
 * The path root → `fromId` following `parentId`. Returns [] for a null start.
 * Entries are looked up through `byId`, so a caller can walk its own index.
 */
export function pathToRoot<T extends { entry: Pick<Entry, "id" | "parentId"> }>(
	fromId: string | null,
	byId: (id: string) => T | undefined,
): T[] {
	const path: T[] = [];
	let current = fromId === null ? undefined : byId(fromId);
	while (current) {
		path.push(current);
		const parentId = current.entry.parentId;
		current = parentId === null ? undefined : byId(parentId);
	}
	return path.reverse();
}

/**
 * Cut a full path (root → leaf) at the compaction bound, as pi's
 * `getPathToRootOrCompaction` does: walking from the leaf, each compaction
 * met names its `firstKeptEntryId` as the stop; the walk ends on reaching the
 * current stop (inclusive). Without a reachable stop the whole path is kept.
 */
export function boundByCompaction<T extends { entry: Entry }>(fullPath: readonly T[]): T[] {
	let stopAt: string | null = null;
	for (let i = fullPath.length - 1; i >= 0; i--) {
		const { entry } = fullPath[i] as T;
		if (stopAt !== null && entry.id === stopAt) return fullPath.slice(i);
		if (isOf(entry, "compaction")) stopAt = entry.firstKeptEntryId ?? null;
	}
	return [...fullPath];
}

/** Direct child nodes of each given entry, in log order (leaf records are not children). */
export function childrenOf<T extends { entry: Entry }>(
	log: readonly T[],
	parentIds: readonly string[],
): Map<string, T[]> {
	const children = new Map<string, T[]>(parentIds.map((id) => [id, []]));
	for (const e of log) {
		if (isNode(e.entry) && e.entry.parentId !== null) children.get(e.entry.parentId)?.push(e);
	}
	return children;
}

/** Nodes with no child nodes, in log order: one per branch of the tree. */
export function tipsOf<T extends { entry: Entry }>(log: readonly T[]): T[] {
	const hasChild = new Set<string>();
	for (const { entry } of log) {
		if (isNode(entry) && entry.parentId !== null) hasChild.add(entry.parentId);
	}
	return log.filter((e) => isNode(e.entry) && !hasChild.has(e.entry.id));
}

/** The current label of every labelled entry: the latest label entry wins; empty clears. */
export function labelsOf(log: Iterable<Pick<StoredEntry, "entry">>): Map<string, LabelEntry> {
	const labels = new Map<string, LabelEntry>();
	for (const { entry } of log) {
		if (!isOf(entry, "label")) continue;
		if (entry.label) labels.set(entry.targetId, entry);
		else labels.delete(entry.targetId);
	}
	return labels;
}

/** The session name: the latest session_info name, trimmed; empty means none. */
export function nameAfter(entry: Entry, previous: string | null): string | null {
	if (!isOf(entry, "session_info")) return previous;
	return (typeof entry.name === "string" ? entry.name.trim() : "") || null;
}

export function sessionNameOf(
	log: Iterable<Pick<StoredEntry, "entry">>,
	initial: string | null = null,
): string | null {
	let name = initial;
	for (const { entry } of log) name = nameAfter(entry, name);
	return name;
}
