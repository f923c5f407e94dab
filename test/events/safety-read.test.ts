/**
 * A commit whose notice never comes (its writer died between the commit and
 * the NOTIFY it sends afterwards, or the NOTIFY could not be sent) still
 * reaches live subscribers: LiveEvents re-reads the ends of the sessions it
 * watches periodically. Here the store announces nothing at all, so only
 * that re-read can deliver.
 */
import { describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import { MemoryStore } from "../../src/store/memory.js";
import { within } from "../support/expect.js";

const WS = "default";
const user = (text: string) => ({ type: "message", message: { role: "user", content: text } }) as const;

describe("the periodic safety read of watched sessions", () => {
	it("delivers entries whose notices were lost, each once and in order, and stops when nobody watches", async () => {
		const store = new MemoryStore(); // announces no commit: every notice is "lost"
		const live = new LiveEvents({ store, bus: new InProcessBus(), logger: silentLogger, safetyReadMs: 50 });
		await store.createSession(WS, { sessionId: "quiet" });
		const stream = await live.sessionEntries(WS, "quiet");
		const next = () => stream.next();

		for (let i = 1; i <= 3; i++) await store.appendEntry(WS, "quiet", user(`m${i}`));
		const seqs: number[] = [];
		for (let i = 0; i < 3; i++)
			seqs.push((await within(5_000, `entry ${i + 1}`, next())).value?.seq as number);
		expect(seqs).toEqual([1, 2, 3]);

		await store.appendEntry(WS, "quiet", user("m4"));
		expect((await within(5_000, "entry 4", next())).value?.seq).toBe(4);

		await stream.return();
		expect(live.feedCount).toBe(0);
		live.close();
	});

	it("is off on an in-process bus unless asked for: there, notices are calls and cannot be lost", async () => {
		const bus = new InProcessBus();
		const store = new MemoryStore(undefined, { onCommit: bus.publish });
		const reads: string[] = [];
		const counting = new Proxy(store, {
			get(target, key, receiver) {
				const value = Reflect.get(target, key, receiver);
				if (key === "getSessions") reads.push(String(key));
				return typeof value === "function" ? value.bind(target) : value;
			},
		});
		const live = new LiveEvents({ store: counting, bus, logger: silentLogger });
		await store.createSession(WS, { sessionId: "loud" });
		const stream = await live.sessionEntries(WS, "loud");
		await store.appendEntry(WS, "loud", user("m1"));
		expect((await within(5_000, "entry 1", stream.next())).value?.seq).toBe(1);
		expect(reads).toEqual([]);
		await stream.return();
		live.close();
	});
});
