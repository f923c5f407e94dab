/**
 * Full-text search over a workspace's entries: what a query asks for and
 * answers, its cursors, and the reference answer (the memory backend), which
 * matches simply: every word of the query, as a whole word, ignoring case.
 * Postgres answers with its text search (postgres/search.ts): its matching
 * and ranking are richer (quoted phrases, `or`, `-word`), so the backends
 * agree on simple queries, which the conformance suite checks.
 */
import type { StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import {
	HIGHLIGHT_END,
	HIGHLIGHT_START,
	type Snippet,
	searchTextOf,
	snippetOf,
} from "../session/search-text.js";
import { decodeOpaque, encodeOpaque } from "./opaque.js";

export const DEFAULT_SEARCH_PAGE_SIZE = 20;
export const MAX_SEARCH_PAGE_SIZE = 100;
/** A query is words to find, not a document. */
export const MAX_SEARCH_QUERY_LENGTH = 500;

/** A search from the API's arguments, checked: words to find, a page size, a cursor of this search. */
export function searchQuery(args: {
	query: string;
	sessionId?: string | null | undefined;
	first?: number | null | undefined;
	after?: string | null | undefined;
}): SearchQuery {
	if (termsOf(args.query).include.length === 0)
		throw invalidInput("query", "must contain a word to search for (not only -excluded words)");
	if (args.query.length > MAX_SEARCH_QUERY_LENGTH)
		throw invalidInput("query", `at most ${MAX_SEARCH_QUERY_LENGTH} characters`);
	const first = args.first ?? DEFAULT_SEARCH_PAGE_SIZE;
	if (!Number.isInteger(first) || first < 1) throw invalidInput("first", "must be a positive integer");
	if (first > MAX_SEARCH_PAGE_SIZE)
		throw new SessionError("LIMIT_EXCEEDED", `first: at most ${MAX_SEARCH_PAGE_SIZE} results per page`, {
			field: "first",
		});
	return {
		text: args.query,
		sessionId: args.sessionId ?? null,
		first,
		after: args.after == null ? null : decodeSearchCursor(args.after, "after"),
	};
}

export interface SearchQuery {
	/** Words to find (Postgres: web search syntax). */
	text: string;
	/** Only this session's entries. */
	sessionId?: string | null;
	first: number;
	/** After this hit (a cursor of a previous page). */
	after?: SearchPosition | null;
}

/** Where a hit stands in the order: rank (higher first), then session id and seq. */
export interface SearchPosition {
	rank: number;
	sessionId: string;
	seq: number;
}

export interface SearchHit extends SearchPosition {
	entry: StoredEntry;
	snippet: Snippet;
}

export interface SearchPage {
	hits: SearchHit[];
	hasNextPage: boolean;
}

export function searchCursor(position: SearchPosition): string {
	return encodeOpaque(["search", position.rank, position.sessionId, position.seq], "base64url");
}

export function decodeSearchCursor(cursor: string, field: string): SearchPosition {
	const parts = decodeOpaque(cursor, "base64url");
	const [kind, rank, sessionId, seq] = parts ?? [];
	if (
		kind !== "search" ||
		typeof rank !== "number" ||
		typeof sessionId !== "string" ||
		!Number.isInteger(seq)
	)
		throw invalidInput(field, "is not a cursor of this search");
	return { rank, sessionId, seq: seq as number };
}

/** The order of hits: rank descending, then session id and seq ascending. */
export function compareHits(a: SearchPosition, b: SearchPosition): number {
	if (a.rank !== b.rank) return b.rank - a.rank;
	if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
	return a.seq - b.seq;
}

/** The words of a query or text, lowercased: runs of letters, marks and digits. */
export function wordsOf(text: string): string[] {
	return text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
}

/**
 * A query's words to find and words to leave out (`-word`), read simply:
 * quotes and `or` are not operators here (Postgres reads them as web search
 * syntax does).
 */
export function termsOf(text: string): { include: string[]; exclude: string[] } {
	const include: string[] = [];
	const exclude: string[] = [];
	for (const token of text.split(/\s+/u)) {
		if (token.startsWith("-")) exclude.push(...wordsOf(token));
		else include.push(...wordsOf(token));
	}
	return { include, exclude };
}

/** Words shown around the first match. */
const SNIPPET_WORDS = 24;

/** The hit for one entry, or null when it lacks a word of the query or holds an excluded one. */
function hitOf(
	entry: StoredEntry,
	words: ReadonlySet<string>,
	excluded: ReadonlySet<string>,
): SearchHit | null {
	const text = searchTextOf(entry.entry);
	if (text === null) return null;
	const tokens = [...text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)];
	if (tokens.some((token) => excluded.has(token[0].toLowerCase()))) return null;
	const found = tokens.filter((token) => words.has(token[0].toLowerCase()));
	const seen = new Set(found.map((token) => token[0].toLowerCase()));
	if (seen.size < words.size) return null;
	const first = tokens.indexOf(found[0] as RegExpExecArray);
	const from = tokens[Math.max(0, first - SNIPPET_WORDS / 4)]?.index ?? 0;
	const last = tokens[Math.min(tokens.length - 1, first + (SNIPPET_WORDS * 3) / 4)] as RegExpExecArray;
	const to = (last.index ?? 0) + last[0].length;
	let marked = "";
	let at = from;
	for (const token of found) {
		const start = token.index ?? 0;
		if (start < from || start >= to) continue;
		marked += `${text.slice(at, start)}${HIGHLIGHT_START}${token[0]}${HIGHLIGHT_END}`;
		at = start + token[0].length;
	}
	marked += text.slice(at, to);
	const clean = marked.replace(/\s+/gu, " ").trim();
	return { rank: found.length, sessionId: entry.sessionId, seq: entry.seq, entry, snippet: snippetOf(clean) };
}

/** The reference search over the given sessions' logs. */
export function searchLogs(logs: Iterable<readonly StoredEntry[]>, query: SearchQuery): SearchPage {
	const terms = termsOf(query.text);
	const words = new Set(terms.include);
	const excluded = new Set(terms.exclude);
	const hits: SearchHit[] = [];
	if (words.size > 0) {
		for (const log of logs) {
			for (const entry of log) {
				if (query.sessionId != null && entry.sessionId !== query.sessionId) continue;
				const hit = hitOf(entry, words, excluded);
				if (hit && (!query.after || compareHits(query.after, hit) < 0)) hits.push(hit);
			}
		}
	}
	hits.sort(compareHits);
	return { hits: hits.slice(0, query.first), hasNextPage: hits.length > query.first };
}
