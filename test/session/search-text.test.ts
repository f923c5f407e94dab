import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/session/entry.js";
import { HIGHLIGHT_END, HIGHLIGHT_START, searchTextOf, snippetOf } from "../../src/session/search-text.js";

const at = { id: "x", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };
const message = (m: Record<string, unknown>) => ({ type: "message", ...at, message: m }) as unknown as Entry;

describe("what search reads of an entry", () => {
	it("reads conversation text, summaries, labels and names; not tool output, thinking or settings", () => {
		expect(searchTextOf(message({ role: "user", content: "plain" }))).toBe("plain");
		expect(
			searchTextOf(
				message({
					role: "assistant",
					content: [
						{ type: "thinking", thinking: "hidden" },
						{ type: "text", text: "one" },
						{ type: "toolCall", name: "read", arguments: { path: "/secret" } },
						{ type: "text", text: "two" },
					],
				}),
			),
		).toBe("one two");
		expect(
			searchTextOf(message({ role: "toolResult", content: [{ type: "text", text: "file body" }] })),
		).toBeNull();
		expect(searchTextOf(message({ role: "bashExecution", command: "ls -la", output: "lots" }))).toBe(
			"ls -la",
		);
		expect(searchTextOf({ type: "branch_summary", ...at, fromId: "a", summary: "went back" } as Entry)).toBe(
			"went back",
		);
		expect(searchTextOf({ type: "label", ...at, targetId: "a", label: "" } as Entry)).toBeNull();
		expect(searchTextOf({ type: "session_info", ...at, name: "Deploy" } as Entry)).toBe("Deploy");
		expect(searchTextOf({ type: "thinking_level_change", ...at, thinkingLevel: "high" } as Entry)).toBeNull();
	});

	it("turns marked matches into plain text with ranges, ignoring unmatched marks", () => {
		const marked = `a ${HIGHLIGHT_START}deploy${HIGHLIGHT_END} b ${HIGHLIGHT_START}😀x${HIGHLIGHT_END}${HIGHLIGHT_END}`;
		const snippet = snippetOf(marked);
		expect(snippet.text).toBe("a deploy b 😀x");
		expect(snippet.highlights.map((r) => snippet.text.slice(r.start, r.end))).toEqual(["deploy", "😀x"]);
	});
});
