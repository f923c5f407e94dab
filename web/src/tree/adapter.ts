/**
 * The one place that turns the API into the viewer's tree (tree.ts): the
 * node list from `Session.tree` pages, and live events (`sessionEvents`,
 * whose entries use the fragment below) as `TreeChange`s.
 */
import type { Client, OperationResult } from "urql";
import { graphql } from "../gql";
import type { TreeEntryFieldsFragment, TreePageQuery } from "../gql/graphql";
import { buildTree, type SessionTree, type SourceNode, type TreeChange } from "./tree";

/**
 * What a live event's entry needs to become a node that reads as `TreeNode`
 * does: `Entry.preview` is the server's `TreeNode.preview`. Both documents
 * ask for previews of 160 code points: codegen reads literal documents, so
 * the number is spelled out.
 */
export const TreeEntryFields = graphql(`
	fragment TreeEntryFields on Entry {
		__typename
		entryId
		parentId
		seq
		depth
		type
		label
		timestamp
		author
		preview(maxLength: 160)
		... on MessageEntry {
			role
		}
		... on BranchSummaryEntry {
			summary
		}
		... on CompactionEntry {
			tokensBefore
		}
		... on LabelEntry {
			targetId
			targetLabel
		}
		... on ModelChangeEntry {
			modelId
		}
		... on ThinkingLevelChangeEntry {
			thinkingLevel
		}
		... on CustomEntry {
			customType
		}
		... on CustomMessageEntry {
			customType
			content
		}
		... on SessionInfoEntry {
			name
		}
		... on ActiveToolsChangeEntry {
			activeToolNames
		}
	}
`);

const TreePage = graphql(`
	query TreePage($sessionId: String!, $first: Int!, $after: String) {
		session(sessionId: $sessionId) {
			sessionId
			leafId
			lastSeq
			tree(first: $first, after: $after) {
				totalCount
				pageInfo {
					hasNextPage
					endCursor
				}
				edges {
					node {
						entryId
						parentId
						seq
						depth
						type
						role
						label
						preview(maxLength: 160)
						onActivePath
						timestamp
						author
					}
				}
			}
		}
	}
`);

/** The most `Session.tree` answers in one page. */
export const TREE_PAGE_SIZE = 2_000;

export function nodeOf(entry: TreeEntryFieldsFragment): SourceNode {
	return {
		entryId: entry.entryId,
		parentId: entry.parentId ?? null,
		seq: entry.seq,
		depth: entry.depth,
		type: entry.type,
		role: entry.__typename === "MessageEntry" ? entry.role : null,
		label: entry.label ?? null,
		preview: entry.preview,
		timestamp: entry.timestamp,
		author: entry.author ?? null,
	};
}

/** An appended entry as a tree change (a leaf record is no node: it only moves the pointer). */
export function changeOf(entry: TreeEntryFieldsFragment, seq: number, leafId: string | null): TreeChange {
	if (entry.type === "LEAF") return { seq, leafId };
	return {
		seq,
		leafId,
		node: nodeOf(entry),
		...(entry.__typename === "LabelEntry" && entry.targetId != null
			? { label: { targetId: entry.targetId, label: entry.targetLabel ?? null } }
			: {}),
	};
}

export class SessionNotFoundError extends Error {
	override name = "SessionNotFoundError";
}

/** The tree so far: `complete` once every node up to `tree.lastSeq` is in. */
export interface LoadedTree {
	tree: SessionTree;
	/** Nodes read so far, of `total` (the session's node count when the first page was read). */
	loaded: number;
	total: number;
	complete: boolean;
}

/**
 * The tree as of one seq, a page at a time, so a large session shows its
 * first 2,000 nodes at once and the rest as they come. `lastSeq` and
 * `leafId` are read with the first page; nodes appended while the later
 * pages load (seq above it) are left for the live events that resume after
 * lastSeq, so each change is applied exactly once. `after` is a seq
 * position: it stays valid while the session grows.
 */
export async function* loadTree(client: Client, sessionId: string): AsyncGenerator<LoadedTree> {
	const nodes: SourceNode[] = [];
	let snapshot: { leafId: string | null; lastSeq: number; total: number } | undefined;
	let after: string | null = null;
	for (;;) {
		const result: OperationResult<TreePageQuery> = await client
			.query(TreePage, { sessionId, after, first: TREE_PAGE_SIZE }, { requestPolicy: "network-only" })
			.toPromise();
		if (result.error) throw result.error;
		const session = result.data?.session;
		if (!session) throw new SessionNotFoundError(`No session ${sessionId}`);
		snapshot ??= { leafId: session.leafId ?? null, lastSeq: session.lastSeq, total: session.tree.totalCount };
		for (const { node } of session.tree.edges) {
			if (node.seq <= snapshot.lastSeq) {
				nodes.push({
					entryId: node.entryId,
					parentId: node.parentId ?? null,
					seq: node.seq,
					depth: node.depth,
					type: node.type,
					role: node.role ?? null,
					label: node.label ?? null,
					preview: node.preview,
					onActivePath: node.onActivePath,
					timestamp: node.timestamp,
					author: node.author ?? null,
				});
			}
		}
		const { hasNextPage, endCursor } = session.tree.pageInfo;
		const last = session.tree.edges.at(-1)?.node.seq ?? 0;
		const complete = !hasNextPage || !endCursor || last >= snapshot.lastSeq;
		yield {
			tree: buildTree(nodes, snapshot.leafId, snapshot.lastSeq),
			loaded: nodes.length,
			total: Math.max(snapshot.total, nodes.length),
			complete,
		};
		if (complete) return;
		after = endCursor;
	}
}
