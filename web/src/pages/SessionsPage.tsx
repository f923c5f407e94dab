/**
 * The workspace's sessions, kept current by `sessionActivity` (resumed from
 * the last event's cursor after a reconnect): activity on a listed session
 * updates its row in place; a session the list has not seen (just created)
 * refetches the list. Two ways to find things, because they answer
 * different questions: the search box asks the server for entries whose
 * text matches (SearchPanel), the filter narrows the list itself by name,
 * id or directory as you type (which full-text search does not cover: ids
 * and paths are not words). Cost per session comes from the metrics API, live.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { Link } from "react-router";
import { useQuery } from "urql";
import { useActivityFeed, useLatest } from "../api/live";
import { SearchPanel } from "../components/SearchPanel";
import { formatCost } from "../format";
import { graphql } from "../gql";
import type { MetricsQuery } from "../gql/graphql";

const SessionList = graphql(`
	query SessionList($first: Int!) {
		sessions(first: $first) {
			totalCount
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

/** The list shows this many sessions (newest activity first); the filter covers those. */
const LIST_SIZE = 200;

interface Row {
	sessionId: string;
	name?: string | null | undefined;
	cwd?: string | null | undefined;
	createdAt: string;
	updatedAt: string;
	lastSeq: number;
	entryCount: number;
}

type SortKey = "activity" | "cost" | "name";

export function SessionsPage() {
	const [{ data, error, fetching }, refetch] = useQuery({
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

	const feedError = useActivityFeed(SessionListActivity, ({ sessionActivity: event }) => {
		// A session this list has not seen yet: read the list again too (the server orders and counts it).
		if (!rowsRef.current.has(event.session.sessionId)) refetch({ requestPolicy: "network-only" });
		setRows((current) => {
			const known = current.get(event.session.sessionId);
			if (known && known.lastSeq > event.session.lastSeq) return current;
			const next = new Map(current);
			next.set(event.session.sessionId, { ...event.session });
			return next;
		});
	});

	const costOf = useMemo(() => {
		const map = new Map<string, number>();
		for (const row of costs.data?.metricsUpdated.rows ?? []) {
			if (row.sessionId) map.set(row.sessionId, row.values.cost ?? 0);
		}
		return map;
	}, [costs.data]);

	const visible = useMemo(() => {
		const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
		const list = [...rows.values()].filter((row) => {
			const text = `${row.name ?? ""} ${row.sessionId} ${row.cwd ?? ""}`.toLowerCase();
			return words.every((word) => text.includes(word));
		});
		const byActivity = (a: Row, b: Row) => b.updatedAt.localeCompare(a.updatedAt);
		if (sort === "activity") list.sort(byActivity);
		else if (sort === "cost")
			list.sort(
				(a, b) => (costOf.get(b.sessionId) ?? 0) - (costOf.get(a.sessionId) ?? 0) || byActivity(a, b),
			);
		else list.sort((a, b) => (a.name || a.sessionId).localeCompare(b.name || b.sessionId));
		return list;
	}, [rows, filter, sort, costOf]);

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
							</td>
							<td className="muted">{row.cwd}</td>
							<td>
								<time dateTime={row.updatedAt}>{new Date(row.updatedAt).toLocaleString()}</time>
							</td>
							<td className="num" data-testid="session-entries">
								{row.entryCount}
							</td>
							<td className="num">{formatCost(costOf.get(row.sessionId))}</td>
						</tr>
					))}
				</tbody>
			</table>
			{data && visible.length === 0 ? <p>No sessions{filter ? " match the filter" : ""}.</p> : null}
		</section>
	);
}
