/**
 * The tree as a viewer shows it (pi's `/tree`): every node once, with what
 * a line needs (its child count, its current label, whether it is on the
 * active path, a one-line preview), and the comparison of two nodes. Pure
 * rules over a session's log; a backend may answer the same in SQL, and the
 * conformance suite holds both to the same results.
 */
import { type Entry, isKnownEntry, isNode, type StoredEntry } from "./entry.js";
import { messagePreview } from "./message-summary.js";
import { labelsOf, pathToRoot } from "./tree.js";

/** A node of the tree view: the entry and what its line shows besides. */
export interface TreeNode {
	node: StoredEntry;
	/** Child nodes (leaf records are not children). */
	childCount: number;
	/** The node's current label (the latest label entry for it; cleared is none). */
	label: string | null;
	/** Whether the node is on the path root → the session's leaf. */
	onActivePath: boolean;
}

/**
 * Every node of the log, in log order, as the tree view shows it: leaf
 * records are not nodes, labels are their targets' `label`.
 */
export function treeNodes(log: readonly StoredEntry[], leafId: string | null): TreeNode[] {
	const byId = new Map<string, StoredEntry>();
	const children = new Map<string, number>();
	for (const stored of log) {
		if (!isNode(stored.entry)) continue;
		byId.set(stored.entry.id, stored);
		const { parentId } = stored.entry;
		if (parentId !== null) children.set(parentId, (children.get(parentId) ?? 0) + 1);
	}
	const onPath = new Set(pathToRoot(leafId, (id) => byId.get(id)).map((s) => s.entry.id));
	const labels = labelsOf(log);
	return [...byId.values()].map((node) => ({
		node,
		childCount: children.get(node.entry.id) ?? 0,
		label: labels.get(node.entry.id)?.label ?? null,
		onActivePath: onPath.has(node.entry.id),
	}));
}

/** The text of a custom message's content: a string, or its text items joined. */
function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((item) => item?.type === "text" && typeof item.text === "string")
		.map((item) => item.text as string)
		.join("");
}

/**
 * One line for the node, as pi's tree view writes it (without its colours
 * and the role, which has its own field): a message's preview
 * (session/message-summary.ts#messagePreview); for the other types a
 * bracketed tag, e.g. `[branch summary]: …`, `[model: id]`,
 * `[compaction: 12k tokens]`, `[label: name]`. Cut and collapsed by the
 * message preview's rules to `maxLength` code points.
 */
export function nodePreview(entry: Entry, maxLength: number): string {
	const line = (text: string) => messagePreview({ role: "custom", content: text }, maxLength);
	// A type the service does not know: its name, as a tag (pi's tree shows nothing for it).
	if (!isKnownEntry(entry)) return line(`[${entry.type}]`);
	switch (entry.type) {
		case "message":
			return messagePreview(entry.message, maxLength);
		case "custom_message":
			return line(`[${entry.customType}]: ${contentText(entry.content)}`);
		case "compaction":
			return line(`[compaction: ${Math.round(entry.tokensBefore / 1000)}k tokens]`);
		case "branch_summary":
			return line(`[branch summary]: ${entry.summary}`);
		case "model_change":
			return line(`[model: ${entry.modelId}]`);
		case "thinking_level_change":
			return line(`[thinking: ${entry.thinkingLevel}]`);
		case "active_tools_change":
			return line(`[tools: ${entry.activeToolNames.join(", ")}]`);
		case "custom":
			return line(`[custom: ${entry.customType}]`);
		case "usage":
			return line(`[usage: ${entry.kind} ${entry.provider}/${entry.model}]`);
		case "context_edit":
			return line(`[context ${entry.replacement === null ? "omit" : "replace"}: ${entry.targetId}]`);
		case "label":
			return line(`[label: ${entry.label || "(cleared)"}]`);
		case "session_info":
			return line(`[title: ${entry.name || "empty"}]`);
		case "leaf":
			return "";
	}
}

/** Two nodes compared: their deepest common ancestor and each one's path below it. */
export interface Comparison<T> {
	/** The deepest node on both paths (null when they share no root: never within one session). */
	ancestor: T | null;
	/** ancestor (exclusive) → a (inclusive); empty when a is the ancestor. */
	a: T[];
	/** ancestor (exclusive) → b (inclusive). */
	b: T[];
}

/** Compares two root-first paths (root → a, root → b) of one tree. */
export function comparePaths<T extends { entry: Pick<Entry, "id"> }>(
	pathA: readonly T[],
	pathB: readonly T[],
): Comparison<T> {
	let shared = 0;
	while (
		shared < pathA.length &&
		shared < pathB.length &&
		(pathA[shared] as T).entry.id === (pathB[shared] as T).entry.id
	)
		shared++;
	return {
		ancestor: shared === 0 ? null : (pathA[shared - 1] as T),
		a: pathA.slice(shared),
		b: pathB.slice(shared),
	};
}
