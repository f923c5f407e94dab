/**
 * Cursor paging, the one home of Relay's connection arguments for both lists
 * this API pages: sessions (newest activity first) and a session's append log
 * (seq order). A cursor names a position, not an offset, so pages stay correct
 * while the list is written. Each list turns (first, after, last, before) into
 * a window for the backend, and the backend's window rows (one more than asked:
 * the extra row only says there is more) into a page.
 */
import { invalidInput, SessionError } from "../session/errors.js";
import { normalizeTimestamp } from "../session/validate.js";
import { decodeOpaque, decodeOpaqueText, encodeOpaque, encodeOpaqueText } from "./opaque.js";
import type { EntryLogQuery, Page, SessionRecord } from "./store.js";

export const DEFAULT_PAGE_SIZE = 20;
export const DEFAULT_ENTRY_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Relay's connection arguments as GraphQL gives them: null or absent both mean "not given". */
export interface ConnectionArgs {
	first?: number | null | undefined;
	after?: string | null | undefined;
	last?: number | null | undefined;
	before?: string | null | undefined;
}

export function pageSize(value: number | null | undefined, field: string): number | undefined {
	if (value === undefined || value === null) return undefined;
	if (!Number.isInteger(value) || value < 0) throw invalidInput(field, "must be a non-negative integer");
	if (value > MAX_PAGE_SIZE) {
		throw new SessionError("LIMIT_EXCEEDED", `${field}: at most ${MAX_PAGE_SIZE} items per page`, { field });
	}
	return value;
}

/** `first` counts from the start of the window, `last` from its end; a page has one end, so never both. */
function pageDirection(args: ConnectionArgs, defaultSize: number): { limit: number; backward: boolean } {
	const first = pageSize(args.first, "first");
	const last = pageSize(args.last, "last");
	if (first !== undefined && last !== undefined) throw invalidInput("last", "cannot be combined with first");
	return { limit: last ?? first ?? defaultSize, backward: last !== undefined };
}

/**
 * Relay's pageInfo flags. The extra row tells whether there is more in the
 * direction of travel; behind the page there is more exactly when the caller
 * came from a cursor on that side (not counted: that would cost a query).
 */
function pageFlags(
	more: boolean,
	backward: boolean,
	fromAfter: boolean,
	fromBefore: boolean,
): { hasNextPage: boolean; hasPreviousPage: boolean } {
	return backward
		? { hasNextPage: fromBefore, hasPreviousPage: more }
		: { hasNextPage: more, hasPreviousPage: fromAfter };
}

// ---- Sessions: keyset (updatedAt, sessionId), newest activity first --------

export interface SessionKey {
	updatedAt: string;
	sessionId: string;
}

/** base64url of a JSON array, as first issued. */
export function sessionCursor(session: SessionKey): string {
	return encodeOpaque([session.updatedAt, session.sessionId], "base64url");
}

export function decodeSessionCursor(cursor: string, field: string): SessionKey {
	const value = decodeOpaque(cursor, "base64url");
	if (value && typeof value[0] === "string" && typeof value[1] === "string") {
		try {
			return { updatedAt: normalizeTimestamp(value[0], field), sessionId: value[1] };
		} catch {}
	}
	throw invalidInput(field, "is not a session cursor from this API");
}

/** What a backend needs to fetch one window of sessions. */
export interface SessionWindow {
	after?: SessionKey;
	before?: SessionKey;
	/** Fetch this many (plus one) from the newest end (forward) or the oldest end (backward). */
	limit: number;
	backward: boolean;
}

export function sessionWindow(args: ConnectionArgs): SessionWindow {
	const { limit, backward } = pageDirection(args, DEFAULT_PAGE_SIZE);
	return {
		...(args.after ? { after: decodeSessionCursor(args.after, "after") } : {}),
		...(args.before ? { before: decodeSessionCursor(args.before, "before") } : {}),
		limit,
		backward,
	};
}

/** Newest activity first; ties broken by id, so the order is total. */
export function compareActivity(a: SessionKey, b: SessionKey): number {
	if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
	return a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0;
}

/**
 * Build a page from up to limit+1 rows fetched in window order (newest first
 * when forward, oldest first when backward).
 */
export function toPage(
	rows: SessionRecord[],
	window: SessionWindow,
	totalCount: number,
): Page<SessionRecord> {
	const kept = rows.slice(0, window.limit);
	if (window.backward) kept.reverse();
	return {
		items: kept.map((node) => ({ cursor: sessionCursor(node), node })),
		...pageFlags(
			rows.length > window.limit,
			window.backward,
			window.after !== undefined,
			window.before !== undefined,
		),
		totalCount,
	};
}

// ---- The append log: seq order, all branches --------------------------------

/** base64 of `seq:N`, as first issued. */
export function seqCursor(seq: number): string {
	return encodeOpaqueText(`seq:${seq}`, "base64");
}

export function decodeSeqCursor(cursor: string, field: string): number {
	const match = /^seq:(\d{1,10})$/.exec(decodeOpaqueText(cursor, "base64"));
	const seq = match ? Number(match[1]) : Number.NaN;
	// seq is a Postgres integer; anything else did not come from this API.
	if (!(seq <= 2_147_483_647)) throw invalidInput(field, "is not an entry cursor from this API");
	return seq;
}

/** One window of the append log: entries with afterSeq < seq < beforeSeq. */
export interface EntryWindow {
	/** 0 is the start of the log. */
	afterSeq: number;
	beforeSeq?: number;
	/** Entries on the page: the first ones of the window, or the last ones when backward. */
	limit: number;
	backward: boolean;
}

export function entryWindow(args: ConnectionArgs): EntryWindow {
	const { limit, backward } = pageDirection(args, DEFAULT_ENTRY_PAGE_SIZE);
	const afterSeq = args.after ? decodeSeqCursor(args.after, "after") : 0;
	return {
		afterSeq,
		...(args.before ? { beforeSeq: decodeSeqCursor(args.before, "before") } : {}),
		limit,
		backward,
	};
}

/** The store query for a window: one row more than the page, to know whether there is more. */
export function entryLogQuery(window: EntryWindow): EntryLogQuery {
	return {
		afterSeq: window.afterSeq,
		...(window.beforeSeq === undefined ? {} : { beforeSeq: window.beforeSeq }),
		limit: window.limit + 1,
		fromEnd: window.backward,
	};
}

export type EntryPage<T> = Omit<Page<T>, "totalCount">;

/** An edge whose cursor is encoded when read: most queries never select it. */
class SeqEdge<T extends { seq: number }> {
	constructor(readonly node: T) {}

	get cursor(): string {
		return seqCursor(this.node.seq);
	}
}

/** Build a page from the rows of `entryLogQuery(window)`, which stay in seq order either way. */
export function entryPage<T extends { seq: number }>(rows: readonly T[], window: EntryWindow): EntryPage<T> {
	const kept = window.backward
		? rows.slice(Math.max(0, rows.length - window.limit))
		: rows.slice(0, window.limit);
	return {
		items: kept.map((node) => new SeqEdge(node)),
		// after seq:0 is the start of the log, so nothing is behind it.
		...pageFlags(
			rows.length > window.limit,
			window.backward,
			window.afterSeq > 0,
			window.beforeSeq !== undefined,
		),
	};
}
