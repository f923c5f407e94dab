/**
 * Live events of this instance. One feed per watched session reads each new
 * entry once from the store and pushes it to that session's streams; one
 * feed per watched workspace reads the workspace's activity log and pushes
 * dashboard events (activity.ts); a live metrics query is told when its
 * workspace changed. Feeds, timers and the bus subscription exist only while
 * someone listens, so closing every subscription returns all listener counts
 * to zero and an unwatched workspace costs nothing.
 *
 * One file: the registry owns each session feed, its change signal, the
 * bus subscription and the timers, and they share one lifecycle (they exist
 * only while someone listens); the activity feed is ./activity.ts.
 */
import type { Logger } from "../logger.js";
import type { MetricsQuery, MetricsResult } from "../session/analytics/metrics.js";
import type { StoredEntry } from "../session/entry.js";
import { isSessionError, SessionError } from "../session/errors.js";
import { limitConcurrency } from "../store/limited.js";
import type { SessionRecord, SessionStore } from "../store/store.js";
import { type ActivityEvent, ActivityFanOut, type ActivitySubscription } from "./activity.js";
import { MetricsUpdates } from "./analytics/metrics-updates.js";
import type { BusListener, EventBus } from "./bus.js";
import { EntryStream } from "./entry-stream.js";

export type { ActivityEvent, ActivityKind, ActivitySubscription } from "./activity.js";

export interface LiveOptions {
	store: SessionStore;
	bus: EventBus;
	logger: Logger;
	/** Live events a subscriber may fall behind by before it is ended (LIMIT_EXCEEDED). */
	bufferSize?: number;
	/** Entries per store read when catching up. */
	batchSize?: number;
	/**
	 * How often the sessions and workspaces this instance watches are
	 * re-read, so that a commit whose notice never came (its writer died
	 * between commit and NOTIFY, or the NOTIFY could not be sent), or an
	 * activity log held back by a long open transaction, reaches subscribers
	 * late rather than never. Default: every 2 s on a Postgres bus, never on
	 * the in-process one (its notices are calls in this process and cannot be
	 * lost, and its backends hold no write open while another commits).
	 */
	safetyReadMs?: number | null;
	/** A live metrics query sends at most one result per this many ms (default 1,000). */
	metricsIntervalMs?: number;
	/**
	 * Metrics queries live subscriptions may run at once on this instance
	 * (default 2): a client holding many live queries waits for its results
	 * instead of taking the database from every other request.
	 */
	metricsConcurrency?: number;
	/** First delay before an activity feed held back by an open transaction reads again (activity.ts). */
	activityPollMs?: number;
}

/**
 * Tells a live metrics query that its workspace changed: `next()` resolves
 * once a notice (or a resync) came since the last one. Notices, not the
 * activity log: figures are read from committed rollups, which a notice's
 * commit has already changed, and a change signal needs no position.
 */
class ChangeSignal implements AsyncIterableIterator<void> {
	private changed = false;
	private closed = false;
	private wake: ((result: IteratorResult<void>) => void) | undefined;

	constructor(private readonly onClose: (signal: ChangeSignal) => void) {}

	signal(): void {
		const wake = this.wake;
		this.wake = undefined;
		if (wake) wake({ value: undefined, done: false });
		else this.changed = true;
	}

	next(): Promise<IteratorResult<void>> {
		if (this.closed) return Promise.resolve({ value: undefined, done: true });
		if (this.changed) {
			this.changed = false;
			return Promise.resolve({ value: undefined, done: false });
		}
		return new Promise((resolve) => {
			this.wake = resolve;
		});
	}

	return(): Promise<IteratorResult<void>> {
		if (!this.closed) {
			this.closed = true;
			this.onClose(this);
		}
		const wake = this.wake;
		this.wake = undefined;
		wake?.({ value: undefined, done: true });
		return Promise.resolve({ value: undefined, done: true });
	}

	[Symbol.asyncIterator](): this {
		return this;
	}
}

const SAFETY_READ_MS = 2_000;

const feedKey = (ws: string, sessionId: string) => JSON.stringify([ws, sessionId]);

/** Reads each new entry of one session once and pushes it to every stream of that session. */
class SessionFeed {
	readonly streams = new Set<EntryStream>();
	/** Subscriptions between choosing this feed and attaching to it: the feed must outlive them. */
	joining = 0;
	private head: number | undefined;
	private noticed = 0;
	private pulling: Promise<void> | undefined;
	private again = false;
	/** Set once the session is known to be deleted. */
	private gone = false;

