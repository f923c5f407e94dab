/**
 * A live metrics query (`metricsUpdated`): the query's result now, then a
 * fresh one whenever committed writes change it, at most one per
 * `intervalMs`. Changes are heard on the workspace's activity feed
 * (../activity.ts), which every instance hears through the bus, so a write on
 * another instance counts like a local one.
 *
 * The feed is drained as it comes (each event only marks the result dirty),
 * so a burst of writes never backs up into the feed's buffer: it costs one
 * query at the end of the interval. A result equal to the last one sent is
 * not sent again (a rename changes no figure).
 */
import type { MetricsResult } from "../../session/analytics/metrics.js";

export class MetricsUpdates implements AsyncIterableIterator<MetricsResult> {
	private dirty = false;
	private wake: (() => void) | undefined;
	private ended = false;
	private failure: unknown;
	private lastText: string;
	private lastAt = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;

	/** The result read when the subscription started, sent first. */
	private first: MetricsResult | undefined;

	constructor(
		private readonly changes: AsyncIterableIterator<unknown>,
		private readonly read: () => Promise<MetricsResult>,
		private readonly intervalMs: number,
		first: MetricsResult,
	) {
		this.first = first;
		this.lastText = JSON.stringify(first);
		this.lastAt = Date.now();
		void this.drain();
	}

	private async drain(): Promise<void> {
		try {
			for (;;) {
				const change = await this.changes.next();
				if (change.done) break;
				this.dirty = true;
				this.notify();
			}
		} catch (error) {
			this.failure = error;
		}
		this.ended = true;
		this.notify();
	}

	private notify(): void {
		const wake = this.wake;
		this.wake = undefined;
		wake?.();
	}

	private until(ms: number): Promise<void> {
		return new Promise<void>((resolve) => {
			this.wake = resolve;
			if (ms > 0) this.timer = setTimeout(resolve, ms);
		}).finally(() => clearTimeout(this.timer));
	}

	async next(): Promise<IteratorResult<MetricsResult>> {
		const first = this.first;
		if (first) {
			this.first = undefined;
			return { done: false, value: first };
		}
		for (;;) {
			while (!this.dirty && !this.ended) await this.until(0);
			// Coalesce: the rest of the interval's changes join this one. The time left is read once per
			// wait: read twice, it could be left on the first reading and none on the second, and a wait
			// of nothing has no timer, so only another change would have ended it.
			for (;;) {
				const left = this.lastAt + this.intervalMs - Date.now();
				if (this.ended || left <= 0) break;
				await this.until(left);
			}
			if (this.failure !== undefined) {
				const failure = this.failure;
				this.failure = undefined;
				throw failure;
			}
			if (this.ended) return { done: true, value: undefined };
			this.dirty = false;
			const result = await this.read();
			this.lastAt = Date.now();
			const text = JSON.stringify(result);
			if (text === this.lastText) continue;
			this.lastText = text;
			return { done: false, value: result };
		}
	}

	async return(): Promise<IteratorResult<MetricsResult>> {
		this.ended = true;
		this.notify();
		await this.changes.return?.();
		return { done: true, value: undefined };
	}

	[Symbol.asyncIterator](): AsyncIterableIterator<MetricsResult> {
		return this;
	}
}
