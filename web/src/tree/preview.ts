/**
 * The row text of a node that arrives by a live event (`sessionEvents`
 * carries the entry, not its `TreeNode`), written as the server writes
 * `TreeNode.preview` (src/session/tree-view.ts#nodePreview): a message's
 * own `preview`, a bracketed tag for the other types, whitespace collapsed
 * and cut to the same length. A node appended live reads the same as after
 * a reload; test/web/preview.test.ts holds the two to the same text.
 */
// With its extension: test/web/preview.test.ts compiles this file under the service's Node resolution too.
import type { TreeEntryFieldsFragment } from "../gql/graphql.js";

/** The length the tree asks `TreeNode.preview` and `MessageEntry.preview` for. */
export const PREVIEW_LENGTH = 160;

/**
 * Whitespace runs to one space, trimmed, cut to `max` code points with "…"
 * in the last place (a space left before it dropped): the server's rule.
 */
export function clip(text: string, max = PREVIEW_LENGTH): string {
	const chars = [...text.replace(/\s+/gu, " ").trim()];
	if (chars.length <= max) return chars.join("");
	const kept = chars.slice(0, max - 1);
	if (kept.at(-1) === " ") kept.pop();
	return `${kept.join("")}…`;
}

/** A custom message's content text: a string, or its text items joined. */
function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((item) => item?.type === "text" && typeof item.text === "string")
		.map((item) => item.text as string)
		.join("");
}

export function previewOf(entry: TreeEntryFieldsFragment): string {
	switch (entry.__typename) {
		case "MessageEntry":
			return entry.preview;
		case "CustomMessageEntry":
			return clip(`[${entry.customType}]: ${contentText(entry.content)}`);
		case "CompactionEntry":
			return clip(`[compaction: ${Math.round(entry.tokensBefore / 1000)}k tokens]`);
		case "BranchSummaryEntry":
			return clip(`[branch summary]: ${entry.summary}`);
		case "ModelChangeEntry":
			return clip(`[model: ${entry.modelId}]`);
		case "ThinkingLevelChangeEntry":
			return clip(`[thinking: ${entry.thinkingLevel}]`);
		case "ActiveToolsChangeEntry":
			return clip(`[tools: ${entry.activeToolNames.join(", ")}]`);
		case "CustomEntry":
			return clip(`[custom: ${entry.customType}]`);
		case "LabelEntry":
			return clip(`[label: ${entry.targetLabel || "(cleared)"}]`);
		case "SessionInfoEntry":
			return clip(`[title: ${entry.name || "empty"}]`);
		default:
			return "";
	}
}
