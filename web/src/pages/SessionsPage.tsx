/**
 * The workspace's sessions, kept current by `sessionActivity` (from the
 * list's `activityCursor`, so a session created while the page subscribes is
 * not missed; resumed from the last event's cursor after a reconnect): activity on a listed session
 * updates its row in place; a session the list has not seen (just created)
 * refetches the list. Two ways to find things, because they answer
 * different questions: the search box asks the server for entries whose
 * text matches (SearchPanel), the filter narrows the list itself by name,
 * id or directory as you type (which full-text search does not cover: ids
 * and paths are not words). Cost and tokens per session come from the metrics
 * API, live.
 *
 * Sorted by activity (live, as the feed moves rows) or name, the list is the
 * latest sessions; sorted by cost, tokens or entries it is the server's order
 * (`sessions(orderBy:)`), read a page at a time: the costliest session may be
 * one untouched for months, which no window of recent sessions would hold.
 * That order is as of its reading (a row's values stay live, its place does
 * not move under the reader); choosing the order again reads it afresh.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link } from "react-router";
import { useClient, useQuery } from "urql";
import { useActivityFeed, useLatest } from "../api/live";
import { SearchPanel } from "../components/SearchPanel";
import { formatCost } from "../format";
import { graphql } from "../gql";
import type { MetricsQuery, SessionOrderField } from "../gql/graphql";

const SessionList = graphql(`
	query SessionList($first: Int!) {
		sessions(first: $first) {
			totalCount
			activityCursor
			edges {
				node {
					sessionId
					name
					cwd
					createdAt
					updatedAt
					lastSeq
					entryCount
				}
			}
		}
	}
`);

const RankedSessions = graphql(`
	query RankedSessions($field: SessionOrderField!, $first: Int!, $after: String) {
		sessions(orderBy: { field: $field, direction: DESC }, first: $first, after: $after) {
			totalCount
			pageInfo {
				endCursor
				hasNextPage
			}
			edges {
				node {
					sessionId
					name
					cwd
					createdAt
					updatedAt
					lastSeq
					entryCount
				}
			}
		}
	}
`);

const SessionListActivity = graphql(`
	subscription SessionListActivity($afterCursor: String) {
		sessionActivity(afterCursor: $afterCursor) {
			cursor
			kind
			seq
			at
			session {
				sessionId
				name
				cwd
				createdAt
				updatedAt
				lastSeq
				entryCount
			}
		}
	}
`);

const CostBySession = graphql(`
	subscription CostBySession($query: MetricsQuery!) {
		metricsUpdated(query: $query) {
			rows {
				sessionId
				values {
					cost
					totalTokens
				}
			}
		}
	}
`);

const COST_QUERY: MetricsQuery = {
	measures: ["COST", "TOTAL_TOKENS"],
	dimensions: ["SESSION"],
	limit: 10_000,
};

/** A session written to this recently is marked live (a pi session being followed, an agent at work). */
const LIVE_MS = 2 * 60_000;

/** The time now, ticking every `ms` (so live marks expire without an event). */
function useNow(ms: number): number {
	const [now, setNow] = useState(() => Date.now());
	useEffect(() => {
		const timer = setInterval(() => setNow(Date.now()), ms);
		return () => clearInterval(timer);
	}, [ms]);
	return now;
}

/** The list shows this many sessions (newest activity first); the filter covers those. */
const LIST_SIZE = 200;
/** A page of the server's order (cost, tokens, entries). */
const RANK_PAGE = 50;

interface Row {
	sessionId: string;
	name?: string | null | undefined;
	cwd?: string | null | undefined;
	createdAt: string;
	updatedAt: string;
	lastSeq: number;
	entryCount: number;
}

type SortKey = "activity" | "cost" | "tokens" | "entries" | "name";

/** The orders the server ranks (over every session), by the list's sort key. */
const SERVER_ORDER: Partial<Record<SortKey, SessionOrderField>> = {
	cost: "COST",
	tokens: "TOKENS",
	entries: "ENTRIES",
};

