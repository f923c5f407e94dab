/**
 * Subscription event ids for SSE resume. Each event of a resumable
 * subscription has an id (the `seq` of its entry; an activity event's
 * cursor), which the SSE writer sends as the event's `id:` (app/sse-event-ids.ts)
 * and which a browser's EventSource sends back as the `Last-Event-ID` header
 * when it reconnects, with the URL and body it first used.
 *
 * The id of the event being delivered is kept per operation context: a
 * subscriber's source stream yields one payload, the event is executed (or
 * its shared result reused) and written before the next payload is pulled,
 * so when a result reaches the writer, the last payload its own source
 * yielded is that result's. The id is read from the source, not from the
 * result, because a selection need not include `seq` and a shared result
 * belongs to many subscribers.
 */
import { comparePositions, parseFeedCursor } from "../events/activity-position.js";
import { invalidInput } from "../session/errors.js";

const current = new WeakMap<object, string>();

/** Record the id of the payload the subscriber's source just yielded (none: the event has no id). */
export function noteEventId(context: object, id: string | undefined): void {
	if (id === undefined) current.delete(context);
	else current.set(context, id);
}

/** The id of the event being delivered to this operation, if it has one. */
export function eventIdOf(context: object): string | undefined {
	return current.get(context);
}

/** The `Last-Event-ID` header of the request that started this operation (SSE only). */
export function lastEventIdHeader(context: { request?: Request }): string | undefined {
	// Over WebSocket there is no fetch Request (only the upgrade's `req`), hence no header.
	const headers = context.request?.headers;
	const value = typeof headers?.get === "function" ? headers.get("last-event-id")?.trim() : undefined;
	return value ? value : undefined;
}

const SEQ = /^(0|[1-9][0-9]{0,14})$/;

/**
 * Where a session's stream resumes: after `afterSeq`, or after the seq in
 * `Last-Event-ID` when that is later. EventSource reconnects with the URL and
 * body it was created with, so after a reconnect the argument is the stale
 * position of the first connection and the header the real one; a header
 * behind the argument (a client that resumes on purpose with a later
 * `afterSeq`) does not move it back.
 */
export function resumeSeq(
	afterSeq: number | null | undefined,
	context: { request?: Request },
): number | undefined {
	const header = lastEventIdHeader(context);
	const given = afterSeq ?? undefined;
	if (header === undefined) return given;
	if (!SEQ.test(header)) throw invalidInput("Last-Event-ID", "must be the seq of an event of this stream");
	const seq = Number(header);
	return given === undefined ? seq : Math.max(given, seq);
}

/**
 * Where an activity stream resumes: after `afterCursor`, or after the cursor
 * in `Last-Event-ID` when that is later in the log, by the same reasoning as
 * `resumeSeq`. Each is INVALID_INPUT naming its own field when it is not a
 * cursor of the feed.
 */
export function resumeCursor(
	afterCursor: string | null | undefined,
	context: { request?: Request },
): string | undefined {
	const given = afterCursor == null ? undefined : parseFeedCursor(afterCursor, "afterCursor");
	const header = lastEventIdHeader(context);
	const heard = header === undefined ? undefined : parseFeedCursor(header, "Last-Event-ID");
	if (!heard) return given?.cursor;
	if (!given) return heard.cursor;
	return comparePositions(heard, given) > 0 ? heard.cursor : given.cursor;
}
