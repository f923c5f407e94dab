/**
 * The tree as pi's /tree draws it, as an ARIA tree (WAI-ARIA APG tree view
 * pattern): one tab stop (the selected row), ↑/↓ move, → goes to the first
 * child, ← to the parent, Home/End to the ends; selecting opens the entry.
 * Rows are flat DOM siblings carrying aria-level, because pi's layout only
 * indents at branch points.
 */
import { type KeyboardEvent, memo, useEffect, useMemo, useRef } from "react";
import { type AvatarGroup, describeGroup, groupViewers, type ViewerLike } from "../presence/avatars";
import { layoutTree, type SessionTree, type TreeNode, type TreeRow } from "../tree/tree";
import { Avatar } from "./PresenceAvatars";

export interface TreeViewProps {
	tree: SessionTree;
	selectedId: string | null;
	compareId: string | null;
	onSelect(entryId: string): void;
	onMarkCompare(entryId: string): void;
	/** Other viewers by the entry each focuses (presence): drawn as small avatars on those rows. */
	focusedBy?: ReadonlyMap<string, readonly ViewerLike[]>;
}

const NO_VIEWERS: readonly AvatarGroup[] = [];

const ROLE_TEXT: Record<string, string> = { user: "user", assistant: "assistant", toolResult: "tool" };

export function rowDomId(entryId: string): string {
	return `tree-node-${entryId}`;
}

const Row = memo(function Row({
	row,
	selected,
	tabbable,
	isLeaf,
	isCompare,
	setSize,
	viewers,
	onSelect,
}: {
	row: TreeRow;
	selected: boolean;
	tabbable: boolean;
	isLeaf: boolean;
	isCompare: boolean;
	setSize: number;
	viewers: readonly AvatarGroup[];
	onSelect(entryId: string): void;
}) {
	const { node } = row;
	const kind = node.type.toLowerCase().replace(/_/g, "-");
	const role = node.role ? (ROLE_TEXT[node.role] ?? node.role) : null;
	return (
		// biome-ignore lint/a11y/useKeyWithClickEvents: keys are handled once by the tree (roving tabindex, APG tree pattern), not per row.
		<div
			role="treeitem"
			id={rowDomId(node.entryId)}
			aria-level={row.indent + 1}
			aria-selected={selected}
			aria-setsize={setSize}
			tabIndex={tabbable ? 0 : -1}
			data-entry-id={node.entryId}
			data-seq={node.seq}
			data-active-path={node.onActivePath ? "true" : undefined}
			data-leaf={isLeaf ? "true" : undefined}
			className={[
				"tree-row",
				`type-${kind}`,
				node.role ? `role-${node.role}` : "",
				node.onActivePath ? "active-path" : "",
				selected ? "selected" : "",
				isCompare ? "compare-base" : "",
			].join(" ")}
			onClick={() => onSelect(node.entryId)}
		>
			{viewers.length > 0 ? (
				<span className="row-viewers" data-testid="row-viewers" data-viewer-ids={viewerIds(viewers)}>
					{viewers.map((group) => (
						<Avatar key={group.key} group={group} small />
					))}
					<span className="sr-only">viewed by {viewers.map(describeGroup).join(", ")}: </span>
				</span>
			) : null}
			<span className="prefix" aria-hidden="true">
				{row.prefix}
			</span>
			{node.onActivePath ? (
				<span className="path-marker" title="on the active path">
					<span aria-hidden="true">• </span>
					<span className="sr-only">active path: </span>
				</span>
			) : null}
			{node.label ? <span className="label">[{node.label}] </span> : null}
			{role ? <span className="role">{role}: </span> : null}
			<span className="preview">{node.preview}</span>
			{isLeaf ? <span className="leaf-pointer"> ← leaf</span> : null}
			{isCompare ? <span className="compare-tag"> (A)</span> : null}
		</div>
	);
});

function viewerIds(groups: readonly AvatarGroup[]): string {
	return groups.flatMap((g) => g.viewerIds).join(" ");
}

function firstChildRow(rows: readonly TreeRow[], at: number): number {
	const next = rows[at + 1];
	return next && next.parentRow === at ? at + 1 : -1;
}

