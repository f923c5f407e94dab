/**
 * Workspace activity from the metrics API, each chart a `metricsUpdated`
 * subscription (the answer now, then a fresh one when commits change it, at
 * most once a second), and the live activity feed, which opens with the
 * events of the workspace's last 20 writes (`last`) and resumes after a
 * reconnect from the last event it showed (`afterCursor`).
 */
import { useState } from "react";
import { Link } from "react-router";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useActivityFeed, useLatest } from "../api/live";
import { formatCost } from "../format";
import { graphql } from "../gql";
import type { DashboardActivitySubscription, MetricsQuery } from "../gql/graphql";

const Metrics = graphql(`
	subscription DashboardMetrics($query: MetricsQuery!) {
		metricsUpdated(query: $query) {
			truncated
			rows {
				time
				model
				sessionId
				session {
					sessionId
					name
				}
				values {
					entries
					assistantTurns
					userTurns
					totalTokens
					cost
					activeSessions
				}
			}
		}
	}
`);

const Activity = graphql(`
	subscription DashboardActivity($afterCursor: String) {
		sessionActivity(afterCursor: $afterCursor, last: 20) {
			cursor
			kind
			seq
			at
			session {
				sessionId
				name
			}
			entry {
				__typename
				entryId
				type
				... on MessageEntry {
					role
					model
					preview(maxLength: 100)
				}
			}
		}
	}
`);

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

const TOTALS: MetricsQuery = {
	measures: ["ENTRIES", "USER_TURNS", "ASSISTANT_TURNS", "TOTAL_TOKENS", "COST", "ACTIVE_SESSIONS"],
};
const PER_DAY: MetricsQuery = {
	measures: ["ACTIVE_SESSIONS", "ENTRIES"],
	dimensions: ["TIME"],
	granularity: "DAY",
	timeZone,
	orderBy: [{ dimension: "TIME" }],
	limit: 366,
};
const BY_MODEL: MetricsQuery = {
	measures: ["TOTAL_TOKENS", "COST", "ASSISTANT_TURNS"],
	dimensions: ["MODEL"],
	orderBy: [{ measure: "TOTAL_TOKENS", descending: true }],
	limit: 20,
};
const TOP_SESSIONS: MetricsQuery = {
	measures: ["ENTRIES", "COST"],
	dimensions: ["SESSION"],
	orderBy: [{ measure: "ENTRIES", descending: true }],
	limit: 10,
};

const FEED_SIZE = 50;

