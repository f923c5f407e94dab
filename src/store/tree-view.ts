/**
 * The store's side of the tree view (session/tree-view.ts): what a page
 * asks for and answers, and the reference answer from a session's whole log
 * (the memory backend). Pages go in log order, keyed by `seq`: a node's
 * place never changes (the log is append-only), so a cursor stays valid
 * while the session grows, and a viewer that paged to the end continues
 * from its last `seq` with `sessionEvents`.
 */
import type { StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import { pathToRoot } from "../session/tree.js";
import { type Comparison, comparePaths, treeNodes } from "../session/tree-view.js";
import { decodeSeqCursor } from "./paging.js";
import { checkPathStart } from "./records.js";
import type { TreePage, TreeQuery } from "./store.js";

/** A tree node is one narrow row: pages may be longer than other connections' (store/paging.ts). */
export const DEFAULT_TREE_PAGE_SIZE = 500;
export const MAX_TREE_PAGE_SIZE = 2_000;

/** A tree page from Relay's forward arguments: `after` is a seq cursor (store/paging.ts#seqCursor). */
export function treeQuery(first: number | null | undefined, after: string | null | undefined): TreeQuery {
	const size = first ?? DEFAULT_TREE_PAGE_SIZE;
	if (!Number.isInteger(size) || size < 1) throw invalidInput("first", "must be a positive integer");
	if (size > MAX_TREE_PAGE_SIZE)
		throw new SessionError("LIMIT_EXCEEDED", `first: at most ${MAX_TREE_PAGE_SIZE} nodes per page`, {
			field: "first",
		});
	return { first: size, afterSeq: after == null ? 0 : decodeSeqCursor(after, "after") };
}

/** A page of the tree view from the session's whole log (log order; leaf records are not nodes). */
export function treePageOf(log: readonly StoredEntry[], leafId: string | null, query: TreeQuery): TreePage {
	const after = treeNodes(log, leafId).filter(({ node }) => node.seq > query.afterSeq);
	return { nodes: after.slice(0, query.first), hasNextPage: after.length > query.first };
}

/**
 * Two nodes of one session compared (session/tree-view.ts#comparePaths),
 * looking entries up through `byId`. Each must be a node of the session:
 * NOT_FOUND on its field (`a`, `b`) otherwise, INVALID_INPUT for a leaf
 * record.
 */
export function compareOf(
	sessionId: string,
	a: string,
	b: string,
	byId: (id: string) => StoredEntry | undefined,
): Comparison<StoredEntry> {
	for (const [field, id] of [
		["a", a],
		["b", b],
	] as const) {
		checkPathStart(sessionId, id, byId(id), field);
	}
	return comparePaths(pathToRoot(a, byId), pathToRoot(b, byId));
}
