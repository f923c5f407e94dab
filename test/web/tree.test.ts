/**
 * The viewer's tree rules (web/src/tree/tree.ts), pure: applying live
 * events exactly once in seq order, the active path (also while a large
 * tree loads page by page), and pi's /tree layout.
 */
import { describe, expect, it } from "vitest";
import {
	applyChange,
	buildTree,
	layoutTree,
	type SessionTree,
	type TreeNode,
} from "../../web/src/tree/tree.js";

type Plain = Omit<TreeNode, "childCount" | "onActivePath">;

const node = (entryId: string, parentId: string | null, seq: number): Plain => ({
	entryId,
	parentId,
	seq,
	depth: 0,
	type: "MESSAGE",
	role: "user",
	label: null,
	preview: entryId,
	timestamp: "2026-01-01T00:00:00.000Z",
	author: null,
});

/** u1 → a1 → u2 → a2, and a1 → s1 → u3 (the leaf); seq 5 was the leaf record of the move. */
function branched(): SessionTree {
	return buildTree(
		[
			node("u1", null, 1),
			node("a1", "u1", 2),
			node("u2", "a1", 3),
			node("a2", "u2", 4),
			node("s1", "a1", 6),
			node("u3", "s1", 7),
		],
		"u3",
		7,
	);
}

const active = (tree: SessionTree) => tree.nodes.filter((n) => n.onActivePath).map((n) => n.entryId);

describe("viewer tree", () => {
	it("derives child counts and the active path from the node list", () => {
		const tree = branched();
		expect(tree.nodes.find((n) => n.entryId === "a1")?.childCount).toBe(2);
		expect(active(tree)).toEqual(["u1", "a1", "s1", "u3"]);
	});

	it("applies the next seq, drops a replay, and reports a gap", () => {
		const tree = branched();
		const next = applyChange(tree, { seq: 8, leafId: "a3", node: node("a3", "u3", 8) });
		expect(next.kind).toBe("applied");
		const applied = next.tree;
		expect(applied.lastSeq).toBe(8);
		expect(applied.nodes).toHaveLength(7);
		expect(applied.nodes.find((n) => n.entryId === "u3")?.childCount).toBe(1);

		const replay = applyChange(applied, { seq: 8, leafId: "a3", node: node("a3", "u3", 8) });
		expect(replay.kind).toBe("duplicate");
		expect(replay.tree).toBe(applied);

		const gap = applyChange(applied, { seq: 10, leafId: "x", node: node("x", "a3", 10) });
		expect(gap).toMatchObject({ kind: "gap", expected: 9, got: 10 });
		expect(gap.tree).toBe(applied);
	});

	it("moves the active path with the leaf and sets labels on their targets", () => {
		const moved = applyChange(branched(), { seq: 8, leafId: "a2" });
		expect(active(moved.tree)).toEqual(["u1", "a1", "u2", "a2"]);
		const labelled = applyChange(moved.tree, {
			seq: 9,
			leafId: "l1",
			node: { ...node("l1", "a2", 9), type: "LABEL", role: null },
			label: { targetId: "u1", label: "start" },
		});
		expect(labelled.tree.nodes.find((n) => n.entryId === "u1")?.label).toBe("start");
		const cleared = applyChange(labelled.tree, {
			seq: 10,
			leafId: "l2",
			node: { ...node("l2", "l1", 10), type: "LABEL", role: null },
			label: { targetId: "u1", label: null },
		});
		expect(cleared.tree.nodes.find((n) => n.entryId === "u1")?.label).toBeNull();
	});

	it("lays out like pi's /tree: active branch first, indents only at branch points", () => {
		const rows = layoutTree(branched());
		expect(rows.map((r) => r.node.entryId)).toEqual(["u1", "a1", "s1", "u3", "u2", "a2"]);
		const indent = Object.fromEntries(rows.map((r) => [r.node.entryId, r.indent]));
		expect(indent).toEqual({ u1: 0, a1: 0, s1: 1, u3: 2, u2: 1, a2: 2 });
		expect(rows.map((r) => r.prefix)).toEqual(["", "", "├─ ", "│     ", "└─ ", "      "]);
		const parentOf = (id: string) =>
			rows[rows.find((r) => r.node.entryId === id)?.parentRow ?? -1]?.node.entryId;
		expect(parentOf("u2")).toBe("a1");
		expect(parentOf("u1")).toBeUndefined();
	});

	it("lays out a 100,000-entry chain flat, without recursion", () => {
		const nodes = Array.from({ length: 100_000 }, (_, i) =>
			node(`e${i}`, i === 0 ? null : `e${i - 1}`, i + 1),
		);
		const rows = layoutTree(buildTree(nodes, "e99999", 100_000));
		expect(rows).toHaveLength(100_000);
		expect(rows.every((r) => r.indent === 0)).toBe(true);
	});

	it("keeps the source's active path until the page holding the leaf arrives, then derives it", () => {
		// The first page of u1 → a1 → {u2 → a2, s1 → u3}: the leaf u3 is not in it yet.
		const first = [node("u1", null, 1), node("a1", "u1", 2), node("u2", "a1", 3)].map((n) => ({
			...n,
			onActivePath: n.entryId !== "u2",
		}));
		expect(active(buildTree(first, "u3", 7))).toEqual(["u1", "a1"]);
		// With the leaf loaded a source's flags no longer count (here they are all wrong).
		const all = [...first, node("a2", "u2", 4), node("s1", "a1", 6), node("u3", "s1", 7)].map((n) => ({
			...n,
			onActivePath: !("onActivePath" in n) || !n.onActivePath,
		}));
		expect(active(buildTree(all, "u3", 7))).toEqual(["u1", "a1", "s1", "u3"]);
	});
});
