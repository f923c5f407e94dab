/**
 * Continuing a session from its file (design/tree-rules.md#continuing-from-a-file):
 * given the lines of a pi file after an entry the session holds, store the
 * lines it does not hold yet, when what it holds after that entry is what
 * the file has there. Pure: a backend reads the session head, the entry
 * the lines follow and the log after it, calls `planContinuation`, and
 * writes the returned rows and pointer in one transaction.
 *
 * The lines are compared with what the session's export holds after that
 * entry, in the form the lines are in: the `pi` form for pi's coding agent's
 * lines (no leaf records, and the leaf anchor when the pointer is not the
 * last node), the log as it is for lines with leaf records (the harness's).
 * A new line keeps its id, parent and time, and is taken as an import of
 * the whole file takes it (session/jsonl.ts), whatever pieces the file comes
 * in: a line whose parent is missing is a root, as pi loads it. The coding
 * agent writes no leaf records: where a new line's parent is not the pointer
 * (pi went back with `/tree`), a leaf record moving the pointer to that
 * parent goes before it, so the pointer stays the replay of the log and live
 * viewers see the move.
 */
import { canonicalJson, type KnownEntry, type SessionHead } from "./append.js";
import { type Entry, isNode, isOf, type StoredEntry } from "./entry.js";
import { SessionError } from "./errors.js";
import { leafAnchor } from "./export.js";

export interface ContinuationClock {
	newId(): string;
}

export interface ContinuationPlan {
	/** Rows to append: the new lines, and a leaf record before each one whose parent is not the pointer. */
	rows: StoredEntry[];
	leafId: string | null;
	leafDepth: number | null;
	/** Lines the session held already. */
	held: number;
	/** Lines stored now. */
	appended: number;
}

/**
 * The conflict a continuation reports: line `line` of the text given (its
 * physical line, the header being line 1 of a whole file) is not what the
 * session holds there.
 */
function divergedAt(line: number, given: Entry, stored: Entry | undefined): SessionError {
	const held = stored ? `the session holds a ${stored.type} entry ${JSON.stringify(stored.id)} there` : "";
	return new SessionError(
		"ALREADY_EXISTS",
		`line ${line}: the file no longer matches the stored session (given a ${given.type} entry ${JSON.stringify(given.id)}; ${held || "the session holds other content there"})`,
		{ field: "jsonl" },
	);
}

/**
 * What the session's export holds after the entry the lines follow, in the
 * lines' form: `tail` is the log after it, `lastNode` the last node up to it
 * (none before the first line), `leafId` the pointer.
 */
function expectedAfter(
	sessionId: string,
	tail: readonly Entry[],
	lastNodeBefore: string | null,
	leafId: string | null,
	lossless: boolean,
): { entries: Entry[]; anchored: boolean } {
	if (lossless) return { entries: [...tail], anchored: false };
	const nodes = tail.filter(isNode);
	const lastNode = nodes[nodes.length - 1]?.id ?? lastNodeBefore;
	const move = tail.findLast((entry) => !isNode(entry));
	// The anchor under a pointer that is not the last node (after a move through the API, or to the root).
	if (lastNode === leafId || (lastNode === null && leafId === null) || !move)
		return { entries: nodes, anchored: false };
	return { entries: [...nodes, leafAnchor(sessionId, move, leafId)], anchored: true };
}

/**
 * Plans storing `lines`, which follow `after` (null: they are the file's
 * first lines) in the session's file. `tail` is the session's log after
 * `after` in seq order; `known` answers for the session's entries up to it.
 * Throws ALREADY_EXISTS (`jsonl`) at the first line that differs from what
 * the session holds, or whose id the session holds elsewhere; INVALID_INPUT
 * for a new line an import would refuse: a parent or a target that is a leaf
 * record, a move to no entry, a parent defined by a later line.
 */
