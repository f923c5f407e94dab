/**
 * Two nodes side by side: their common ancestor and the path from it down
 * to each. Computed from the loaded tree (tree.ts compareNodes) until the
 * API has `Session.compare`.
 */
import { compareNodes, type SessionTree } from "../tree/tree";
import { describeNode } from "./TreeView";

export function ComparePanel({
	tree,
	a,
	b,
	onClear,
	onSelect,
}: {
	tree: SessionTree;
	a: string;
	b: string;
	onClear(): void;
	onSelect(entryId: string): void;
}) {
	const comparison = compareNodes(tree, a, b);
	const ancestor =
		comparison.commonAncestorId === null
			? undefined
			: tree.nodes[tree.index.get(comparison.commonAncestorId) ?? -1];
	const path = (name: string, id: string, nodes: typeof comparison.pathA) => (
		<section className="compare-path" aria-label={`Path to ${name}`} data-testid={`compare-path-${name}`}>
			<h3>
				{name}: {id} ({nodes.length} entr{nodes.length === 1 ? "y" : "ies"} below the ancestor)
			</h3>
			<ol>
				{nodes.map((node) => (
					<li key={node.entryId}>
						<button type="button" className="link" onClick={() => onSelect(node.entryId)}>
							{describeNode(node)}
						</button>
					</li>
				))}
			</ol>
		</section>
	);
	return (
		<section className="panel compare-panel" aria-labelledby="compare-heading">
			<h2 id="compare-heading">Compare</h2>
			<p data-testid="common-ancestor">
				Common ancestor:{" "}
				{ancestor ? (
					<button type="button" className="link" onClick={() => onSelect(ancestor.entryId)}>
						{ancestor.entryId}: {describeNode(ancestor)}
					</button>
				) : (
					"none (different roots)"
				)}
			</p>
			<div className="compare-columns">
				{path("A", a, comparison.pathA)}
				{path("B", b, comparison.pathB)}
			</div>
			<button type="button" onClick={onClear}>
				Stop comparing
			</button>
		</section>
	);
}