	constructor(
		private readonly store: SessionStore,
		private readonly ws: string,
		private readonly sessionId: string,
		private readonly batchSize: number,
		private readonly logger: Logger,
	) {}

	get started(): boolean {
		return this.head !== undefined;
	}

	get workspaceId(): string {
		return this.ws;
	}

	get id(): string {
		return this.sessionId;
	}

	/** The feed's start: entries after the session's current end are pushed. */
	start(lastSeq: number): void {
		if (this.head !== undefined) return;
		this.head = lastSeq;
		if (this.noticed > lastSeq) this.pull();
	}

	/** The session was deleted: every stream ends with SessionDeleted, and the feed reads no more. */
	deleted(): void {
		this.gone = true;
		for (const stream of [...this.streams]) stream.sessionDeleted();
	}

	notice(toSeq: number): void {
		if (this.gone) return;
		this.noticed = Math.max(this.noticed, toSeq);
		if (this.head !== undefined && toSeq > this.head) this.pull();
	}

	resync(): void {
		if (this.head !== undefined) this.pull();
		for (const stream of this.streams) stream.resync();
	}

	private pull(): void {
		if (this.pulling) {
			this.again = true;
			return;
		}
		this.pulling = (async () => {
			try {
				do {
					this.again = false;
					let rows: StoredEntry[];
					do {
						rows = await this.store.listEntries(this.ws, this.sessionId, {
							// Set by start() before any pull.
							afterSeq: this.head ?? 0,
							limit: this.batchSize,
						});
						for (const row of rows) {
							this.head = row.seq;
							for (const stream of this.streams) stream.push(row);
						}
						this.retryDelay = FEED_RETRY_MIN_MS;
					} while (rows.length === this.batchSize && this.streams.size > 0);
				} while (this.again && this.streams.size > 0);
			} catch (error) {
				// Deleted (here or elsewhere, its notice not heard yet): the streams end, nothing is retried.
				if (isSessionError(error, "NOT_FOUND")) return this.deleted();
				// The streams are not failed for this: the feed tries again, and they catch up from its pushes.
				this.logger.warn("session feed read failed; retrying", {
					session: this.sessionId,
					error: error as Error,
				});
				this.retry();
			} finally {
				this.pulling = undefined;
			}
		})();
	}

	private retryTimer: NodeJS.Timeout | undefined;
	private retryDelay = FEED_RETRY_MIN_MS;

	private retry(): void {
		if (this.retryTimer || this.streams.size === 0) return;
		this.retryTimer = setTimeout(() => {
			this.retryTimer = undefined;
			this.pull();
		}, this.retryDelay);
		this.retryTimer.unref();
		this.retryDelay = Math.min(this.retryDelay * 2, FEED_RETRY_MAX_MS);
	}

	/** The last stream left: no more retries. */
	stop(): void {
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
	}
}

/** A failed feed read is retried with backoff between these delays. */
const FEED_RETRY_MIN_MS = 100;
const FEED_RETRY_MAX_MS = 5_000;

export class LiveEvents {
	private readonly store: SessionStore;
	private readonly bus: EventBus;
	private readonly logger: Logger;
	private readonly bufferSize: number;
	private readonly batchSize: number;
	private readonly feeds = new Map<string, SessionFeed>();
	private readonly activity: ActivityFanOut;
	/** Live metrics queries' change signals, per workspace. */
	private readonly changes = new Map<string, Set<ChangeSignal>>();
	private detach: (() => void) | undefined;
	private readonly safetyReadMs: number | null;
	private readonly metricsIntervalMs: number;
	/** The store for live metrics reads, at most `metricsConcurrency` at once. */
	private readonly metricsStore: SessionStore;
	private safetyTimer: NodeJS.Timeout | undefined;
	/** Set by close(): subscriptions that were still starting end, and no new ones start. */
	private closed = false;

	constructor(options: LiveOptions) {
		this.store = options.store;
		this.bus = options.bus;
		this.logger = options.logger;
		this.bufferSize = options.bufferSize ?? 1000;
		this.batchSize = options.batchSize ?? 500;
		this.metricsIntervalMs = options.metricsIntervalMs ?? 1000;
		this.metricsStore = limitConcurrency(options.store, options.metricsConcurrency ?? 2);
		this.safetyReadMs =
			options.safetyReadMs !== undefined
				? options.safetyReadMs
				: options.bus.kind === "postgres"
					? SAFETY_READ_MS
					: null;
		this.activity = new ActivityFanOut({
			store: this.store,
			logger: this.logger,
			bufferSize: this.bufferSize,
			batchSize: this.batchSize,
			onRelease: () => this.maybeDetach(),
			...(options.activityPollMs === undefined ? {} : { pollMs: options.activityPollMs }),
		});
	}

