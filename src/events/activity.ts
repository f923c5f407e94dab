/**
 * The activity feed (dashboards): commit notices become CREATED, APPENDED,
 * LEAF_MOVED and RENAMED events for every subscriber of the notice's
 * workspace.
 *
 * Its work is bounded by the number of sessions written, not by the write
 * rate. Notices of one session that wait are merged into one seq range
 * (`pending`, insertion-ordered, at most one range per session); one drain
 * loop takes the ranges in order and turns each into events with one read of
 * its entries (in batches of `batchSize` when the range is long) and one of
 * the session row. Each subscriber has a queue of at most `bufferSize`
 * events; one that falls further behind is ended with LIMIT_EXCEEDED, and the
 * others are not slowed down. The feed has no resume point yet: a client that
 * was ended resubscribes, and what happened in between is not replayed.
 *
 * Events of one session are in seq order: a range is read in seq order, the
 * drain handles one range at a time, and both buses deliver a session's
 * notices in commit order, which is seq order. Across sessions, a session's
 * later notices join its waiting range, so they may overtake another
 * session's.
 */
import type { Logger } from "../logger.js";
import type { StoredEntry } from "../session/entry.js";
import { SessionError } from "../session/errors.js";
import { ENTRY_KINDS } from "../session/kinds.js";
import type { CommitNotice } from "../store/commits.js";
import type { SessionRecord, SessionStore } from "../store/store.js";

export type ActivityKind = "CREATED" | "APPENDED" | "LEAF_MOVED" | "RENAMED";

export interface ActivityEvent {
	kind: ActivityKind;
	session: SessionRecord;
	seq: number;
	at: string;
	/** The entry the event announces (a feed shows it without another read); null for CREATED. */
	entry: StoredEntry | null;
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
}

/** Notices of one session not yet announced, merged. */
interface PendingRange {
	ws: string;
	sessionId: string;
	fromSeq: number;
	toSeq: number;
	/** The seq of the commit that created the session, when it is in this range. */
	createdSeq: number | undefined;
}

/** The event an appended entry announces: its kind's row in session/kinds.ts. */
const kindOf = (row: StoredEntry): ActivityKind => ENTRY_KINDS[row.entry.type].activity;

/**
 * One subscriber's events. Attached from the moment `activityEvents` returns
 * (so a subscriber that has not asked for its first event yet still
 * overflows and is counted); Yoga's Repeater starts its executor only at the
 * first `next()` and never runs it when `return()` comes first, so it cannot
 * hold this attachment.
 */
class ActivityStream implements AsyncIterableIterator<ActivityEvent> {
	private readonly queued: ActivityEvent[] = [];
	private waiter:
		| { resolve: (r: IteratorResult<ActivityEvent>) => void; reject: (e: unknown) => void }
		| undefined;
	private failure: Error | undefined;
	private closed = false;

	constructor(
		readonly ws: string,
		private readonly bufferSize: number,
		private readonly onClose: (stream: ActivityStream) => void,
	) {}

	push(event: ActivityEvent): void {
		if (this.closed) return;
		const waiter = this.waiter;
		if (waiter) {
			this.waiter = undefined;
			waiter.resolve({ value: event, done: false });
		} else if (this.queued.length < this.bufferSize) this.queued.push(event);
		else
			this.fail(
				new SessionError(
					"LIMIT_EXCEEDED",
					`Subscriber fell more than ${this.bufferSize} events behind; resubscribe to continue (events in between are not replayed)`,
				),
			);
	}

	private fail(error: Error): void {
		this.failure = error;
		this.queued.length = 0;
		this.finish();
		const waiter = this.waiter;
		this.waiter = undefined;
		waiter?.reject(error);
	}

	private finish(): void {
		if (this.closed) return;
		this.closed = true;
		this.onClose(this);
	}

	next(): Promise<IteratorResult<ActivityEvent>> {
		if (this.failure) return Promise.reject(this.failure);
		if (this.waiter) return Promise.reject(new Error("next() called while a previous next() is pending"));
		const value = this.queued.shift();
		if (value) return Promise.resolve({ value, done: false });
		if (this.closed) return Promise.resolve({ value: undefined, done: true });
		return new Promise((resolve, reject) => {
			this.waiter = { resolve, reject };
		});
	}

	/** The consumer went away (or shutdown): detach at once. */
	return(): Promise<IteratorResult<ActivityEvent>> {
		this.queued.length = 0;
		this.finish();
		const waiter = this.waiter;
		this.waiter = undefined;
		waiter?.resolve({ value: undefined, done: true });
		return Promise.resolve({ value: undefined, done: true });
	}

	throw(error: unknown): Promise<IteratorResult<ActivityEvent>> {
		return this.return().then(() => Promise.reject(error));
	}

