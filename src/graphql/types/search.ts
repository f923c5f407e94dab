/**
 * Full-text search over the caller's workspace (store/search.ts): message
 * text, summaries, labels and names, best matches first, Relay-paged, each
 * hit with its session, its entry and a snippet with the matches marked.
 */
import type { Snippet } from "../../session/search-text.js";
import { type SearchHit, searchCursor, searchQuery } from "../../store/search.js";
import { spend } from "../budget.js";
import { builder } from "../builder.js";
import { connection, connectionType } from "../connection.js";
import { EntryRef, SessionRef } from "../refs.js";

const TextRangeRef = builder.objectRef<{ start: number; end: number }>("TextRange").implement({
	description: "A range of a text: [start, end) in UTF-16 code units (JavaScript string offsets).",
	fields: (t) => ({ start: t.exposeInt("start"), end: t.exposeInt("end") }),
});

const SnippetRef = builder.objectRef<Snippet>("Snippet").implement({
	description: "Part of a found text around its matches, plain text with the matched words' ranges.",
	fields: (t) => ({
		text: t.exposeString("text"),
		highlights: t.field({ type: [TextRangeRef], resolve: (s) => s.highlights }),
	}),
});

const SearchResultRef = builder.objectRef<SearchHit>("SearchResult").implement({
	description: "An entry whose text matches a search.",
	fields: (t) => ({
		session: t.field({
			type: SessionRef,
			resolve: async (hit, _, { loaders }) => {
				const session = await loaders.session.load(hit.sessionId);
				if (!session) throw new Error(`search hit in session ${hit.sessionId}, which is gone`);
				return session;
			},
		}),
		entry: t.field({ type: EntryRef, resolve: (hit) => hit.entry }),
		snippet: t.field({ type: SnippetRef, resolve: (hit) => hit.snippet }),
		rank: t.float({
			description: "Relevance: higher first (comparable within one search).",
			resolve: (hit) => hit.rank,
		}),
	}),
});

/** A Relay connection without totalCount: counting every match would cost the search again. */
const SearchResultConnectionRef = connectionType("SearchResult", SearchResultRef, false);

builder.queryFields((t) => ({
	search: t.field({
		type: SearchResultConnectionRef,
		description:
			'Entries of the caller\'s workspace whose text matches `query` (message text, branch summaries, compactions, labels, session names), best first. On Postgres: web search syntax ("quoted phrase", or, -word), no stemming.',
		complexity: (args) => ({ field: 5, multiplier: args.first ?? 20 }),
		args: {
			query: t.arg.string({ required: true }),
			sessionId: t.arg.string(),
			first: t.arg.int(),
			after: t.arg.string(),
		},
		resolve: async (_, args, { store, workspaceId, loaders, budget }) => {
			const query = searchQuery(args);
			const page = await store.search(workspaceId, query);
			const hits = spend(budget, page.hits);
			loaders.prime(hits.map((hit) => hit.entry));
			const edges = hits.map((hit) => ({ cursor: searchCursor(hit), node: hit }));
			return connection(
				{ items: edges, hasNextPage: page.hasNextPage, hasPreviousPage: query.after != null },
				0,
			);
		},
	}),
}));
