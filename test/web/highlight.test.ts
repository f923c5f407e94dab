/**
 * A search snippet's parts (web/src/search/highlight.ts): the server's match
 * ranges become the marked parts, text stays text (never HTML), and a bad
 * range cannot break the page.
 */
import { describe, expect, it } from "vitest";
import { isSearchable, snippetParts } from "../../web/src/search/highlight.js";

const marked = (text: string, ranges: Array<{ start: number; end: number }>) =>
	snippetParts(text, ranges)
		.map((p) => (p.marked ? `[${p.text}]` : p.text))
		.join("");

describe("search snippets", () => {
	it("marks the ranges, in order, keeping the text between them", () => {
		const text = "the <b>fix</b> for the fix";
		expect(
			marked(text, [
				{ start: 23, end: 26 },
				{ start: 7, end: 10 },
			]),
		).toBe("the <b>[fix]</b> for the [fix]");
		expect(snippetParts("fix", [{ start: 0, end: 3 }])).toEqual([{ text: "fix", marked: true }]);
		expect(snippetParts("no match", [])).toEqual([{ text: "no match", marked: false }]);
	});

	it("ignores empty, overlapping and out-of-range ranges", () => {
		expect(
			marked("abcdef", [
				{ start: 1, end: 3 },
				{ start: 2, end: 4 },
				{ start: 5, end: 5 },
				{ start: 4, end: 99 },
				{ start: -3, end: 0 },
			]),
		).toBe("a[bc]d[ef]");
	});

	it("asks the server only for a query with a word in it", () => {
		expect(isSearchable("fix")).toBe(true);
		expect(isSearchable("  -- ")).toBe(false);
		expect(isSearchable("")).toBe(false);
		expect(isSearchable("x".repeat(501))).toBe(false);
	});
});
