/**
 * NOTIFY after the commit, not inside it. A NOTIFY in a transaction takes a
 * database-wide lock while it commits, so every append would queue behind
 * every other (issue 10 measured 4–52% of the raw 16-client throughput).
 * Instead each process queues the notices of its commits and sends them in
 * one statement per turn of the event loop, a session's adjacent ranges
 * merged into one notice.
 *
 * A notice only wakes readers up (../commits.ts): one that is never sent
 * (the process died between its commit and the send, the database was
 * unreachable too long) costs latency, never an entry, because live feeds
 * also re-read the sessions they watch periodically (events/live.ts).
 */
import { type CommitNotice, encodeNotice } from "../commits.js";

/** Notices kept while the database cannot be reached; older ones are dropped first. */
const MAX_PENDING = 10_000;
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;

export class CommitNotifier {
	private pending: CommitNotice[] = [];
	private sending: Promise<void> | undefined;
	private scheduled = false;
	private retryDelay = RETRY_MIN_MS;
	private retryTimer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(private readonly send: (payloads: readonly string[]) => Promise<void>) {}

	/** Notices waiting to be sent (for tests and metrics). */
	get pendingCount(): number {
		return this.pending.length;
	}

	queue(notice: CommitNotice): void {
		const last = this.lastOf(notice);
		// A session's next range extends its waiting one; a creation and a deletion stay notices of their own.
		const merges = last && !last.created && !notice.created && !last.deleted && !notice.deleted;
		if (last && merges && last.toSeq + 1 === notice.fromSeq) last.toSeq = notice.toSeq;
		else this.pending.push({ ...notice });
		if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
		this.schedule();
	}

	/** The session's latest waiting notice (the queue is short: it is sent every turn). */
	private lastOf(notice: CommitNotice): CommitNotice | undefined {
		for (let i = this.pending.length - 1; i >= 0; i--) {
			const n = this.pending[i] as CommitNotice;
			if (n.sessionId === notice.sessionId && n.workspaceId === notice.workspaceId) return n;
		}
		return undefined;
	}

	private schedule(): void {
		if (this.scheduled || this.retryTimer || this.closed) return;
		this.scheduled = true;
		setImmediate(() => {
			this.scheduled = false;
			void this.flush();
		});
	}

	/** Sends what is queued, one statement at a time so that notices leave in commit order. */
	private flush(): Promise<void> {
		this.sending ??= (async () => {
			try {
				while (this.pending.length > 0) {
					const batch = this.pending;
					this.pending = [];
					try {
						await this.send(batch.map(encodeNotice));
						this.retryDelay = RETRY_MIN_MS;
					} catch {
						// Kept, in order, ahead of newer ones; tried again after a pause (not on every commit).
						this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
						if (!this.closed) this.retryLater();
						return;
					}
				}
			} finally {
				this.sending = undefined;
			}
		})();
		return this.sending;
	}

	private retryLater(): void {
		this.retryTimer = setTimeout(() => {
			this.retryTimer = undefined;
			void this.flush();
		}, this.retryDelay);
		this.retryTimer.unref();
		this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
	}

	/** Sends what is queued (one try) and stops. */
	async close(): Promise<void> {
		this.closed = true;
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		await this.sending;
		await this.flush();
	}
}
