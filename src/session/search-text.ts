/**
 * What full-text search reads of an entry, and how a found text is shown:
 * the rule every backend follows (Postgres indexes the same text with its
 * own function, drizzle/0007_search.sql, which must say what this says).
 */
import { type Entry, isKnownEntry } from "./entry.js";

/** The text items of a content value: a string, or the `text` of its `{type: "text"}` items, joined by a space. */
function contentText(content: unknown): string | null {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return null;
	const texts = content
		.filter(
			(item) =>
				item !== null && typeof item === "object" && item.type === "text" && typeof item.text === "string",
		)
		.map((item) => item.text as string);
	return texts.length > 0 ? texts.join(" ") : null;
}

/**
 * The searchable text of an entry, null when it has none: a message's
 * content text (a string, or its text items; a bash execution's command;
 * not a tool result's output),
 * a branch summary's or compaction's summary, a label, a custom message's
 * content text, a session name. Thinking, tool arguments and settings are
 * not searched.
 */
export function searchTextOf(entry: Entry): string | null {
	if (!isKnownEntry(entry)) return null;
	switch (entry.type) {
		case "message": {
			const { message } = entry;
			if (message.role === "bashExecution")
				return typeof message.command === "string" ? message.command : null;
			// A tool's output (files read, command output) is the tool's, not the conversation's:
			// it would be most of the index and most of the matches.
			if (message.role === "toolResult") return null;
			return contentText(message.content);
		}
		case "branch_summary":
		case "compaction":
			return typeof entry.summary === "string" ? entry.summary : null;
		case "label":
			return entry.label || null;
		case "custom_message":
			return contentText(entry.content);
		case "session_info":
			return entry.name || null;
		default:
			return null;
	}
}

/** A found text around its matches: `text`, with the matched words at [start, end) (UTF-16 offsets). */
export interface Snippet {
	text: string;
	highlights: Array<{ start: number; end: number }>;
}

/** Marks a backend puts around matches in a snippet; never in stored text a client sees unescaped. */
export const HIGHLIGHT_START = "\u0002";
export const HIGHLIGHT_END = "\u0003";

/** A snippet from text with matches marked by HIGHLIGHT_START … HIGHLIGHT_END. */
export function snippetOf(marked: string): Snippet {
	const highlights: Snippet["highlights"] = [];
	let text = "";
	let start = -1;
	for (const char of marked) {
		if (char === HIGHLIGHT_START) start = text.length;
		else if (char === HIGHLIGHT_END) {
			if (start >= 0 && text.length > start) highlights.push({ start, end: text.length });
			start = -1;
		} else text += char;
	}
	return { text, highlights };
}
