/**
 * The activity feed (dashboards): a workspace's activity log
 * (SessionStore.activity) as CREATED, APPENDED, LEAF_MOVED and RENAMED
 * events, each with its position (./activity-position.ts), resumable like a
 * session's entry stream: a subscriber that comes back with the last cursor
 * it saw gets every later event once, in the log's order, whatever happened
 * in between (disconnects, restarts, other instances).
 *
 * One file: the workspace feed, its streams and the log read they share
 * hold one protocol (a stream takes a push only where it continues, else
 * reads for itself), which is checked in one place; the positions it
 * speaks in are ./activity-position.ts, the wiring to the bus ./live.ts.
 *
 * The log is the source of truth; notices only say when to read it. One feed
 * per watched workspace holds a position and, on each notice, reads the log
 * after it and pushes the events to the workspace's streams. Its work is
 * bounded by the sessions written, not the write rate: notices that come
 * while it reads join the next read, and a read of many records makes one
 * entries read per session (in batches of `batchSize`) and one session read.
 *
 * A stream starts at the feed's position (no cursor: from now on) or at its
 * own cursor; it takes a pushed event only when the event continues exactly
 * where the stream is (the event's predecessor is the stream's last event),
 * and otherwise reads the log itself, only while its consumer waits, until it
 * has caught up; pushes at or before its position are dropped. A stream that
 * lets more than `bufferSize` pushed events pile up is ended with
 * LIMIT_EXCEEDED, naming the cursor to resume from.
 *
 * On Postgres a read returns only records of transactions older than every
 * running one: a notice's record may be held back by an older transaction
 * that is still open and whose end announces nothing. A feed that has heard of
 * a record it has not read yet reads again after a short, growing delay
 * (`pollMs`, up to 1 s, for at most 10 s per notice), and LiveEvents' safety
 * read re-reads every watched workspace's log every few seconds: latency is
 * bounded, and a workspace nobody watches costs no read at all.
 */
import type { Logger } from "../logger.js";
import type { StoredEntry } from "../session/entry.js";
import { invalidInput, isSessionError, SessionError } from "../session/errors.js";
import { kindOf } from "../session/kinds.js";
import type { CommitNotice } from "../store/commits.js";
import type { ActivityRecord, SessionRecord, SessionStore } from "../store/store.js";
import {
	comparePositions,
	type FeedPosition,
	insideRecord,
	parseFeedCursor,
	recordEnd,
} from "./activity-position.js";
import { PulledStream } from "./pulled-stream.js";

export type ActivityKind = "CREATED" | "APPENDED" | "LEAF_MOVED" | "RENAMED";

export interface ActivityEvent {
	kind: ActivityKind;
	session: SessionRecord;
	seq: number;
	at: string;
	/** The entry the event announces (a feed shows it without another read); null for CREATED. */
	entry: StoredEntry | null;
	/** Where the event stands in the log; `position.cursor` resumes after it. */
	position: FeedPosition;
	/** The cursor of the event before it in the log (null: the log's start), to tell a continuation from a gap. */
	previous: string | null;
}

export interface ActivityOptions {
	store: SessionStore;
	logger: Logger;
	/** Events a subscriber may fall behind by before it is ended (LIMIT_EXCEEDED). */
	bufferSize: number;
	/** Entries per store read. */
	batchSize: number;
	/** A subscription ended (the owner may detach from the bus). */
	onRelease: () => void;
	/** First delay before reading a log held back by an open transaction again (default 25 ms; doubles up to 1 s). */
	pollMs?: number;
}

/** Log records per read. */
const RECORDS_PER_READ = 1_000;
/** A record heard of but not read yet is polled for this long; LiveEvents' safety read covers longer holds. */
const HELD_BACK_POLL_LIMIT_MS = 10_000;
const POLL_MAX_MS = 1_000;
/** A failed feed read is retried with backoff between these delays. */
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

/** The event an appended entry announces: its kind's row in session/kinds.ts. */
const activityOf = (row: StoredEntry): ActivityKind => kindOf(row.entry.type).activity;

interface ReadLimits {
	records: number;
	/** Events per read (at least one record's first event is always read). */
	events: number;
	batchSize: number;
}

interface ActivityRead {
	events: ActivityEvent[];
	/** The records the events came from (some possibly in part). */
	records: ActivityRecord[];
	/** Every record after `from` that the store had at the time of the read was turned into events. */
	atEnd: boolean;
}

