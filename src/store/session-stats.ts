/**
 * A session's stats read through any store: its whole log and its full
 * active path, measured by the session layer (session/session-stats.ts). One
 * read of each, whatever the backend; a backend with rollups may answer the
 * tree's measures without reading the log.
 */
import { type SessionStats, sessionStats } from "../session/session-stats.js";
import type { SessionStore } from "./store.js";

export async function readSessionStats(
	store: SessionStore,
	ws: string,
	sessionId: string,
): Promise<SessionStats> {
	const [log, path] = await Promise.all([
		store.listEntries(ws, sessionId),
		store.activePath(ws, sessionId, { full: true }),
	]);
	return sessionStats(log, path);
}
