/**
 * The analytics store: what the dashboards read (workspace metrics, a
 * session's stats) and the upkeep of what they read from (rollups kept
 * with every write). Every backend implements it beside the tree store
 * (../store.ts TreeStore) over the same sessions; the measures and their
 * rules are session/analytics/, the Postgres queries postgres/analytics/.
 */
import type { MetricsQuery, MetricsResult } from "../../session/analytics/metrics.js";
import type { SessionStats } from "../../session/analytics/session-stats.js";

export interface RebuildRollupsOptions {
	missingOnly?: boolean;
	/** After each session: how many are done of how many. */
	onSession?: (done: number, total: number) => void;
}

export interface AnalyticsStore {
	/** The workspace's activity measures grouped by dimensions (session/analytics/metrics.ts); checks the query. */
	metrics(ws: string, query: MetricsQuery): Promise<MetricsResult>;
	/**
	 * A backend that keeps rollups recomputes them from the logs (every
	 * session's, or only those of sessions without any); the sessions rebuilt.
	 * Absent where metrics are computed from the log itself (memory).
	 */
	rebuildRollups?(options?: RebuildRollupsOptions): Promise<number>;
	/**
	 * A session's stats (session/analytics/session-stats.ts) without reading
	 * its whole log, where the backend keeps rollups; absent: computed from
	 * the log (./session-stats.ts).
	 */
	sessionStats?(ws: string, sessionId: string): Promise<SessionStats>;
}