	/** Open subscriptions on this instance (entry streams, activity and live metrics). */
	get subscriptionCount(): number {
		let n = this.activity.subscriberCount;
		for (const signals of this.changes.values()) n += signals.size;
		for (const feed of this.feeds.values()) n += feed.streams.size;
		return n;
	}

	get feedCount(): number {
		return this.feeds.size;
	}

	/** Sessions heard of whose activity events were not pushed yet (bounded by the sessions written, not the writes). */
	get activityPending(): number {
		return this.activity.pendingSessions;
	}

	private readonly listener: BusListener = {
		notice: (notice) => {
			const feed = this.feeds.get(feedKey(notice.workspaceId, notice.sessionId));
			if (notice.deleted) feed?.deleted();
			else feed?.notice(notice.toSeq);
			this.activity.notice(notice);
			for (const signal of this.changes.get(notice.workspaceId) ?? []) signal.signal();
		},
		resync: () => {
			for (const feed of this.feeds.values()) feed.resync();
			this.activity.resync();
			for (const signals of this.changes.values()) for (const signal of signals) signal.signal();
		},
	};

	/** Attach to the bus before any read, so nothing committed after the read is missed. */
	private attach(): void {
		this.detach ??= this.bus.subscribe(this.listener);
	}

	private maybeDetach(): void {
		const watching = this.feeds.size > 0 || this.activity.workspaceCount > 0;
		if (!watching && this.activity.subscriberCount === 0 && this.changes.size === 0 && this.detach) {
			this.detach();
			this.detach = undefined;
		}
		if (!watching) this.stopSafetyReads();
	}

	/** Runs while any session or workspace feed exists (see LiveOptions.safetyReadMs). */
	private startSafetyReads(): void {
		if (this.safetyReadMs === null || this.safetyTimer || this.closed) return;
		this.safetyTimer = setInterval(() => void this.safetyRead(), this.safetyReadMs);
		this.safetyTimer.unref();
	}

	private stopSafetyReads(): void {
		clearInterval(this.safetyTimer);
		this.safetyTimer = undefined;
	}

	private reading = false;

	/** One read per workspace of the watched sessions' ends (a feed behind its session's end pulls), and of each watched activity log. */
	private async safetyRead(): Promise<void> {
		this.activity.safetyRead();
		if (this.reading) return;
		this.reading = true;
		try {
			const byWorkspace = new Map<string, SessionFeed[]>();
			for (const feed of this.feeds.values()) {
				if (!feed.started) continue;
				const list = byWorkspace.get(feed.workspaceId) ?? [];
				list.push(feed);
				byWorkspace.set(feed.workspaceId, list);
			}
			for (const [ws, feeds] of byWorkspace) {
				const found = await this.store.getSessions(
					ws,
					feeds.map((f) => f.id),
				);
				for (const feed of feeds) {
					const session = found.get(feed.id);
					// Gone: deleted on an instance whose notice was not heard.
					if (session) feed.notice(session.lastSeq);
					else feed.deleted();
				}
			}
		} catch (error) {
			this.logger.warn("safety read of watched sessions failed; trying again later", {
				error: error as Error,
			});
		} finally {
			this.reading = false;
		}
	}

