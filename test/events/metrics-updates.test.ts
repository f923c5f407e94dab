/**
 * Live metrics (`metricsUpdated`) in one process: every subscriber gets the
 * result at once and the new one after a commit, and however many live
 * queries are open, at most `metricsConcurrency` run at once, so they cannot
 * take the database from every other request; and a change heard just as
 * the interval ends is still answered.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MetricsUpdates } from "../../src/events/analytics/metrics-updates.js";
import { InProcessBus } from "../../src/events/bus.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import type { MetricsQuery, MetricsResult } from "../../src/session/analytics/metrics.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { SessionStore } from "../../src/store/store.js";
import { within } from "../support/expect.js";

const WS = "default";
const QUERY: MetricsQuery = {
	measures: ["entries"],
	dimensions: [],
	granularity: "day",
	timeZone: "UTC",
	filter: {},
	orderBy: [],
	limit: 10,
};
const entriesOf = (r: IteratorResult<MetricsResult>) => (r.value as MetricsResult).rows[0]?.values.entries;

describe("live metrics", () => {
	it("20 live queries: each gets 0 then 1 after a commit, with at most 2 metrics queries running at once", async () => {
		const bus = new InProcessBus();
		const store = new MemoryStore(undefined, { onCommit: bus.publish });
		let running = 0;
		let most = 0;
		let calls = 0;
		// Each metrics read yields to the event loop before answering, so unbounded reads would overlap.
		const slow = new Proxy(store, {
			get(target, property) {
				const value = Reflect.get(target, property, target);
				if (property !== "metrics") return typeof value === "function" ? value.bind(target) : value;
				return async (...args: Parameters<SessionStore["metrics"]>) => {
					calls += 1;
					running += 1;
					most = Math.max(most, running);
					try {
						await new Promise((resolve) => setImmediate(resolve));
						return await target.metrics(...args);
					} finally {
						running -= 1;
					}
				};
			},
		});
		const live = new LiveEvents({ store: slow, bus, logger: silentLogger, metricsIntervalMs: 10 });
		try {
			await store.createSession(WS, { sessionId: "s" });
			const subscriptions = await Promise.all(
				Array.from({ length: 20 }, () => live.metricsUpdates(WS, QUERY)),
			);
			const first = await within(5_000, "the first results", Promise.all(subscriptions.map((s) => s.next())));
			expect(first.map(entriesOf)).toEqual(Array(20).fill(0));
			await store.appendEntry(WS, "s", { type: "message", message: { role: "user", content: "hi" } });
			const next = await within(
				5_000,
				"the results after the commit",
				Promise.all(subscriptions.map((s) => s.next())),
			);
			expect(next.map(entriesOf)).toEqual(Array(20).fill(1));
			expect(calls).toBe(40);
			expect(most).toBe(2);
			await Promise.all(subscriptions.map((s) => s.return?.()));
			expect(live.subscriptionCount).toBe(0);
		} finally {
			live.close();
		}
	});
});

describe("a live query's interval", () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it("answers a change heard as the interval ends, when the clock moves on between two readings", async () => {
		const result = (entries: number): MetricsResult =>
			({ rows: [{ keys: {}, values: { entries } }] }) as unknown as MetricsResult;
		let wake: ((value: IteratorResult<unknown>) => void) | undefined;
		const changes: AsyncIterableIterator<unknown> = {
			next: () => new Promise((resolve) => (wake = resolve)),
			return: async () => ({ done: true, value: undefined }),
			[Symbol.asyncIterator]() {
				return this;
			},
		};
		// The subscription starts at 1000 ms (interval 10 ms); the change is seen at 1009, and the clock
		// reads 1010 the next time it is asked: no time is left to wait, and none must be waited for.
		const clock = [1000, 1009, 1010];
		let reading = 0;
		vi.spyOn(Date, "now").mockImplementation(() => clock[Math.min(reading++, clock.length - 1)] as number);
		const updates = new MetricsUpdates(changes, async () => result(1), 10, result(0));
		expect(entriesOf(await updates.next())).toBe(0);
		const next = updates.next();
		wake?.({ done: false, value: undefined });
		expect(entriesOf(await within(1_000, "the result after the change", next))).toBe(1);
		await updates.return();
	});
});
