/**
 * The mechanics every subscriber's stream shares (entry-stream.ts,
 * activity.ts): items queued by live pushes or by reads from the store,
 * handed to one consumer one `next()` at a time; reads run only while the
 * consumer waits and the stream is behind, so memory stays bounded. A
 * failure ends the stream with that error; `return()` detaches at once,
 * even while a read is pending. What "behind" means, what a read fetches
 * and where a delivered item leaves the stream are the subclass's.
 */
export abstract class PulledStream<T> implements AsyncIterableIterator<T> {
	protected readonly queued: T[] = [];
	protected reading = false;
	protected failure: Error | undefined;
	protected closed = false;
	private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;

	/** Whether the store may hold items the queue lacks: then a waiting consumer starts a read. */
	protected abstract isBehind(): boolean;
	/** One read from the store into the queue; false when the stream closed meanwhile (nothing to hand on). */
	protected abstract readMore(): Promise<boolean>;
	/** `item` goes to the consumer: a resubscription resumes after it. */
	protected abstract delivering(item: T): void;
	/** Called once when the stream ends for any reason (detach from feeds). */
	protected abstract detach(): void;

	protected fail(error: Error): void {
		this.failure = error;
		this.queued.length = 0;
		this.finish();
		const waiter = this.waiter;
		this.waiter = undefined;
		waiter?.reject(error);
	}

	/** Ends the stream with `last` as its final item: what is queued is dropped, nothing is read again. */
	protected endWith(last: T): void {
		if (this.closed || this.failure) return;
		this.queued.length = 0;
		this.queued.push(last);
		this.finish();
		this.pump();
	}

	private finish(): void {
		if (this.closed) return;
		this.closed = true;
		this.detach();
	}

	/** Hand the next item to a waiting consumer, reading from the store when behind. */
	protected pump(): void {
		if (!this.waiter) return;
		const next = this.queued.shift();
		if (next !== undefined) {
			this.delivering(next);
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
		if (this.isBehind() && !this.reading) void this.read();
	}

	private async read(): Promise<void> {
		this.reading = true;
		try {
			if (!(await this.readMore())) return;
		} catch (error) {
			this.fail(error instanceof Error ? error : new Error(String(error)));
			return;
		} finally {
			this.reading = false;
		}
		this.pump();
	}

	next(): Promise<IteratorResult<T>> {
		if (this.failure) return Promise.reject(this.failure);
		if (this.waiter) return Promise.reject(new Error("next() called while a previous next() is pending"));
		return new Promise((resolve, reject) => {
			this.waiter = { resolve, reject };
			this.pump();
		});
	}

	/** The consumer went away (or shutdown): detach at once, even while a read is pending. */
	return(): Promise<IteratorResult<T>> {
		this.queued.length = 0;
		this.finish();
		const waiter = this.waiter;
		this.waiter = undefined;
		waiter?.resolve({ value: undefined, done: true });
		return Promise.resolve({ value: undefined, done: true });
	}

	throw(error: unknown): Promise<IteratorResult<T>> {
		return this.return().then(() => Promise.reject(error));
	}

	[Symbol.asyncIterator](): this {
		return this;
	}
}