/**
 * The events after `from` (null: the log's start), in log order. Entries are
 * read per session, one range per session for the whole read, and each
 * session's row after its first batch of entries, so the row is at least as
 * new as the entries it comes with. Null when `alive` turned false meanwhile.
 */
async function readActivity(
	store: SessionStore,
	ws: string,
	from: FeedPosition | null,
	limits: ReadLimits,
	alive: () => boolean,
): Promise<ActivityRead | null> {
	const after = from?.readAfter ?? null;
	const records = await store.activity(ws, { after, limit: limits.records });
	if (!alive()) return null;

	interface Slice {
		record: ActivityRecord;
		before: string | null;
		from: number;
		to: number;
	}
	const slices: Slice[] = [];
	let before = after;
	let budget = limits.events;
	let complete = true;
	for (const record of records) {
		const first = record.created ? record.toSeq : record.fromSeq;
		// The record `from` stands inside: its events up to `from` were delivered.
		const start =
			from && from.readAfter !== from.recordCursor && record.cursor === from.recordCursor
				? from.seq + 1
				: first;
		const count = record.created ? 1 : record.toSeq - start + 1;
		if (budget <= 0) {
			complete = false;
			break;
		}
		const take = Math.min(count, budget);
		slices.push({ record, before, from: start, to: record.created ? record.toSeq : start + take - 1 });
		budget -= take;
		before = record.cursor;
		if (take < count) {
			complete = false;
			break;
		}
	}

	// One entries range per session (its records are consecutive seq ranges), then its row.
	const ranges = new Map<string, { from: number; to: number }>();
	for (const { record, from: lo, to: hi } of slices) {
		const range = ranges.get(record.sessionId);
		if (record.created) {
			if (!range) ranges.set(record.sessionId, { from: Number.MAX_SAFE_INTEGER, to: 0 });
			continue;
		}
		if (range) {
			range.from = Math.min(range.from, lo);
			range.to = Math.max(range.to, hi);
		} else ranges.set(record.sessionId, { from: lo, to: hi });
	}
	const rows = new Map<string, Map<number, StoredEntry>>();
	const sessions = new Map<string, SessionRecord | null>();
	for (const [sessionId, { from: lo, to: hi }] of ranges) {
		const bySeq = new Map<number, StoredEntry>();
		rows.set(sessionId, bySeq);
		let afterSeq = lo - 1;
		while (afterSeq < hi) {
			let batch: StoredEntry[];
			try {
				batch = await store.listEntries(ws, sessionId, {
					afterSeq,
					beforeSeq: hi + 1,
					limit: limits.batchSize,
				});
			} catch (error) {
				// Deleted since its records were read: they are skipped, as a missing session's are below.
				if (!isSessionError(error, "NOT_FOUND")) throw error;
				sessions.set(sessionId, null);
				break;
			}
			if (!alive()) return null;
			for (const row of batch) bySeq.set(row.seq, row);
			if (!sessions.has(sessionId)) {
				sessions.set(sessionId, await store.getSession(ws, sessionId));
				if (!alive()) return null;
			}
			const last = batch.at(-1);
			if (!last || batch.length < limits.batchSize) break;
			afterSeq = last.seq;
		}
		if (!sessions.has(sessionId)) {
			sessions.set(sessionId, await store.getSession(ws, sessionId));
			if (!alive()) return null;
		}
	}

	const events: ActivityEvent[] = [];
	let previous = from?.cursor ?? null;
	const add = (event: Omit<ActivityEvent, "previous">) => {
		events.push({ ...event, previous });
		previous = event.position.cursor;
	};
	for (const { record, before: prior, from: lo, to: hi } of slices) {
		// Sessions are never deleted: a missing row is a defect, and its events are left out.
		const session = sessions.get(record.sessionId);
		if (!session) continue;
		if (record.created) {
			add({
				kind: "CREATED",
				session,
				seq: record.toSeq,
				at: session.createdAt,
				entry: null,
				position: recordEnd(record.cursor),
			});
			continue;
		}
		const bySeq = rows.get(record.sessionId);
		for (let seq = lo; seq <= hi; seq++) {
			const row = bySeq?.get(seq);
			if (!row) continue;
			add({
				kind: activityOf(row),
				session,
				seq,
				at: row.entry.timestamp,
				entry: row,
				position: seq === record.toSeq ? recordEnd(record.cursor) : insideRecord(prior, record.cursor, seq),
			});
		}
	}
	return {
		events,
		records: slices.map((s) => s.record),
		atEnd: complete && records.length < limits.records,
	};
}