export function TreeView({ tree, selectedId, compareId, onSelect, onMarkCompare, focusedBy }: TreeViewProps) {
	const rows = useMemo(() => layoutTree(tree), [tree]);
	// Groups per focused row, kept while the row's viewers stay the same, so a memoised row redraws
	// only when who focuses it changes (a presence update lists every viewer).
	const previousGroups = useRef(new Map<string, readonly AvatarGroup[]>());
	const groupsByEntry = useMemo(() => {
		const next = new Map<string, readonly AvatarGroup[]>();
		for (const [entryId, viewers] of focusedBy ?? []) {
			const groups = groupViewers(viewers, null);
			const before = previousGroups.current.get(entryId);
			const same =
				before !== undefined &&
				viewerIds(before) === viewerIds(groups) &&
				before.map((g) => g.name).join() === groups.map((g) => g.name).join();
			next.set(entryId, same ? before : groups);
		}
		previousGroups.current = next;
		return next;
	}, [focusedBy]);
	const position = useMemo(() => new Map(rows.map((row, i) => [row.node.entryId, i])), [rows]);
	const container = useRef<HTMLDivElement>(null);
	const focusNext = useRef(false);
	const selectedRow = selectedId === null ? -1 : (position.get(selectedId) ?? -1);
	// Without a selection the leaf (else the first row) is the tab stop, as pi opens /tree on the leaf.
	const tabStop =
		selectedRow >= 0 ? selectedRow : (position.get(tree.leafId ?? "") ?? (rows.length > 0 ? 0 : -1));

	// Opened on a long session, the selected row (the leaf, usually last) is brought into view once,
	// when its row is drawn: a large tree comes page by page.
	const scrolled = useRef(false);
	// biome-ignore lint/correctness/useExhaustiveDependencies: `rows` is when the row may have appeared.
	useEffect(() => {
		if (scrolled.current || selectedId === null) return;
		const element = document.getElementById(rowDomId(selectedId));
		if (!element) return;
		scrolled.current = true;
		element.scrollIntoView({ block: "center" });
	}, [selectedId, rows]);

	useEffect(() => {
		if (!focusNext.current || selectedId === null) return;
		focusNext.current = false;
		const element = document.getElementById(rowDomId(selectedId));
		element?.focus();
		element?.scrollIntoView({ block: "nearest" });
	}, [selectedId]);

	const move = (to: number) => {
		const row = rows[to];
		if (!row) return;
		focusNext.current = true;
		onSelect(row.node.entryId);
	};

	const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
		const at = tabStop;
		let handled = true;
		switch (event.key) {
			case "ArrowDown":
				move(Math.min(rows.length - 1, at + 1));
				break;
			case "ArrowUp":
				move(Math.max(0, at - 1));
				break;
			case "Home":
				move(0);
				break;
			case "End":
				move(rows.length - 1);
				break;
			case "ArrowRight": {
				const child = firstChildRow(rows, at);
				if (child >= 0) move(child);
				break;
			}
			case "ArrowLeft": {
				const parent = rows[at]?.parentRow ?? -1;
				if (parent >= 0) move(parent);
				break;
			}
			case "Enter":
			case " ":
				move(at);
				break;
			case "c": {
				const row = rows[at];
				if (row) onMarkCompare(row.node.entryId);
				break;
			}
			default:
				handled = false;
		}
		if (handled) event.preventDefault();
	};

	return (
		<div
			ref={container}
			role="tree"
			aria-label="Session tree"
			aria-describedby="tree-help"
			className="tree"
			onKeyDown={onKeyDown}
		>
			{rows.map((row, i) => (
				<Row
					key={row.node.entryId}
					row={row}
					selected={i === selectedRow}
					tabbable={i === tabStop}
					isLeaf={row.node.entryId === tree.leafId}
					isCompare={row.node.entryId === compareId}
					setSize={rows.length}
					viewers={groupsByEntry.get(row.node.entryId) ?? NO_VIEWERS}
					onSelect={onSelect}
				/>
			))}
		</div>
	);
}

export function describeNode(node: TreeNode): string {
	return `${node.role ? `${node.role}: ` : ""}${node.preview}`;
}
