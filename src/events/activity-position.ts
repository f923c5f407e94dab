/**
 * Positions of the activity feed's events, handed to clients as cursors
 * (`SessionActivity.cursor`, the SSE event id). An event is one entry of one
 * record of the workspace's activity log (SessionStore.activity), or, for a
 * record that created its session, the record's one CREATED event.
 *
 * The last event of a record stands at the record's own position: its cursor
 * is the store's cursor of the record, and reading the log after it gives
 * what follows. An earlier event of a record of several entries (a leaf move
 * with its summary) stands inside the record: its cursor names the record
 * before (where to read the log again from), the record and the event's seq,
 * so a reader resuming there reads the record again and skips what it
 * delivered. The record before a given record never changes once both were
 * read (the log's order never changes, store.ts `activity`), so every reader
 * gives the same event the same cursor. One exception: a stream that starts
 * at a position between records (a list's `activityCursor`,
 * SessionStore.activityNow) names that position as the record before the
 * first record it reads, so that record's earlier events get cursors of
 * their own, which resume exactly like the others.
 *
 * Positions are ordered like the log: by record (transaction id, session key,
 * last seq: store/activity-cursor.ts; in memory the first part alone orders),
 * then seq.
 */
import { invalidInput } from "../session/errors.js";
import { type LogPosition, parseActivityCursor } from "../store/activity-cursor.js";
import { decodeOpaque, encodeOpaque } from "../store/opaque.js";

export interface FeedPosition {
	/** The event's cursor, as clients see it. */
	cursor: string;
	/** The store's cursor of the event's record, and the record's place in the log. */
	recordCursor: string;
	record: LogPosition;
	seq: number;
	/** Where the log is read from to get the events after this one: the record itself once its last event was delivered, else the record before it (null: the log's start). */
	readAfter: string | null;
}

/** The last event of a record (its cursor is the record's). */
export function recordEnd(
	recordCursor: string,
	record: LogPosition = parseActivityCursor(recordCursor),
): FeedPosition {
	return { cursor: recordCursor, recordCursor, record, seq: record.toSeq, readAfter: recordCursor };
}

/** An event before the last of its record. */
export function insideRecord(
	before: string | null,
	recordCursor: string,
	seq: number,
	record: LogPosition = parseActivityCursor(recordCursor),
): FeedPosition {
	return {
		cursor: encodeOpaque(["e", recordCursor, seq, before], "base64url"),
		recordCursor,
		record,
		seq,
		readAfter: before,
	};
}

/** A client's cursor (`afterCursor`, `Last-Event-ID`); anything that is not one of this feed is INVALID_INPUT naming `field`. */
export function parseFeedCursor(token: string, field: string): FeedPosition {
	const parts = decodeOpaque(token, "base64url");
	if (parts?.[0] !== "e") return recordEnd(token, parseActivityCursor(token, field));
	const [, recordCursor, seq, before] = parts;
	const wrong = () => invalidInput(field, "is not a cursor of this feed");
	if (parts.length !== 4 || typeof recordCursor !== "string" || !Number.isSafeInteger(seq)) throw wrong();
	if (before !== null && typeof before !== "string") throw wrong();
	const record = parseActivityCursor(recordCursor, field);
	if ((seq as number) < 0 || (seq as number) >= record.toSeq) throw wrong();
	if (before !== null && compareRecords(parseActivityCursor(before, field), record) >= 0) throw wrong();
	const position = insideRecord(before, recordCursor, seq as number, record);
	// One spelling per position, like the store's cursors.
	if (position.cursor !== token) throw wrong();
	return position;
}

function compareRecords(a: LogPosition, b: LogPosition): number {
	const ax = BigInt(a.xid);
	const bx = BigInt(b.xid);
	if (ax !== bx) return ax < bx ? -1 : 1;
	return a.key - b.key || a.toSeq - b.toSeq;
}

/** Log order; null (before the log's start) comes first. */
export function comparePositions(a: FeedPosition | null, b: FeedPosition | null): number {
	if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
	return compareRecords(a.record, b.record) || a.seq - b.seq;
}