	[Symbol.asyncIterator](): this {
		return this;
	}
}

export class ActivityFanOut {
	private readonly subscribers = new Map<string, Set<ActivityStream>>();
	private count = 0;
	private readonly pending = new Map<string, PendingRange>();
	private draining = false;

	constructor(private readonly options: ActivityOptions) {}

	get subscriberCount(): number {
		return this.count;
	}

	/** Sessions with notices not yet turned into events (at most the sessions written meanwhile). */
	get pendingSessions(): number {
		return this.pending.size;
	}

	subscribe(ws: string): AsyncIterableIterator<ActivityEvent> {
		const stream = new ActivityStream(ws, this.options.bufferSize, (s) => this.release(s));
		let streams = this.subscribers.get(ws);
		if (!streams) {
			streams = new Set();
			this.subscribers.set(ws, streams);
		}
		streams.add(stream);
		this.count += 1;
		return stream;
	}

	private release(stream: ActivityStream): void {
		const streams = this.subscribers.get(stream.ws);
		if (!streams?.delete(stream)) return;
		this.count -= 1;
		if (streams.size === 0) {
			this.subscribers.delete(stream.ws);
			// Nobody left to tell: the workspace's waiting ranges are dropped unread.
			for (const [key, range] of this.pending) if (range.ws === stream.ws) this.pending.delete(key);
		}
		this.options.onRelease();
	}

	notice(notice: CommitNotice): void {
		const { workspaceId: ws, sessionId } = notice;
		if (!this.subscribers.has(ws)) return;
		const key = JSON.stringify([ws, sessionId]);
		const waiting = this.pending.get(key);
		if (waiting) {
			waiting.fromSeq = Math.min(waiting.fromSeq, notice.fromSeq);
			waiting.toSeq = Math.max(waiting.toSeq, notice.toSeq);
			if (notice.created) waiting.createdSeq = notice.toSeq;
		} else {
			this.pending.set(key, {
				ws,
				sessionId,
				fromSeq: notice.fromSeq,
				toSeq: notice.toSeq,
				createdSeq: notice.created ? notice.toSeq : undefined,
			});
		}
		this.drain();
	}

	/** End every subscription (shutdown). */
	close(): void {
		for (const streams of [...this.subscribers.values()])
			for (const stream of [...streams]) void stream.return();
	}

	private drain(): void {
		if (this.draining) return;
		this.draining = true;
		void (async () => {
			try {
				for (let range = this.take(); range; range = this.take()) await this.announce(range);
			} catch (error) {
				// announce() handles store failures; this is a defect, and must not become an unhandled rejection.
				this.options.logger.error("activity fan-out stopped draining", { error: error as Error });
			} finally {
				this.draining = false;
			}
		})();
	}

	/** The oldest waiting range; the session's next notices start a new one behind the others. */
	private take(): PendingRange | undefined {
		for (const [key, range] of this.pending) {
			this.pending.delete(key);
			return range;
		}
		return undefined;
	}

	/**
	 * Turn one range into events: CREATED first when the range holds the
	 * creation, then one event per entry after it. The session row is read
	 * after the first batch of entries, so it is at least as new as those.
	 */
	private async announce(range: PendingRange): Promise<void> {
		const { store, batchSize, logger } = this.options;
		const { ws, sessionId, toSeq } = range;
		let created = range.createdSeq !== undefined;
		let after = range.createdSeq ?? range.fromSeq - 1;
		let session: SessionRecord | null = null;
		try {
			for (;;) {
				const rows =
					after < toSeq
						? await store.listEntries(ws, sessionId, {
								afterSeq: after,
								beforeSeq: toSeq + 1,
								limit: batchSize,
							})
						: [];
				if (!this.subscribers.has(ws)) return;
				session ??= await store.getSession(ws, sessionId);
				const streams = this.subscribers.get(ws);
				if (!session || !streams) return;
				const events: ActivityEvent[] = [];
				if (created) {
					events.push({
						kind: "CREATED",
						session,
						seq: range.createdSeq ?? 0,
						at: session.createdAt,
						entry: null,
					});
					created = false;
				}
				for (const row of rows)
					events.push({ kind: kindOf(row), session, seq: row.seq, at: row.entry.timestamp, entry: row });
				const targets = [...streams];
				for (const event of events) for (const stream of targets) stream.push(event);
				const last = rows.at(-1);
				if (!last || rows.length < batchSize || last.seq >= toSeq) return;
				after = last.seq;
			}
		} catch (error) {
			logger.warn("activity events dropped: the store read failed", {
				session: sessionId,
				fromSeq: after + 1,
				toSeq,
				error: error as Error,
			});
		}
	}
}
