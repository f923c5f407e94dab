/**
 * The one place that turns the API into the viewer's tree (tree.ts). Today
 * the node list is read from `Session.entries` pages (every type but leaf
 * records) with the typed fields a row needs; when the API gains
 * `Session.tree` (issue 12), `loadTree` becomes that one query and nothing
 * else in the app changes. Live events (`sessionEvents`) carry entries of
 * the same fragment and become `TreeChange`s here too.
 */
import type { Client, OperationResult } from "urql";
import { graphql } from "../gql";
import type { EntryType, TreeEntryFieldsFragment, TreePageQuery } from "../gql/graphql";
import { buildTree, type SessionTree, type TreeChange, type TreeNode } from "./tree";

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
		... on MessageEntry {
			role
			preview(maxLength: 160)
			stopReason
			errorMessage
			toolName
			toolCallNames
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
			modelProvider: provider
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
	query TreePage($sessionId: String!, $after: String, $first: Int!, $types: [EntryType!]) {
		session(sessionId: $sessionId) {
			sessionId
			leafId
			lastSeq
			entries(first: $first, after: $after, types: $types) {
				pageInfo {
					hasNextPage
					endCursor
				}
				edges {
					node {
						...TreeEntryFields
					}
				}
			}
		}
	}
`);

/** Every entry type that is a tree node: all but leaf records. */
const NODE_TYPES: EntryType[] = [
	"ACTIVE_TOOLS_CHANGE",
	"BRANCH_SUMMARY",
	"COMPACTION",
	"CUSTOM",
	"CUSTOM_MESSAGE",
	"LABEL",
	"MESSAGE",
	"MODEL_CHANGE",
	"SESSION_INFO",
	"THINKING_LEVEL_CHANGE",
];

/**
 * The server prices this fragment at 44 per node (every inline fragment's
 * fields count): 400 nodes are 17,600 of its 20,000 per query (MAX_QUERY_COST).
 */
const PAGE_SIZE = 400;

const oneLine = (text: string, max = 160) => {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The row text pi's /tree shows for an entry. */
export function previewOf(entry: TreeEntryFieldsFragment): string {
	switch (entry.__typename) {
		case "MessageEntry": {
			if (entry.role === "toolResult") return `[${entry.toolName ?? "tool"}] ${oneLine(entry.preview, 120)}`;
			if (entry.preview.trim()) return oneLine(entry.preview);
			if (entry.stopReason === "aborted") return "(aborted)";
			if (entry.errorMessage) return oneLine(entry.errorMessage, 80);
			if (entry.toolCallNames.length > 0) return `(tool calls: ${entry.toolCallNames.join(", ")})`;
			return "(no content)";
		}
		case "BranchSummaryEntry":
			return `[branch summary]: ${oneLine(entry.summary)}`;
		case "CompactionEntry":
			return `[compaction: ${Math.round(entry.tokensBefore / 1000)}k tokens]`;
		case "LabelEntry":
			return `[label: ${entry.targetLabel ?? "(cleared)"}]`;
		case "ModelChangeEntry":
			return `[model: ${entry.modelProvider}/${entry.modelId}]`;
		case "ThinkingLevelChangeEntry":
			return `[thinking: ${entry.thinkingLevel}]`;
		case "CustomEntry":
			return `[custom: ${entry.customType}]`;
		case "CustomMessageEntry":
			return `[${entry.customType}]`;
		case "SessionInfoEntry":
			return `[title: ${entry.name ?? "empty"}]`;
		case "ActiveToolsChangeEntry":
			return `[tools: ${entry.activeToolNames.join(", ")}]`;
		default:
			return `[${entry.type.toLowerCase()}]`;
	}
}

export function nodeOf(entry: TreeEntryFieldsFragment): Omit<TreeNode, "childCount" | "onActivePath"> {
	return {
		entryId: entry.entryId,
		parentId: entry.parentId ?? null,
		seq: entry.seq,
		depth: entry.depth,
		type: entry.type,
		role: entry.__typename === "MessageEntry" ? entry.role : null,
		label: entry.label ?? null,
		preview: previewOf(entry),
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
		...(entry.__typename === "LabelEntry"
			? { label: { targetId: entry.targetId, label: entry.targetLabel ?? null } }
			: {}),
	};
}

export class SessionNotFoundError extends Error {
	override name = "SessionNotFoundError";
}

/**
 * The tree as of one seq: `lastSeq` and `leafId` are read from the session
 * row with the first page, and entries appended while the later pages load
 * (seq above it) are left for the live events that resume after lastSeq.
 */
export async function loadTree(client: Client, sessionId: string): Promise<SessionTree> {
	const nodes: Omit<TreeNode, "childCount" | "onActivePath">[] = [];
	let snapshot: { leafId: string | null; lastSeq: number } | undefined;
	let after: string | null = null;
	for (;;) {
		const result: OperationResult<TreePageQuery> = await client
			.query(
				TreePage,
				{ sessionId, after, first: PAGE_SIZE, types: NODE_TYPES },
				{ requestPolicy: "network-only" },
			)
			.toPromise();
		if (result.error) throw result.error;
		const session = result.data?.session;
		if (!session) throw new SessionNotFoundError(`No session ${sessionId}`);
		snapshot ??= { leafId: session.leafId ?? null, lastSeq: session.lastSeq };
		for (const edge of session.entries.edges) {
			if (edge.node.seq <= snapshot.lastSeq) nodes.push(nodeOf(edge.node));
		}
		const { hasNextPage, endCursor } = session.entries.pageInfo;
		const last = session.entries.edges.at(-1)?.node.seq ?? 0;
		if (!hasNextPage || !endCursor || last >= snapshot.lastSeq) break;
		after = endCursor;
	}
	return buildTree(nodes, snapshot.leafId, snapshot.lastSeq);
}