export function planContinuation(
	sessionId: string,
	head: SessionHead,
	after: { entry: Entry; depth: number } | null,
	tail: readonly StoredEntry[],
	lines: readonly Entry[],
	/** The physical line of the given text each of `lines` is on (a whole file's header is line 1). */
	lineNumbers: readonly number[],
	known: (id: string) => KnownEntry | undefined,
	clock: ContinuationClock,
	author: string | null,
): ContinuationPlan {
	const lossless = lines.some((line) => !isNode(line));
	const lastNodeBefore = after && isNode(after.entry) ? after.entry.id : null;
	const expected = expectedAfter(
		sessionId,
		tail.map((row) => row.entry),
		lastNodeBefore,
		head.leafId,
		lossless,
	);
	const shared = Math.min(lines.length, expected.entries.length);
	for (let i = 0; i < shared; i++) {
		const given = lines[i] as Entry;
		if (canonicalJson(given) !== canonicalJson(expected.entries[i]))
			throw divergedAt(lineNumbers[i] as number, given, expected.entries[i]);
	}
	// The anchor is the file's line, not yet the session's: stored with the new ones when the file has it.
	const heldCount = expected.anchored ? expected.entries.length - 1 : expected.entries.length;
	if (lines.length <= heldCount)
		return { rows: [], leafId: head.leafId, leafDepth: head.leafDepth, held: lines.length, appended: 0 };

	const planned = new Map<string, KnownEntry>();
	const inTail = new Map(
		tail.map((row) => [row.entry.id, { id: row.entry.id, isNode: isNode(row.entry), depth: row.depth }]),
	);
	const lookup = (id: string): KnownEntry | undefined =>
		planned.get(id) ??
		inTail.get(id) ??
		(after?.entry.id === id ? { id, isNode: isNode(after.entry), depth: after.depth } : undefined) ??
		known(id);
	const rows: StoredEntry[] = [];
	let seq = head.lastSeq;
	let leafId = head.leafId;
	let leafDepth = head.leafDepth;
	const push = (entry: Entry, depth: number) => {
		rows.push({ sessionId, seq: ++seq, depth, author, entry });
		planned.set(entry.id, { id: entry.id, isNode: isNode(entry), depth });
	};
	/** INVALID_INPUT naming the line first, as an import's refusal does (session/jsonl.ts). */
	const refused = (at: string, field: string, problem: string) =>
		new SessionError("INVALID_INPUT", `${at}: ${field} ${problem}`, { field: `${at}.${field}` });
	/** Parents no line before defined: roots now, and no later line may define them (a cycle). */
	const missingParents: Array<{ at: string; parentId: string }> = [];
	for (let i = heldCount; i < lines.length; i++) {
		const line = lines[i] as Entry;
		const at = `line ${lineNumbers[i]}`;
		if (lookup(line.id))
			throw new SessionError(
				"ALREADY_EXISTS",
				`${at}: entry ${JSON.stringify(line.id)} is already in the session, elsewhere`,
				{ field: "jsonl" },
			);
		const parent = line.parentId === null ? undefined : lookup(line.parentId);
		if (parent && !parent.isNode)
			throw refused(at, "parentId", `${JSON.stringify(line.parentId)} names a leaf record`);
		if (line.parentId !== null && !parent) missingParents.push({ at, parentId: line.parentId });
		const depth = parent ? parent.depth + 1 : 0;
		if (isOf(line, "leaf")) {
			// A harness file's move: the pointer goes to its target, a node (or the root).
			const target = line.targetId === null ? null : lookup(line.targetId);
			if (target === undefined)
				throw refused(at, "targetId", `${JSON.stringify(line.targetId)} does not name an earlier entry`);
			if (target && !target.isNode)
				throw refused(at, "targetId", `${JSON.stringify(line.targetId)} names a leaf record`);
			push(line, depth);
			leafId = line.targetId;
			leafDepth = target === null ? null : target.depth;
			continue;
		}
		// A label or context edit may name an entry the session lacks (a fork's): it changes nothing.
		if ((isOf(line, "label") || isOf(line, "context_edit")) && lookup(line.targetId)?.isNode === false)
			throw refused(at, "targetId", `${JSON.stringify(line.targetId)} names a leaf record`);
		// The coding agent went back (or its line is an orphan, a root): the move its file does not
		// record, as the service records every move. A harness file records its own.
		const under = parent ? parent.id : null;
		if (under !== leafId && !lossless) {
			const move = {
				type: "leaf",
				id: clock.newId(),
				parentId: leafId,
				timestamp: line.timestamp,
				targetId: under,
			} as Entry;
			push(move, leafDepth === null ? 0 : leafDepth + 1);
		}
		push(line, depth);
		leafId = line.id;
		leafDepth = depth;
	}
	for (const { at, parentId } of missingParents) {
		if (planned.has(parentId))
			throw refused(at, "parentId", `${JSON.stringify(parentId)} names a later line's entry`);
	}
	return { rows, leafId, leafDepth, held: heldCount, appended: lines.length - heldCount };
}
