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
import { isSessionError, SessionError } from "../session/errors.js";
import { PulledStream } from "./pulled-stream.js";

/** A stream's last item when its session was deleted: nothing of it is delivered after (deleteSession). */
export interface SessionDeleted {
	deleted: true;
	sessionId: string;
}

export type SessionStreamItem = StoredEntry | SessionDeleted;

export const isSessionDeleted = (item: SessionStreamItem): item is SessionDeleted => "deleted" in item;

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

export class EntryStream extends PulledStream<SessionStreamItem> {
	private delivered: number;
	/** Highest seq known to exist; a stream behind it reads from the store. */
	private wanted = Number.MAX_SAFE_INTEGER;

	constructor(
		private readonly source: EntrySource,
		private readonly options: EntryStreamOptions & { sessionId: string },
	) {
		super();
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

	protected isBehind(): boolean {
		return this.position < this.wanted;
	}

	/** The session was deleted: the stream ends with SessionDeleted, and what it had queued is dropped. */
	sessionDeleted(): void {
		this.endWith({ deleted: true, sessionId: this.options.sessionId });
	}

	protected delivering(item: SessionStreamItem): void {
		if (!isSessionDeleted(item)) this.delivered = item.seq;
	}

	protected detach(): void {
		this.options.onClose();
	}

	protected async readMore(): Promise<boolean> {
		const from = this.position;
		let rows: StoredEntry[];
		try {
			rows = await this.source.read(from, this.options.batchSize);
		} catch (error) {
			// The session is gone (deleted here or on another instance, its notice not heard yet).
			if (!isSessionError(error, "NOT_FOUND")) throw error;
			this.sessionDeleted();
			return false;
		}
		if (this.closed) return false;
		for (const row of rows) {
			if (row.seq === this.position + 1) this.queued.push(row);
		}
		// A short batch reached the store's head as of this read; later entries arrive as pushes.
		if (rows.length < this.options.batchSize && this.wanted === Number.MAX_SAFE_INTEGER)
			this.wanted = this.position;
		if (rows.length === 0) this.wanted = Math.min(this.wanted, this.position);
		return true;
	}
}
