/**
 * Keyset pagination over sessions, newest activity first. A cursor names a
 * position (updatedAt, sessionId), not an offset, so pages stay correct while
 * sessions are written.
 */
import { invalidInput, SessionError } from "../session/errors.js";
import { normalizeTimestamp } from "../session/validate.js";
import type { Page, SessionPageArgs, SessionRecord } from "./store.js";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 500;

export interface SessionKey {
	updatedAt: string;
	sessionId: string;
}

export function sessionCursor(session: SessionKey): string {
	return Buffer.from(JSON.stringify([session.updatedAt, session.sessionId])).toString("base64url");
}

export function decodeSessionCursor(cursor: string, field: string): SessionKey {
	try {
		const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
		if (Array.isArray(value) && typeof value[0] === "string" && typeof value[1] === "string") {
			return { updatedAt: normalizeTimestamp(value[0], field), sessionId: value[1] };
		}
	} catch {}
	throw invalidInput(field, "is not a session cursor from this API");
}

export function pageSize(value: number | undefined, field: string): number | undefined {
	if (value === undefined || value === null) return undefined;
	if (!Number.isInteger(value) || value < 0) throw invalidInput(field, "must be a non-negative integer");
	if (value > MAX_PAGE_SIZE) {
		throw new SessionError("LIMIT_EXCEEDED", `${field}: at most ${MAX_PAGE_SIZE} items per page`, { field });
	}
	return value;
}

/** What a backend needs to fetch one window. */
export interface SessionWindow {
	after?: SessionKey;
	before?: SessionKey;
	/** Fetch this many from the newest end (forward) or the oldest end (backward). */
	limit: number;
	backward: boolean;
}

export function sessionWindow(args: SessionPageArgs): SessionWindow {
	const first = pageSize(args.first, "first");
	const last = pageSize(args.last, "last");
	if (first !== undefined && last !== undefined) throw invalidInput("last", "cannot be combined with first");
	return {
		...(args.after ? { after: decodeSessionCursor(args.after, "after") } : {}),
		...(args.before ? { before: decodeSessionCursor(args.before, "before") } : {}),
		limit: last ?? first ?? DEFAULT_PAGE_SIZE,
		backward: last !== undefined,
	};
}

/** Newest activity first; ties broken by id, so the order is total. */
export function compareActivity(a: SessionKey, b: SessionKey): number {
	if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
	return a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0;
}

/**
 * Build a page from up to limit+1 rows fetched in window order (newest first
 * when forward, oldest first when backward); the extra row only says there is more.
 */
export function toPage(
	rows: SessionRecord[],
	window: SessionWindow,
	totalCount: number,
): Page<SessionRecord> {
	const more = rows.length > window.limit;
	const kept = rows.slice(0, window.limit);
	if (window.backward) kept.reverse();
	return {
		items: kept.map((node) => ({ cursor: sessionCursor(node), node })),
		hasNextPage: window.backward ? window.before !== undefined : more,
		hasPreviousPage: window.backward ? more : window.after !== undefined,
		totalCount,
	};
}
