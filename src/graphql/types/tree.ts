/**
 * The tree view (session/tree-view.ts) and the comparison of two nodes, as
 * fields of Session: `tree` pages every node of the session compactly (what
 * a viewer's line shows, no payloads), `compare` answers two nodes' common
 * ancestor and diverging paths.
 */

import { isOf, type StoredEntry, typeOrOther } from "../../session/entry.js";
import { DEFAULT_PREVIEW_LENGTH } from "../../session/message-summary.js";
import { type Comparison, nodePreview, type TreeNode } from "../../session/tree-view.js";
import { seqCursor } from "../../store/paging.js";
import { treeQuery } from "../../store/tree-view.js";
import { spend } from "../budget.js";
import { builder } from "../builder.js";
import { connection, connectionType } from "../connection.js";
import { EntryRef, EntryTypeEnum, SessionRef } from "../refs.js";

const TreeNodeRef = builder.objectRef<TreeNode>("TreeNode").implement({
	description:
		"One node of the session's tree as a tree view shows it (pi's /tree): placement, role, label, a one-line preview.",
	fields: (t) => ({
		entryId: t.string({ resolve: (n) => n.node.entry.id }),
		parentId: t.string({ nullable: true, resolve: (n) => n.node.entry.parentId }),
		seq: t.int({ resolve: (n) => n.node.seq }),
		depth: t.int({ resolve: (n) => n.node.depth }),
		type: t.field({ type: EntryTypeEnum, resolve: (n) => typeOrOther(n.node.entry.type) }),
		typeName: t.string({
			description: "The entry's `type` as pi wrote it (see Entry.typeName).",
			resolve: (n) => n.node.entry.type,
		}),
		role: t.string({
			nullable: true,
			description: "A message's role; null for other entry types.",
			resolve: (n) => (isOf(n.node.entry, "message") ? n.node.entry.message.role : null),
		}),
		label: t.string({ nullable: true, description: "The node's current label.", resolve: (n) => n.label }),
		preview: t.string({
			description:
				"One line of plain text: a message's preview (as MessageEntry.preview), a tag such as `[branch summary]: …` or `[model: id]` for other types.",
			args: { maxLength: t.arg.int({ defaultValue: DEFAULT_PREVIEW_LENGTH }) },
			resolve: (n, { maxLength }) => nodePreview(n.node.entry, maxLength ?? DEFAULT_PREVIEW_LENGTH),
		}),
		childCount: t.int({
			description: "Child nodes (leaf records are not nodes).",
			resolve: (n) => n.childCount,
		}),
		onActivePath: t.boolean({
			description: "On the path root → the session's leaf.",
			resolve: (n) => n.onActivePath,
		}),
		timestamp: t.field({ type: "DateTime", resolve: (n) => n.node.entry.timestamp }),
		author: t.string({ nullable: true, resolve: (n) => n.node.author }),
	}),
});

const TreeNodeConnectionRef = connectionType("TreeNode", TreeNodeRef);

const ComparisonRef = builder.objectRef<Comparison<StoredEntry>>("Comparison").implement({
	description:
		"Two nodes of a session compared: their deepest common ancestor and the paths below it to each.",
	fields: (t) => ({
		ancestor: t.field({
			type: EntryRef,
			nullable: true,
			description: "The deepest node on both paths (a itself when a is an ancestor of b).",
			resolve: (c) => c.ancestor,
		}),
		a: t.field({
			type: [EntryRef],
			description: "ancestor (exclusive) → a, root first.",
			resolve: (c) => c.a,
		}),
		b: t.field({
			type: [EntryRef],
			description: "ancestor (exclusive) → b, root first.",
			resolve: (c) => c.b,
		}),
	}),
});

builder.objectFields(SessionRef, (t) => ({
	tree: t.field({
		type: TreeNodeConnectionRef,
		description:
			"Every node of the tree (leaf records excluded) in log order, compactly, paged forward by seq (up to 2,000 nodes a page; `after` stays valid as the session grows; sessionEvents carries what is appended later).",
		// A node is one narrow row with scalar fields only: a tenth of an entry's cost.
		complexity: (args) => ({ field: 5, multiplier: Math.ceil((args.first ?? 500) / 10) }),
		args: { first: t.arg.int(), after: t.arg.string() },
		resolve: async (s, { first, after }, { store, workspaceId, budget }) => {
			const query = treeQuery(first, after);
			// Nodes are the entries less the leaf records (usually few: counted through the type index).
			const [page, leafRecords] = await Promise.all([
				store.sessionTree(workspaceId, s.sessionId, query),
				store.countEntries(workspaceId, s.sessionId, ["leaf"]),
			]);
			const edges = spend(budget, page.nodes).map((node) => ({ cursor: seqCursor(node.node.seq), node }));
			return connection(
				{ items: edges, hasNextPage: page.hasNextPage, hasPreviousPage: query.afterSeq > 0 },
				s.entryCount - leafRecords,
			);
		},
	}),
	compare: t.field({
		type: ComparisonRef,
		description:
			"The common ancestor of nodes a and b and the diverging paths below it (one statement on Postgres).",
		// Two paths of unknown length: charged by the result budget as they come.
		complexity: { field: 20, multiplier: 50 },
		args: { a: t.arg.string({ required: true }), b: t.arg.string({ required: true }) },
		resolve: async (s, { a, b }, { store, workspaceId, loaders, budget }) => {
			const found = await store.compareNodes(workspaceId, s.sessionId, a, b);
			if (found.ancestor) loaders.prime([found.ancestor]);
			return {
				ancestor: found.ancestor,
				a: [...loaders.prime(spend(budget, found.a))],
				b: [...loaders.prime(spend(budget, found.b))],
			};
		},
	}),
}));
