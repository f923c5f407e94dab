/**
 * Full-text search on Postgres: the text search of the entries' searchable
 * text (session/search-text.ts#searchTextOf, in SQL as `entry_search_text`,
 * drizzle/0007_search.sql), through the GIN index over exactly the
 * expression below, in the 'simple' configuration (no stemming, no stop
 * words: sessions are code and prose in any language). One statement per
 * page: matches of the caller's workspace, ranked, cut to the page, and
 * only the page's rows get a snippet.
 */
import { type SQL, sql } from "drizzle-orm";
import { HIGHLIGHT_END, HIGHLIGHT_START, snippetOf } from "../../session/search-text.js";
import type { SearchHit, SearchPage, SearchQuery } from "../search.js";
import type { Db } from "./db.js";
import { type EntryRow, entryColumns, selectList, toStored } from "./rows.js";
import { entries, sessions } from "./schema.js";
import { executeRows } from "./statements.js";

/** The indexed expression: the statement must repeat it exactly for the index to answer. */
const searchVector = sql`to_tsvector('simple'::regconfig, coalesce(entry_search_text(${entries.type}, ${entries.payload}), ''))`;

/** ts_headline's options; the marks are removed from the text first, so a stored one cannot fake a highlight. */
const HEADLINE_OPTIONS = `StartSel=${HIGHLIGHT_START}, StopSel=${HIGHLIGHT_END}, MaxWords=24, MinWords=8, MaxFragments=1`;

type HitRow = EntryRow & { sessionId: string; rank: number; marked: string };

export async function searchEntries(db: Db, ws: string, query: SearchQuery): Promise<SearchPage> {
	const after = query.after;
	const conditions: SQL[] = [
		sql`${sessions.workspaceId} = ${ws}`,
		sql`${searchVector} @@ (select query from q)`,
	];
	if (query.sessionId != null) conditions.push(sql`${sessions.id} = ${query.sessionId}`);
	const rank = sql`ts_rank(${searchVector}, (select query from q))`;
	// A query of negations alone matches an empty vector: an entry without text (its text computed once, in `hit`) is never a hit.
	const position = after
		? sql`and (hit.rank < ${after.rank}::real or (hit.rank = ${after.rank}::real
			and (hit."sessionId", hit."seq") > (${after.sessionId}, ${after.seq}::integer)))`
		: sql``;
	const rows = await executeRows<HitRow>(
		db,
		sql`with q as (select websearch_to_tsquery('simple'::regconfig, ${query.text}) as query),
		hit as (
			select ${selectList({ ...entryColumns, sessionId: sessions.id, rank })},
				entry_search_text(${entries.type}, ${entries.payload}) as text
			from ${entries} join ${sessions} on ${sessions.key} = ${entries.sessionKey}
			where ${sql.join(conditions, sql` and `)}
		),
		page as (select * from hit where hit.text is not null ${position} order by hit.rank desc, hit."sessionId", hit."seq" limit ${query.first + 1})
		select page.*, ts_headline('simple'::regconfig,
			translate(page.text, ${HIGHLIGHT_START + HIGHLIGHT_END}, ''), (select query from q), ${HEADLINE_OPTIONS}) as marked
		from page order by page.rank desc, page."sessionId", page."seq"`,
	);
	const hits: SearchHit[] = rows.slice(0, query.first).map((row) => ({
		rank: Number(row.rank),
		sessionId: row.sessionId,
		seq: Number(row.seq),
		entry: toStored(row, row.sessionId),
		snippet: snippetOf(row.marked ?? ""),
	}));
	return { hits, hasNextPage: rows.length > query.first };
}