/**
 * One subscriber's events. Attached to its workspace's feed from the moment
 * `subscribe` resolves (so a subscriber that has not asked for its first
 * event yet still overflows and is counted); Yoga's Repeater starts its
 * executor only at the first `next()` and never runs it when `return()` comes
 * first, so it cannot hold this attachment.
 */
class ActivityStream extends PulledStream<ActivityEvent> {
	/** The last event queued or passed over (filtered out): pushes continue from here. */
	private tail: FeedPosition | null;
	/** The last event handed to the consumer: where a resubscription resumes. */
	private delivered: FeedPosition | null;
	/** The log may hold events after `tail` that were not pushed: read it while the consumer waits. */
	private behind: boolean;
	/** The furthest event known to exist (pushed while behind). */
	private wanted: FeedPosition | null = null;

	constructor(
		readonly ws: string,
		from: FeedPosition | null,
		resuming: boolean,
		private readonly only: ReadonlySet<string> | null,
		private readonly options: ActivityOptions,
		private readonly onClose: (stream: ActivityStream) => void,
	) {
		super();
		this.tail = from;
		this.delivered = from;
		this.behind = resuming;
	}

	/** An event from the workspace's feed. */
	push(event: ActivityEvent): void {
		if (this.closed || this.failure) return;
		if (comparePositions(event.position, this.tail) <= 0) return;
		if (this.behind || this.reading || event.previous !== (this.tail?.cursor ?? null)) {
			this.behind = true;
			if (comparePositions(event.position, this.wanted) > 0) this.wanted = event.position;
			this.pump();
			return;
		}
		if (this.queued.length >= this.options.bufferSize && this.kept(event)) {
			const at = this.delivered?.cursor;
			this.fail(
				new SessionError(
					"LIMIT_EXCEEDED",
					`Subscriber fell more than ${this.options.bufferSize} events behind; resubscribe${
						at ? ` with afterCursor: ${at}` : " to continue"
					}`,
					at ? { field: "afterCursor" } : {},
				),
			);
			return;
		}
		this.take(event);
		this.pump();
	}

	private kept(event: ActivityEvent): boolean {
		return !this.only || this.only.has(event.session.sessionId);
	}

	private take(event: ActivityEvent): void {
		this.tail = event.position;
		if (this.kept(event)) this.queued.push(event);
	}

	/** The feed found nothing between `from` and `to`: a stream caught up at `from` continues from `to`. */
	skip(from: FeedPosition | null, to: FeedPosition): void {
		if (!this.behind && !this.reading && comparePositions(this.tail, from) === 0) this.tail = to;
	}

	protected isBehind(): boolean {
		return this.behind;
	}

	protected delivering(event: ActivityEvent): void {
		this.delivered = event.position;
	}

	protected detach(): void {
		this.onClose(this);
	}

	protected async readMore(): Promise<boolean> {
		const { store, batchSize } = this.options;
		const read = await readActivity(
			store,
			this.ws,
			this.tail,
			{ records: RECORDS_PER_READ, events: batchSize, batchSize },
			() => !this.closed,
		);
		if (!read) return false;
		for (const event of read.events) if (comparePositions(event.position, this.tail) > 0) this.take(event);
		// Caught up with the log as of the read, and nothing later was pushed meanwhile: live pushes continue it.
		if ((read.atEnd || read.events.length === 0) && comparePositions(this.wanted, this.tail) <= 0) {
			this.behind = false;
			this.wanted = null;
		}
		return true;
	}
}

/** One watched workspace: its position in the log, read on notices, pushed to its streams. */
class WorkspaceFeed {
	readonly streams = new Set<ActivityStream>();
	/** Subscriptions between choosing this feed and attaching to it: the feed must outlive them. */
	joining = 0;
	/** The last event pushed (null: the log was empty at the start). */
	position: FeedPosition | null = null;
	private starting: Promise<void> | undefined;
	private started = false;
	private draining = false;
	private again = false;
	/** Sessions heard of (their last noticed seq, since when) whose records this feed has not pushed yet. */
	private readonly expected = new Map<string, { toSeq: number; since: number }>();
	/** The last seq pushed per session since the start. */
	private readonly pushed = new Map<string, number>();
	private timer: NodeJS.Timeout | undefined;
	private pollDelay: number;
	private retryDelay = RETRY_MIN_MS;
	private stopped = false;
	/** The next read may move the position forward (see pull). */
	private forward = false;