function Figure({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
	return (
		<figure className="panel chart" aria-labelledby={`${id}-title`} data-testid={id}>
			<figcaption id={`${id}-title`}>{title}</figcaption>
			{children}
		</figure>
	);
}

const number = (value: number | null | undefined) => (value ?? 0).toLocaleString("en-US");
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
const tick = (value: number) => compact.format(value);

export function DashboardPage() {
	const totals = useLatest(Metrics, { query: TOTALS }, "totals");
	const perDay = useLatest(Metrics, { query: PER_DAY }, "per-day");
	const byModel = useLatest(Metrics, { query: BY_MODEL }, "by-model");
	const top = useLatest(Metrics, { query: TOP_SESSIONS }, "top");
	const [feed, setFeed] = useState<DashboardActivitySubscription["sessionActivity"][]>([]);
	const feedError = useActivityFeed(Activity, ({ sessionActivity }) =>
		setFeed((list) => [sessionActivity, ...list].slice(0, FEED_SIZE)),
	);

	const total = totals.data?.metricsUpdated.rows[0]?.values;
	const days = (perDay.data?.metricsUpdated.rows ?? []).map((row) => ({
		day: row.time ? new Date(row.time).toLocaleDateString("en-CA", { timeZone }) : "",
		sessions: row.values.activeSessions ?? 0,
		entries: row.values.entries ?? 0,
	}));
	const models = (byModel.data?.metricsUpdated.rows ?? [])
		.filter((row) => row.model)
		.map((row) => ({
			model: row.model ?? "",
			tokens: row.values.totalTokens ?? 0,
			cost: Number((row.values.cost ?? 0).toFixed(4)),
		}));
	const sessions = (top.data?.metricsUpdated.rows ?? []).map((row) => ({
		id: row.sessionId ?? "",
		name: row.session?.name || row.sessionId || "",
		entries: row.values.entries ?? 0,
		cost: row.values.cost ?? 0,
	}));
	const errors = [totals.error, perDay.error, byModel.error, top.error, feedError].filter(Boolean);

	return (
		<section className="dashboard" aria-labelledby="dashboard-heading">
			<header className="page-header">
				<h1 id="dashboard-heading">Dashboard</h1>
				<p className="muted">All sessions of this workspace, live. Days in {timeZone}.</p>
			</header>
			{errors.map((message) => (
				<p role="alert" key={message}>
					{message}
				</p>
			))}
			<dl className="totals" aria-label="Totals" data-testid="totals">
				<div>
					<dt>Sessions</dt>
					<dd data-testid="total-sessions">{number(total?.activeSessions)}</dd>
				</div>
				<div>
					<dt>Entries</dt>
					<dd data-testid="total-entries">{number(total?.entries)}</dd>
				</div>
				<div>
					<dt>User turns</dt>
					<dd data-testid="total-user-turns">{number(total?.userTurns)}</dd>
				</div>
				<div>
					<dt>Assistant turns</dt>
					<dd data-testid="total-assistant-turns">{number(total?.assistantTurns)}</dd>
				</div>
				<div>
					<dt>Tokens</dt>
					<dd data-testid="total-tokens">{number(total?.totalTokens)}</dd>
				</div>
				<div>
					<dt>Cost</dt>
					<dd data-testid="total-cost">{formatCost(total?.cost ?? 0)}</dd>
				</div>
			</dl>
			<div className="charts">
				<Figure id="chart-sessions-per-day" title="Active sessions per day">
					<ResponsiveContainer width="100%" height={220}>
						<BarChart data={days} accessibilityLayer>
							<CartesianGrid strokeDasharray="3 3" />
							<XAxis dataKey="day" />
							<YAxis allowDecimals={false} />
							<Tooltip />
							<Bar dataKey="sessions" name="sessions" fill="#3b6fd8" isAnimationActive={false} />
						</BarChart>
					</ResponsiveContainer>
				</Figure>
				<Figure id="chart-by-model" title="Tokens and cost by model">
					<ResponsiveContainer width="100%" height={220}>
						<BarChart data={models} accessibilityLayer>
							<CartesianGrid strokeDasharray="3 3" />
							<XAxis dataKey="model" />
							<YAxis yAxisId="tokens" tickFormatter={tick} />
							<YAxis yAxisId="cost" orientation="right" tickFormatter={(v: number) => `$${tick(v)}`} />
							<Tooltip />
							<Legend />
							<Bar yAxisId="tokens" dataKey="tokens" name="tokens" fill="#3b6fd8" isAnimationActive={false} />
							<Bar yAxisId="cost" dataKey="cost" name="cost ($)" fill="#d8873b" isAnimationActive={false} />
						</BarChart>
					</ResponsiveContainer>
				</Figure>
				<Figure id="chart-top-sessions" title="Most active sessions (entries)">
					<ResponsiveContainer width="100%" height={220}>
						<BarChart data={sessions} layout="vertical" accessibilityLayer>
							<CartesianGrid strokeDasharray="3 3" />
							<XAxis type="number" allowDecimals={false} tickFormatter={tick} />
							<YAxis type="category" dataKey="name" width={140} />
							<Tooltip />
							<Bar dataKey="entries" name="entries" fill="#3b6fd8" isAnimationActive={false} />
						</BarChart>
					</ResponsiveContainer>
					<ol className="top-sessions">
						{sessions.map((s) => (
							<li key={s.id}>
								<Link to={`/sessions/${encodeURIComponent(s.id)}`}>{s.name}</Link>: {number(s.entries)}{" "}
								entries, {formatCost(s.cost)}
							</li>
						))}
					</ol>
				</Figure>
			</div>
			<section className="panel feed" aria-labelledby="feed-heading">
				<h2 id="feed-heading">Live activity</h2>
				{feed.length === 0 ? <p className="muted">Waiting for activity…</p> : null}
				<ol aria-live="polite" data-testid="activity-feed">
					{feed.map((event) => (
						<li key={event.cursor}>
							<time dateTime={event.at}>{new Date(event.at).toLocaleTimeString()}</time>{" "}
							<Link to={`/sessions/${encodeURIComponent(event.session.sessionId)}`}>
								{event.session.name || event.session.sessionId}
							</Link>{" "}
							<span className="kind">{event.kind.toLowerCase().replace("_", " ")}</span>
							{event.entry?.__typename === "MessageEntry" ? (
								<span className="muted">
									{" "}
									{event.entry.role}
									{event.entry.model ? ` (${event.entry.model})` : ""}: {event.entry.preview}
								</span>
							) : event.entry ? (
								<span className="muted"> {event.entry.type.toLowerCase()}</span>
							) : null}
						</li>
					))}
				</ol>
			</section>
		</section>
	);
}
