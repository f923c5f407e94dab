/**
 * One subscriber's stream of a session's entries: stored ones with
 * seq > afterSeq first, then live ones, each exactly once, in seq order.
 *
 * The store is the source of truth; live pushes only save a read. The
 * stream's position is `delivered + queued.length`; a pushed entry that
 * continues it is queued, one that jumps ahead only raises `wanted`, and the
 * gap is read from the store (reads happen only while the consumer waits, so
 * memory stays bounded). A consumer that lets more than `bufferSize` live
 * entries pile up is ended with LIMIT_EXCEEDED and told where to resume.
 */
import type { StoredEntry } from "../session/entry.js";
import { SessionError } from "../session/errors.js";

export interface EntrySource {
	/** Entries with seq > afterSeq in seq order, at most `limit`. */
	read(afterSeq: number, limit: number): Promise<StoredEntry[]>;
}

export interface EntryStreamOptions {
	afterSeq: number;
	bufferSize: number;
	batchSize: number;
	/** Called once when the stream ends for any reason (detach from feeds). */
	onClose: () => void;
}

export class EntryStream implements AsyncIterableIterator<StoredEntry> {
	private delivered: number;
	private readonly queued: StoredEntry[] = [];
	/** Highest seq known to exist; a stream behind it reads from the store. */
	private wanted = Number.MAX_SAFE_INTEGER;
	private reading = false;
	private waiter:
		| { resolve: (r: IteratorResult<StoredEntry>) => void; reject: (e: unknown) => void }
		| undefined;
	private failure: Error | undefined;
	private closed = false;

	constructor(
		private readonly source: EntrySource,
		private readonly options: EntryStreamOptions,
	) {
		this.delivered = options.afterSeq;
	}

	private get position(): number {
		return this.delivered + this.queued.length;
	}

	/** A live entry from the session's feed. */
	push(entry: StoredEntry): void {
		if (this.closed || this.failure) return;
		if (entry.seq <= this.position) return;
		if (entry.seq === this.position + 1) {
			if (this.queued.length >= this.options.bufferSize) {
				this.fail(
					new SessionError(
						"LIMIT_EXCEEDED",
						`Subscriber fell more than ${this.options.bufferSize} events behind; resubscribe with afterSeq: ${this.delivered}`,
						{ field: "afterSeq" },
					),
				);
				return;
			}
			this.queued.push(entry);
		}
		this.wanted = Math.max(this.wanted === Number.MAX_SAFE_INTEGER ? 0 : this.wanted, entry.seq);
		this.pump();
	}

	/** Live notices may have been lost: read from the store up to its head. */
	resync(): void {
		this.wanted = Number.MAX_SAFE_INTEGER;
		this.pump();
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
		this.options.onClose();
	}

	/** Hand the next entry to a waiting consumer, reading from the store when behind. */
	private pump(): void {
		if (!this.waiter) return;
		const next = this.queued.shift();
		if (next) {
			this.delivered = next.seq;
			const waiter = this.waiter;
			this.waiter = undefined;
			waiter.resolve({ value: next, done: false });
			return;
		}
		if (this.closed) {
			const waiter = this.waiter;
			this.waiter = undefined;
			waiter.resolve({ value: undefined, done: true });
			return;
		}
		if (this.position < this.wanted && !this.reading) void this.read();
	}

	private async read(): Promise<void> {
		this.reading = true;
		try {
			const from = this.position;
			const rows = await this.source.read(from, this.options.batchSize);
			if (this.closed) return;
			for (const row of rows) {
				if (row.seq === this.position + 1) this.queued.push(row);
			}
			// A short batch reached the store's head as of this read; later entries arrive as pushes.
			if (rows.length < this.options.batchSize && this.wanted === Number.MAX_SAFE_INTEGER)
				this.wanted = this.position;
			if (rows.length === 0) this.wanted = Math.min(this.wanted, this.position);
		} catch (error) {
			this.fail(error instanceof Error ? error : new Error(String(error)));
			return;
		} finally {
			this.reading = false;
		}
		this.pump();
	}

	next(): Promise<IteratorResult<StoredEntry>> {
		if (this.failure) return Promise.reject(this.failure);
		if (this.waiter) return Promise.reject(new Error("next() called while a previous next() is pending"));
		return new Promise((resolve, reject) => {
			this.waiter = { resolve, reject };
			this.pump();
		});
	}

	/** The consumer went away: detach at once, even while a read is pending. */
	return(): Promise<IteratorResult<StoredEntry>> {
		this.queued.length = 0;
		this.finish();
		const waiter = this.waiter;
		this.waiter = undefined;
		waiter?.resolve({ value: undefined, done: true });
		return Promise.resolve({ value: undefined, done: true });
	}

	throw(error: unknown): Promise<IteratorResult<StoredEntry>> {
		return this.return().then(() => Promise.reject(error));
	}

	[Symbol.asyncIterator](): this {
		return this;
	}
}