	/**
	 * Every entry of a session with seq > afterSeq (default: the current end),
	 * stored ones first, then live ones, each once, in order. NOT_FOUND when the
	 * session does not exist in the workspace.
	 */
	async sessionEntries(ws: string, sessionId: string, afterSeq?: number | null): Promise<EntryStream> {
		if (afterSeq !== undefined && afterSeq !== null && (!Number.isInteger(afterSeq) || afterSeq < 0)) {
			throw new SessionError("INVALID_INPUT", "afterSeq: must be a non-negative integer", {
				field: "afterSeq",
			});
		}
		this.attach();
		const key = feedKey(ws, sessionId);
		let feed = this.feeds.get(key);
		if (!feed) {
			feed = new SessionFeed(this.store, ws, sessionId, this.batchSize, this.logger);
			this.feeds.set(key, feed);
			this.startSafetyReads();
		}
		const owner = feed;
		// The feed (and the bus listener) must not be dropped while this subscription reads the session.
		owner.joining += 1;
		let session: SessionRecord | null;
		try {
			session = await this.store.getSession(ws, sessionId);
		} catch (error) {
			owner.joining -= 1;
			this.dropFeedIfIdle(key, owner);
			throw error;
		}
		owner.joining -= 1;
		if (!session) {
			this.dropFeedIfIdle(key, owner);
			throw new SessionError("NOT_FOUND", `Session ${sessionId} not found`, { field: "sessionId" });
		}
		if (afterSeq !== undefined && afterSeq !== null && afterSeq > session.lastSeq) {
			this.dropFeedIfIdle(key, owner);
			// A bookmark from the future (another database, a restored backup) would wait for seqs that mean other entries.
			throw new SessionError(
				"INVALID_INPUT",
				`afterSeq: ${afterSeq} is past the end of the session (its last seq is ${session.lastSeq})`,
				{ field: "afterSeq" },
			);
		}

		// Whoever reads the session first starts the feed (the creator's read may have failed).
		owner.start(session.lastSeq);
		const stream = new EntryStream(
			{ read: (after, limit) => this.store.listEntries(ws, sessionId, { afterSeq: after, limit }) },
			{
				afterSeq: afterSeq ?? session.lastSeq,
				bufferSize: this.bufferSize,
				batchSize: this.batchSize,
				sessionId,
				onClose: () => {
					owner.streams.delete(stream);
					this.dropFeedIfIdle(key, owner);
				},
			},
		);
		owner.streams.add(stream);
		// Shutting down: the subscription completes at once, like the ones open at close(); clients resume elsewhere.
		if (this.closed) void stream.return();
		return stream;
	}

	private dropFeedIfIdle(key: string, feed: SessionFeed): void {
		if (feed.streams.size === 0 && feed.joining === 0 && this.feeds.get(key) === feed) {
			this.feeds.delete(key);
			feed.stop();
		}
		this.maybeDetach();
	}

	/** A metrics query's result now, then again whenever the workspace's commits change it (./analytics/metrics-updates.ts). */
	async metricsUpdates(ws: string, query: MetricsQuery): Promise<AsyncIterableIterator<MetricsResult>> {
		// Listening before the first read: a commit in between is heard, not lost.
		this.attach();
		let signals = this.changes.get(ws);
		if (!signals) {
			signals = new Set();
			this.changes.set(ws, signals);
		}
		const owner = signals;
		const changes = new ChangeSignal((signal) => {
			owner.delete(signal);
			if (owner.size === 0 && this.changes.get(ws) === owner) this.changes.delete(ws);
			this.maybeDetach();
		});
		owner.add(changes);
		if (this.closed) void changes.return();
		let first: MetricsResult;
		try {
			first = await this.metricsStore.metrics(ws, query);
		} catch (error) {
			// A malformed query (INVALID_INPUT) fails the subscription before it starts.
			await changes.return?.();
			throw error;
		}
		return new MetricsUpdates(
			changes,
			() => this.metricsStore.metrics(ws, query),
			this.metricsIntervalMs,
			first,
		);
	}

	/**
	 * One event per created session, append, leaf move and rename in the
	 * workspace: after `afterCursor` from the log first, then live, each once,
	 * in the log's order (./activity.ts); without a cursor, from now on.
	 * INVALID_INPUT (`afterCursor`) for a cursor not of this feed. A
	 * subscriber more than `bufferSize` events behind is ended with
	 * LIMIT_EXCEEDED naming the cursor to resume from.
	 */
	async activityEvents(
		ws: string,
		request: ActivitySubscription = {},
	): Promise<AsyncIterableIterator<ActivityEvent>> {
		// Attached before the feed finds its start, so no notice after it is missed.
		this.attach();
		let stream: AsyncIterableIterator<ActivityEvent>;
		try {
			stream = await this.activity.subscribe(ws, request);
		} catch (error) {
			this.maybeDetach();
			throw error;
		}
		this.startSafetyReads();
		if (this.closed) void stream.return?.();
		return stream;
	}

	/** End every open subscription (shutdown): streams finish, listeners detach. */
	close(): void {
		this.closed = true;
		this.stopSafetyReads();
		for (const feed of [...this.feeds.values()]) for (const stream of [...feed.streams]) void stream.return();
		this.activity.close();
		for (const signals of [...this.changes.values()]) for (const signal of [...signals]) void signal.return();
	}
}
