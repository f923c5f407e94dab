/**
 * Planning a write: the tree rules of appending, pure. A backend reads the
 * session head and the entries a write refers to, calls `planAppend`, and
 * writes the returned rows and pointer in one transaction.
 */
import { type DraftEntry, type Entry, isNode, ownFields, type StoredEntry } from "./entry.js";
import { invalidInput, SessionError } from "./errors.js";
import { leafAfter } from "./tree.js";

/** The mutable part of a session: its pointer and the end of its log. */
export interface SessionHead {
	leafId: string | null;
	/** Depth of the leaf entry (null with the leaf): the next entry's depth is one more. */
	leafDepth: number | null;
	lastSeq: number;
}

/** What a plan needs to know about an existing entry it refers to. */
export interface KnownEntry {
	id: string;
	/** False for leaf records, which are never targets or parents. */
	isNode: boolean;
	depth: number;
}

export interface AppendPlan {
	rows: StoredEntry[];
	leafId: string | null;
	leafDepth: number | null;
}

export interface PlanClock {
	now(): string;
	newId(): string;
}

/** Ids a plan must look up besides the leaf: every target, and caller-chosen ids. */
export function referencedIds(drafts: readonly DraftEntry[]): string[] {
	const ids = new Set<string>();
	for (const draft of drafts) {
		if (
			(draft.type === "label" || draft.type === "leaf" || draft.type === "context_edit") &&
			typeof draft.targetId === "string"
		) {
			ids.add(draft.targetId);
		}
		if (draft.id !== undefined) ids.add(draft.id);
	}
	return [...ids];
}

/** Moves, labels and context edits must name a node of the session. */
export function requireNodeTarget(
	target: KnownEntry | undefined,
	targetId: string,
	field: string,
): KnownEntry {
	if (!target) throw new SessionError("NOT_FOUND", `Entry ${targetId} not found in this session`, { field });
	if (!target.isNode) {
		throw invalidInput(field, `entry ${targetId} is a leaf record, not a tree node; it cannot be a target`);
	}
	return target;
}

/**
 * Each draft's parent is the leaf at the moment it is appended; the leaf then
 * moves (to the entry, or for a leaf record to its target). Seq continues the
 * log without gaps. Every row is `author`'s (null: written without authentication).
 */
export function planAppend(
	sessionId: string,
	head: SessionHead,
	drafts: readonly DraftEntry[],
	known: (id: string) => KnownEntry | undefined,
	clock: PlanClock,
	author: string | null,
): AppendPlan {
	const planned = new Map<string, KnownEntry>();
	// The leaf is always a node of the session; its depth comes with the head.
	const leaf =
		head.leafId === null ? undefined : { id: head.leafId, isNode: true, depth: head.leafDepth ?? 0 };
	const lookup = (id: string) => planned.get(id) ?? known(id) ?? (id === leaf?.id ? leaf : undefined);
	const rows: StoredEntry[] = [];
	let leafId = head.leafId;
	let seq = head.lastSeq;
	const timestamp = clock.now();

	for (const draft of drafts) {
		const id = draft.id ?? clock.newId();
		if (lookup(id)) throw new SessionError("ALREADY_EXISTS", `Entry ${id} already exists in this session`);
		if (draft.type === "label" || draft.type === "context_edit")
			requireNodeTarget(lookup(draft.targetId as string), draft.targetId as string, "targetId");
		if (draft.type === "leaf" && draft.targetId !== null) {
			requireNodeTarget(lookup(draft.targetId as string), draft.targetId as string, "targetId");
		}
		const parent = leafId === null ? undefined : lookup(leafId);
		if (leafId !== null && !parent)
			throw new Error(`corrupt session ${sessionId}: leaf ${leafId} is not stored`);
		const entry = { type: draft.type, id, parentId: leafId, timestamp, ...ownFields(draft) } as Entry;
		const depth = parent ? parent.depth + 1 : 0;
		rows.push({ sessionId, seq: ++seq, depth, author, entry });
		planned.set(id, { id, isNode: isNode(draft), depth });
		leafId = leafAfter(entry);
	}
	return { rows, leafId, leafDepth: leafId === null ? null : (lookup(leafId)?.depth ?? null) };
}

/** Canonical JSON with sorted keys: equal content gives equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
	if (value !== null && typeof value === "object") {
		const keys = Object.keys(value)
			.filter((k) => (value as Record<string, unknown>)[k] !== undefined)
			.sort();
		return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}

/**
 * A re-sent entry (same caller id) is the same entry when its type and own
 * fields match; placement fields are storage-assigned and not compared. Nor
 * is the author: a retry of the same entry by another subject is still that
 * entry, and the stored row (with its original author) is the answer.
 */
export function sameContent(stored: Entry, draft: DraftEntry): boolean {
	return stored.type === draft.type && canonicalJson(ownFields(stored)) === canonicalJson(ownFields(draft));
}