interface Ranked {
	field: SessionOrderField;
	/** The server's rows in its order; a row the live list also holds is shown as the newer of the two. */
	rows: Row[];
	endCursor: string | null;
	hasNextPage: boolean;
	loading: boolean;
	error?: string;
}

function formatTokens(tokens: number | undefined): string {
	return tokens === undefined ? "–" : Math.round(tokens).toLocaleString("en-US");
}

export function SessionsPage() {
	const [{ data, error, fetching, stale }, refetch] = useQuery({
		query: SessionList,
		variables: { first: LIST_SIZE },
		requestPolicy: "cache-and-network",
	});
	const [rows, setRows] = useState<Map<string, Row>>(new Map());
	const [filter, setFilter] = useState("");
	const [sort, setSort] = useState<SortKey>("activity");
	const costs = useLatest(CostBySession, { query: COST_QUERY }, "costs");
	const rowsRef = useRef(rows);
	rowsRef.current = rows;
	const urql = useClient();
	const serverOrder = SERVER_ORDER[sort];
	const [ranked, setRanked] = useState<Ranked>();
	const now = useNow(10_000);

	/** Reads the next page of the server's order (the first when `from` is null) into the list. */
	const readRanked = useCallback(
		async (field: SessionOrderField, from: string | null) => {
			setRanked((r) =>
				r && r.field === field && from !== null
					? { ...r, loading: true }
					: { field, rows: [], endCursor: null, hasNextPage: false, loading: true },
			);
			const result = await urql
				.query(RankedSessions, { field, first: RANK_PAGE, after: from }, { requestPolicy: "network-only" })
				.toPromise();
			const page = result.data?.sessions;
			setRanked((r) => {
				// The reader chose another order meanwhile: this answer is for nobody.
				if (!r || r.field !== field) return r;
				if (!page) return { ...r, loading: false, error: result.error?.message ?? "no answer" };
				const seen = new Set(r.rows.map((row) => row.sessionId));
				return {
					field,
					rows: [...r.rows, ...page.edges.map((e) => e.node).filter((row) => !seen.has(row.sessionId))],
					endCursor: page.pageInfo.endCursor ?? null,
					hasNextPage: page.pageInfo.hasNextPage,
					loading: false,
				};
			});
		},
		[urql],
	);

	useEffect(() => {
		if (serverOrder) void readRanked(serverOrder, null);
		else setRanked(undefined);
	}, [serverOrder, readRanked]);

	useEffect(() => {
		if (!data) return;
		setRows((current) => {
			const next = new Map(current);
			for (const { node } of data.sessions.edges) {
				const known = next.get(node.sessionId);
				// Keep a row's live state when it is newer than the answer.
				if (!known || known.lastSeq <= node.lastSeq) next.set(node.sessionId, node);
			}
			return next;
		});
	}, [data]);

	// From where the activity stood before the first list read from the server (not a cached answer,
	// whose cursor may be hours old): nothing between the two is missed.
	const feedError = useActivityFeed(
		SessionListActivity,
		({ sessionActivity: event }) => {
			// A session this list has not seen yet: read the list again too (the server orders and counts it).
			if (!rowsRef.current.has(event.session.sessionId)) refetch({ requestPolicy: "network-only" });
			setRows((current) => {
				const known = current.get(event.session.sessionId);
				if (known && known.lastSeq > event.session.lastSeq) return current;
				const next = new Map(current);
				next.set(event.session.sessionId, { ...event.session });
				return next;
			});
		},
		{ after: stale ? undefined : data?.sessions.activityCursor },
	);

	const usageOf = useMemo(() => {
		const map = new Map<string, { cost: number; tokens: number }>();
		for (const row of costs.data?.metricsUpdated.rows ?? []) {
			if (row.sessionId)
				map.set(row.sessionId, { cost: row.values.cost ?? 0, tokens: row.values.totalTokens ?? 0 });
		}
		return map;
	}, [costs.data]);

	const visible = useMemo(() => {
		const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
		const matches = (row: Row) => {
			const text = `${row.name ?? ""} ${row.sessionId} ${row.cwd ?? ""}`.toLowerCase();
			return words.every((word) => text.includes(word));
		};
		if (serverOrder) {
			if (ranked?.field !== serverOrder) return [];
			return ranked.rows
				.map((row) => {
					const live = rows.get(row.sessionId);
					return live && live.lastSeq >= row.lastSeq ? live : row;
				})
				.filter(matches);
		}
		const list = [...rows.values()].filter(matches);
		if (sort === "activity") list.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
		else list.sort((a, b) => (a.name || a.sessionId).localeCompare(b.name || b.sessionId));
		return list;
	}, [rows, filter, sort, serverOrder, ranked]);

	return (
		<section aria-labelledby="sessions-heading">
			<header className="page-header">
				<h1 id="sessions-heading">Sessions</h1>
				<p className="muted">
					{data ? `${data.sessions.totalCount} in this workspace` : fetching ? "Loading…" : ""}
				</p>
			</header>
			{error ? <p role="alert">{error.message}</p> : null}
			{feedError ? <p role="alert">Live updates stopped: {feedError}</p> : null}
			<SearchPanel />
			<div className="toolbar">
				<label>
					Filter sessions{" "}
					<input
						type="search"
						value={filter}
						onChange={(e) => setFilter(e.target.value)}
						placeholder="name, id or directory"
					/>
				</label>
				<label>
					Sort by{" "}
					<select value={sort} onChange={(e) => setSort(e.target.value as SortKey)}>
						<option value="activity">latest activity</option>
						<option value="cost">cost</option>
						<option value="tokens">tokens</option>
						<option value="entries">entries</option>
						<option value="name">name</option>
					</select>
				</label>
			</div>
			<table className="sessions">
				<caption className="sr-only">Sessions, {visible.length} shown</caption>
				<thead>
					<tr>
						<th scope="col">Session</th>
						<th scope="col">Directory</th>
						<th scope="col">Last activity</th>
						<th scope="col" className="num">
							Entries
						</th>
						<th scope="col" className="num">
							Tokens
						</th>
						<th scope="col" className="num">
							Cost
						</th>
					</tr>
				</thead>
				<tbody>
					{visible.map((row) => (
						<tr key={row.sessionId} data-session-id={row.sessionId}>
							<td>
								<Link to={`/sessions/${encodeURIComponent(row.sessionId)}`}>{row.name || row.sessionId}</Link>
								{row.name ? <span className="muted small"> {row.sessionId}</span> : null}
								{now - Date.parse(row.updatedAt) < LIVE_MS ? (
									<span
										className="live-badge"
										data-testid="session-live"
										title="written to in the last two minutes"
									>
										live
									</span>
								) : null}
							</td>
							<td className="muted">{row.cwd}</td>
							<td>
								<time dateTime={row.updatedAt}>{new Date(row.updatedAt).toLocaleString()}</time>
							</td>
							<td className="num" data-testid="session-entries">
								{row.entryCount}
							</td>
							<td className="num" data-testid="session-tokens">
								{formatTokens(usageOf.get(row.sessionId)?.tokens)}
							</td>
							<td className="num" data-testid="session-cost">
								{formatCost(usageOf.get(row.sessionId)?.cost)}
							</td>
						</tr>
					))}
				</tbody>
			</table>
			{ranked?.error ? <p role="alert">{ranked.error}</p> : null}
			{serverOrder && ranked?.field === serverOrder && ranked.hasNextPage ? (
				<p>
					<button
						type="button"
						disabled={ranked.loading}
						onClick={() => void readRanked(serverOrder, ranked.endCursor)}
					>
						{ranked.loading ? "Loading…" : `Show ${RANK_PAGE} more`}
					</button>
				</p>
			) : null}
			{data && visible.length === 0 && !ranked?.loading ? (
				<p>No sessions{filter ? " match the filter" : ""}.</p>
			) : null}
		</section>
	);
}
