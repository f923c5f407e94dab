/**
 * Full-text search over the workspace's entries (`search`): message text,
 * summaries, labels and names, best first. The query is sent once typing
 * pauses; each hit shows its session, the entry as the tree draws it and
 * the snippet with the matched words marked (from the answer's ranges,
 * never from HTML), and links to the session page with that entry selected.
 * More results come a page at a time (one query per page: urql's pattern).
 */
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useQuery } from "urql";
import { graphql } from "../gql";
import { isSearchable, snippetParts } from "../search/highlight";

const SearchEntries = graphql(`
	query SearchEntries($query: String!, $first: Int!, $after: String) {
		search(query: $query, first: $first, after: $after) {
			pageInfo {
				hasNextPage
				endCursor
			}
			edges {
				cursor
				node {
					rank
					session {
						sessionId
						name
					}
					entry {
						...TreeEntryFields
					}
					snippet {
						text
						highlights {
							start
							end
						}
					}
				}
			}
		}
	}
`);

const PAGE_SIZE = 20;
const DEBOUNCE_MS = 250;

function useDebounced<T>(value: T, ms: number): T {
	const [settled, setSettled] = useState(value);
	useEffect(() => {
		const timer = setTimeout(() => setSettled(value), ms);
		return () => clearTimeout(timer);
	}, [value, ms]);
	return settled;
}

export function sessionEntryPath(sessionId: string, entryId: string): string {
	return `/sessions/${encodeURIComponent(sessionId)}?${new URLSearchParams({ entry: entryId })}`;
}

function ResultsPage({
	query,
	after,
	isLast,
	onMore,
}: {
	query: string;
	after: string | null;
	isLast: boolean;
	onMore(cursor: string): void;
}) {
	const [{ data, fetching, error }] = useQuery({
		query: SearchEntries,
		variables: { query, first: PAGE_SIZE, after },
		requestPolicy: "cache-and-network",
	});
	if (error) return <li role="alert">{error.graphQLErrors[0]?.message ?? error.message}</li>;
	if (!data) return fetching ? <li aria-busy="true">Searching…</li> : null;
	const { edges, pageInfo } = data.search;
	return (
		<>
			{after === null && edges.length === 0 ? <li className="muted">No entries match.</li> : null}
			{edges.map(({ cursor, node: hit }) => {
				const { entry, session } = hit;
				return (
					<li key={cursor} className="search-hit" data-testid="search-hit" data-entry-id={entry.entryId}>
						<Link to={sessionEntryPath(session.sessionId, entry.entryId)} className="search-hit-link">
							<span className="search-hit-session">{session.name || session.sessionId}</span>
							<span className="search-hit-preview">
								{entry.__typename === "MessageEntry" ? `${entry.role}: ` : ""}
								{entry.preview}
							</span>
						</Link>
						<p className="search-hit-snippet" data-testid="search-snippet">
							{snippetParts(hit.snippet.text, hit.snippet.highlights).map((part, i) =>
								// biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed text, in order.
								part.marked ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>,
							)}
						</p>
					</li>
				);
			})}
			{isLast && pageInfo.hasNextPage && pageInfo.endCursor ? (
				<li>
					<button type="button" onClick={() => onMore(pageInfo.endCursor as string)}>
						More results
					</button>
				</li>
			) : null}
		</>
	);
}

export function SearchPanel() {
	const [text, setText] = useState("");
	const query = useDebounced(text.trim(), DEBOUNCE_MS);
	// The pages shown (null: the first), for one query: a new query starts again from its first page.
	const [paging, setPaging] = useState<{ query: string; pages: (string | null)[] }>({ query, pages: [null] });
	const pages = paging.query === query ? paging.pages : [null];
	const more = (cursor: string) => setPaging({ query, pages: [...pages, cursor] });
	const searchable = isSearchable(query);
	return (
		<section className="panel search-panel">
			<search>
				<label>
					Search entries{" "}
					<input
						type="search"
						value={text}
						onChange={(e) => setText(e.target.value)}
						placeholder="words in messages, summaries, labels"
						maxLength={500}
					/>
				</label>
			</search>
			{searchable ? (
				<ol className="search-results" aria-label="Search results" aria-live="polite">
					{pages.map((after, i) => (
						<ResultsPage
							key={after ?? "first"}
							query={query}
							after={after}
							isLast={i === pages.length - 1}
							onMore={more}
						/>
					))}
				</ol>
			) : null}
		</section>
	);
}