	constructor(
		readonly ws: string,
		private readonly options: ActivityOptions,
	) {
		this.pollDelay = options.pollMs ?? 25;
	}

	get pending(): number {
		return this.expected.size;
	}

	private get alive(): boolean {
		return !this.stopped && (this.streams.size > 0 || this.joining > 0);
	}

	/** Find the log's end once: a subscriber without a cursor starts there. */
	start(): Promise<void> {
		this.starting ??= (async () => {
			// Where the log stands, without reading it (a quiet workspace among busy ones would
			// otherwise scan their records). A notice heard meanwhile whose record lies before it
			// is waited for until its poll gives up (bounded), never delivered.
			this.position = recordEnd(await this.options.store.activityNow());
			this.started = true;
			this.pull();
		})();
		// A failed start is tried again by the next subscriber.
		this.starting.catch(() => {
			this.starting = undefined;
		});
		return this.starting;
	}

	private passed(sessionId: string, toSeq: number): void {
		if (toSeq > (this.pushed.get(sessionId) ?? -1)) this.pushed.set(sessionId, toSeq);
		const expected = this.expected.get(sessionId);
		if (expected && expected.toSeq <= toSeq) this.expected.delete(sessionId);
	}

	notice(notice: CommitNotice): void {
		const { sessionId, toSeq } = notice;
		if (toSeq > (this.pushed.get(sessionId) ?? -1)) {
			const waiting = this.expected.get(sessionId);
			if (waiting) waiting.toSeq = Math.max(waiting.toSeq, toSeq);
			else this.expected.set(sessionId, { toSeq, since: Date.now() });
		}
		this.pull();
	}

	/**
	 * Read the log after the position (now, or after the read in progress).
	 * `forward`: when the read finds nothing, move the position up to where
	 * the log stood before it (SessionStore.activityNow), so that the next
	 * read of a quiet workspace does not walk again what other workspaces
	 * wrote since its last record (the safety read's, every few seconds).
	 */
	pull(forward = false): void {
		if (forward) this.forward = true;
		if (!this.started || this.draining) {
			this.again = true;
			return;
		}
		if (!this.alive) return;
		clearTimeout(this.timer);
		this.timer = undefined;
		this.draining = true;
		void this.drain();
	}

	private async drain(): Promise<void> {
		const { store, batchSize, bufferSize, logger } = this.options;
		try {
			do {
				this.again = false;
				const forward = this.forward;
				this.forward = false;
				// Taken before the read: every transaction older than it had ended, so a read that finds
				// nothing after the position proves nothing of this workspace lies before it either.
				const now = forward ? recordEnd(await store.activityNow()) : undefined;
				for (;;) {
					const read = await readActivity(
						store,
						this.ws,
						this.position,
						{ records: RECORDS_PER_READ, events: Math.max(bufferSize, batchSize), batchSize },
						() => this.alive,
					);
					if (!read) return;
					for (const event of read.events) {
						this.position = event.position;
						for (const stream of [...this.streams]) stream.push(event);
					}
					for (const record of read.records) this.passed(record.sessionId, record.toSeq);
					if (now && read.records.length === 0 && comparePositions(now, this.position) > 0) {
						for (const stream of this.streams) stream.skip(this.position, now);
						this.position = now;
					}
					this.retryDelay = RETRY_MIN_MS;
					if (read.atEnd || read.events.length === 0) break;
				}
			} while (this.again && this.alive);
			this.settle();
		} catch (error) {
			// Nothing is lost: the feed reads again from its position.
			logger.warn("activity feed read failed; retrying", { error: error as Error });
			this.schedule(this.retryDelay);
			this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
		} finally {
			this.draining = false;
		}
		if (this.again && this.alive && !this.timer) this.pull();
	}

	/** After reading to the log's end: records heard of but not there yet are held back by an open transaction. */
	private settle(): void {
		const now = Date.now();
		for (const [sessionId, { since }] of this.expected)
			if (now - since > HELD_BACK_POLL_LIMIT_MS) this.expected.delete(sessionId);
		if (this.expected.size === 0) {
			this.pollDelay = this.options.pollMs ?? 25;
			return;
		}
		this.schedule(this.pollDelay);
		this.pollDelay = Math.min(this.pollDelay * 2, POLL_MAX_MS);
	}

	private schedule(ms: number): void {
		if (this.timer || !this.alive) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.pull();
		}, ms);
		this.timer.unref();
	}

	/** Nobody watches any more: no reads, no timers. */
	stop(): void {
		this.stopped = true;
		clearTimeout(this.timer);
		this.timer = undefined;
		this.expected.clear();
	}
}

