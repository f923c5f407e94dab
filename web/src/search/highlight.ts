/**
 * A search snippet as parts to draw: plain text, with the server's match
 * ranges ([start, end) in UTF-16 offsets) as the parts to mark. The text is
 * never parsed as HTML: the page renders every part as text, the marked
 * ones inside <mark>. Ranges out of the text, empty, or overlapping one
 * already taken are ignored, so a bad answer cannot break the page.
 */
export interface SnippetPart {
	text: string;
	marked: boolean;
}

export function snippetParts(
	text: string,
	highlights: readonly { start: number; end: number }[],
): SnippetPart[] {
	const ranges = [...highlights]
		.map(({ start, end }) => ({ start: Math.max(0, start), end: Math.min(text.length, end) }))
		.filter(({ start, end }) => start < end)
		.sort((a, b) => a.start - b.start);
	const parts: SnippetPart[] = [];
	let at = 0;
	for (const { start, end } of ranges) {
		if (start < at) continue;
		if (start > at) parts.push({ text: text.slice(at, start), marked: false });
		parts.push({ text: text.slice(start, end), marked: true });
		at = end;
	}
	if (at < text.length) parts.push({ text: text.slice(at), marked: false });
	return parts;
}

/** Whether the server would take this as a query: it needs a word (letters or digits) and at most 500 characters. */
export function isSearchable(query: string): boolean {
	return /[\p{L}\p{M}\p{N}]/u.test(query) && query.length <= 500;
}
