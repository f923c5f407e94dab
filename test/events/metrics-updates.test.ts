/**
 * Live metrics (`metricsUpdated`) in one process: every subscriber gets the
 * result at once and the new one after a commit, and however many live
 * queries are open, at most `metricsConcurrency` run at once, so they cannot
 * take the database from every other request.
 */
import { describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import type { MetricsQuery, MetricsResult } from "../../src/session/metrics.js";
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