export interface ActivitySubscription {
	/** Resume after this cursor (an event's `position.cursor`); default: from now on. */
	afterCursor?: string | null;
	/** Only these sessions' events. */
	sessionIds?: readonly string[] | null;
	/** Without afterCursor: begin with the events of the workspace's last `last` writes, then go on live. */
	last?: number | null;
}

/** The most writes a feed may begin with (`last`). */
export const MAX_RECENT_WRITES = 100;

export class ActivityFanOut {
	private readonly feeds = new Map<string, WorkspaceFeed>();

	constructor(private readonly options: ActivityOptions) {}

	get subscriberCount(): number {
		let n = 0;
		for (const feed of this.feeds.values()) n += feed.streams.size;
		return n;
	}

	/** Workspaces watched on this instance (each costs reads only on notices and safety reads). */
	get workspaceCount(): number {
		return this.feeds.size;
	}

	/** Sessions heard of whose activity has not been pushed yet (bounded by the sessions written, not the writes). */
	get pendingSessions(): number {
		let n = 0;
		for (const feed of this.feeds.values()) n += feed.pending;
		return n;
	}

	/**
	 * A stream of the workspace's events after `afterCursor` (INVALID_INPUT
	 * when it is not a cursor of this feed), or from now on. The caller is
	 * attached to the bus already, so no notice after the start is missed.
	 */
	async subscribe(
		ws: string,
		request: ActivitySubscription = {},
	): Promise<AsyncIterableIterator<ActivityEvent>> {
		const from =
			request.afterCursor == null
				? await this.recentStart(ws, request.last)
				: parseFeedCursor(request.afterCursor, "afterCursor");
		let feed = this.feeds.get(ws);
		if (!feed) {
			feed = new WorkspaceFeed(ws, this.options);
			this.feeds.set(ws, feed);
		}
		const owner = feed;
		owner.joining += 1;
		try {
			await owner.start();
		} catch (error) {
			owner.joining -= 1;
			this.dropIfIdle(owner);
			throw error;
		}
		owner.joining -= 1;
		const only = request.sessionIds ? new Set(request.sessionIds) : null;
		const stream = new ActivityStream(
			ws,
			// null: from the log's start (a feed of recent writes, when there are no more than it asked for).
			from === undefined ? owner.position : from,
			from !== undefined,
			only,
			this.options,
			(s) => {
				owner.streams.delete(s);
				this.dropIfIdle(owner);
				this.options.onRelease();
			},
		);
		owner.streams.add(stream);
		return stream;
	}

	/**
	 * Where a feed that begins with the last `last` writes starts: after the
	 * write before them (null: the log's start, when there are no more than
	 * that); undefined without `last` (from now on). Events committed after
	 * the read come after these, live, so nothing is missed between the two.
	 */
	private async recentStart(
		ws: string,
		last: number | null | undefined,
	): Promise<FeedPosition | null | undefined> {
		if (last === null || last === undefined) return undefined;
		if (!Number.isInteger(last) || last < 0 || last > MAX_RECENT_WRITES)
			throw invalidInput("last", `must be an integer from 0 to ${MAX_RECENT_WRITES}`);
		if (last === 0) return undefined;
		const records = await this.options.store.activity(ws, { latest: true, limit: last + 1 });
		const before = records.length > last ? records[0] : undefined;
		return before ? recordEnd(before.cursor) : null;
	}

	private dropIfIdle(feed: WorkspaceFeed): void {
		if (feed.streams.size === 0 && feed.joining === 0 && this.feeds.get(feed.ws) === feed) {
			this.feeds.delete(feed.ws);
			feed.stop();
		}
	}

	notice(notice: CommitNotice): void {
		this.feeds.get(notice.workspaceId)?.notice(notice);
	}

	/** Notices may have been lost, or a transaction held the log back: every feed reads its log again. */
	resync(): void {
		// The feeds' pushes continue every stream that is live; one behind reads the log itself anyway.
		for (const feed of this.feeds.values()) feed.pull();
	}

	/** The periodic safety read: every watched workspace's log once, a quiet one's position moved forward. */
	safetyRead(): void {
		for (const feed of this.feeds.values()) feed.pull(true);
	}

	/** End every subscription (shutdown). */
	close(): void {
		for (const feed of [...this.feeds.values()]) for (const stream of [...feed.streams]) void stream.return();
	}
}
