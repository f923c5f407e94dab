/**
 * Offboarding a workspace: every session of it deleted (deleteSession, one
 * transaction each), a bounded batch per call. Resumable by construction:
 * nothing is kept between calls, so a call interrupted halfway (a
 * restart, a lost connection) leaves only whole sessions, deleted or not,
 * and the next call goes on with what remains until `remaining` is 0.
 */
import { invalidInput, isSessionError } from "../session/errors.js";
import { sessionQuery } from "./session-query.js";
import type { SessionStore } from "./store.js";

export interface Offboarded {
	/** Sessions this call deleted. */
	deleted: number;
	/** Sessions the workspace still holds (archived ones included): call again until 0. */
	remaining: number;
}

/** Sessions one call deletes at most (each is a transaction of its own). */
export const MAX_OFFBOARD_BATCH = 1_000;

/** Deletes up to `limit` sessions of the workspace, archived ones included; INVALID_INPUT (`first`) for a bad limit. */
export async function deleteWorkspaceSessions(
	store: SessionStore,
	ws: string,
	limit: number,
): Promise<Offboarded> {
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OFFBOARD_BATCH)
		throw invalidInput("first", `must be between 1 and ${MAX_OFFBOARD_BATCH}`);
	let deleted = 0;
	for (const archived of [false, true]) {
		while (deleted < limit) {
			const page = await store.findSessions(
				ws,
				sessionQuery({ first: Math.min(limit - deleted, 100), filter: { archived } }),
			);
			if (page.items.length === 0) break;
			for (const { node } of page.items) {
				try {
					await store.deleteSession(ws, node.sessionId);
					deleted += 1;
				} catch (error) {
					// Deleted meanwhile by another call: what was asked for is done.
					if (!isSessionError(error, "NOT_FOUND")) throw error;
				}
			}
		}
	}
	const count = async (archived: boolean) =>
		(await store.findSessions(ws, sessionQuery({ first: 0, filter: { archived } }))).totalCount;
	return { deleted, remaining: (await count(false)) + (await count(true)) };
}
