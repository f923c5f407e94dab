/**
 * A session's stats read through any store: its whole log and its full
 * active path, measured by the session layer (session/analytics/session-stats.ts). One
 * read of each, whatever the backend; a backend with rollups answers the
 * tree's measures without reading the log (SessionStore.sessionStats).
 */
import { type SessionStats, sessionStats } from "../../session/analytics/session-stats.js";
import type { SessionStore } from "../store.js";

export async function readSessionStats(
	store: SessionStore,
	ws: string,
	sessionId: string,
): Promise<SessionStats> {
	if (store.sessionStats) return store.sessionStats(ws, sessionId);
	const [log, path] = await Promise.all([
		store.listEntries(ws, sessionId),
		store.activePath(ws, sessionId, { full: true }),
	]);
	return sessionStats(log, path);
}
