/**
 * The store announces its commits; src/events listens. This module is the
 * announcement's whole contract (what a notice holds, its NOTIFY encoding and
 * channel, how a store is told to announce), so the store depends on nothing
 * above it and events depends on the store, never the reverse.
 */

/**
 * What a committed write announces: ids only, never entry content. A
 * subscriber reads the entries from the store, so a lost or merged notice
 * never loses an entry, and a notice stays far below NOTIFY's 8000 bytes.
 */
export interface CommitNotice {
	workspaceId: string;
	sessionId: string;
	/** First and last seq the write appended (equal for a one-entry append; 0..lastSeq for a new session). */
	fromSeq: number;
	toSeq: number;
	/** The write created the session (create, import, fork). */
	created: boolean;
	/** The session was deleted (deleteSession): its live subscribers end; fromSeq and toSeq are its last seq. */
	deleted?: boolean;
}

export const NOTIFY_CHANNEL = "session_tree_commits";

export function encodeNotice(n: CommitNotice): string {
	return JSON.stringify({
		w: n.workspaceId,
		s: n.sessionId,
		f: n.fromSeq,
		t: n.toSeq,
		...(n.created ? { c: 1 } : {}),
		...(n.deleted ? { d: 1 } : {}),
	});
}

export function decodeNotice(payload: string): CommitNotice | null {
	try {
		const v = JSON.parse(payload);
		if (
			typeof v.w === "string" &&
			typeof v.s === "string" &&
			Number.isInteger(v.f) &&
			Number.isInteger(v.t)
		) {
			return {
				workspaceId: v.w,
				sessionId: v.s,
				fromSeq: v.f,
				toSeq: v.t,
				created: v.c === 1,
				...(v.d === 1 ? { deleted: true } : {}),
			};
		}
	} catch {}
	return null;
}

/** How a store announces its commits. */
export type CommitAnnouncer =
	/** Called after the transaction committed (single instance: memory, PGlite). */
	| { kind: "callback"; onCommit: (notice: CommitNotice) => void }
	/** `pg_notify` inside the transaction, so it is delivered only on commit (Postgres, many instances). */
	| { kind: "notify"; channel: string };
