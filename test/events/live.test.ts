/**
 * LiveEvents' bookkeeping when subscriptions come and go at the same time,
 * driven deterministically: a memory store whose session lookup can be held
 * open simulates the database round trip a subscription waits on while
 * another one of the same session closes. A resumed client hits exactly this
 * when it resubscribes (afterSeq) before the server has torn down its old
 * subscription.
 */
import { describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import type { DraftEntry } from "../../src/session/entry.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { SessionRecord } from "../../src/store/store.js";
import { within } from "../support/expect.js";

const WS = "default";

const user = (id: string): DraftEntry => ({
	type: "message",
	id,
	message: { role: "user", content: id, timestamp: 1_764_000_000_000 },
});

/** A memory store whose `getSession` answers only when the test lets it (a slow round trip). */
class HeldStore extends MemoryStore {
	private held: Promise<void> | undefined;
	private release: (() => void) | undefined;
	/** Resolves once a lookup is waiting on the hold. */
	waiting: Promise<void> = Promise.resolve();
	private arrived: (() => void) | undefined;

	hold(): void {
		this.held = new Promise((resolve) => {
			this.release = resolve;
		});
		this.waiting = new Promise((resolve) => {
			this.arrived = resolve;
		});
	}

	letGo(): void {
		this.held = undefined;
		this.release?.();
	}

	override async getSession(ws: string, sessionId: string): Promise<SessionRecord | null> {
		const session = await super.getSession(ws, sessionId);
		if (this.held) {
			this.arrived?.();
			await this.held;
		}
		return session;
	}
}

function setup() {
	const bus = new InProcessBus();
	const store = new HeldStore(undefined, { onCommit: bus.publish });
	const live = new LiveEvents({ store, bus, logger: silentLogger });
	return { bus, store, live };
}

describe("LiveEvents: subscriptions opening while others close", () => {
	it("a subscription that joins a session's feed while the feed's last subscriber leaves still gets live entries", async () => {
		const { bus, store, live } = setup();
		await store.createSession(WS, { sessionId: "s" });
		const old = await live.sessionEntries(WS, "s", 0);

		store.hold();
		const joining = live.sessionEntries(WS, "s", 0);
		await within(2_000, "the new subscription's session lookup", store.waiting);
		// The old subscription goes away while the new one waits on its lookup.
		await old.return();
		store.letGo();
		const stream = await within(2_000, "the new subscription", joining);

		// It is attached: counted, with a feed, and the feed with the bus.
		expect(live.subscriptionCount).toBe(1);
		expect(live.feedCount).toBe(1);
		expect(bus.listenerCount).toBe(1);

		const first = stream.next();
		await store.appendEntry(WS, "s", user("e1"));
		expect((await within(2_000, "entry 1", first)).value?.seq).toBe(1);
		// The stream has read up to the store's head; entry 2 can only arrive live.
		const second = stream.next();
		await store.appendEntry(WS, "s", user("e2"));
		expect((await within(2_000, "entry 2 (live)", second)).value?.seq).toBe(2);

		await stream.return();
		expect([live.subscriptionCount, live.feedCount, bus.listenerCount]).toEqual([0, 0, 0]);
	});

	it("two subscriptions of one session opening at the same time share one feed and both get live entries", async () => {
		const { bus, store, live } = setup();
		await store.createSession(WS, { sessionId: "s" });
		store.hold();
		const a = live.sessionEntries(WS, "s");
		await within(2_000, "the first lookup", store.waiting);
		const b = live.sessionEntries(WS, "s");
		store.letGo();
		const streams = await within(2_000, "both subscriptions", Promise.all([a, b]));
		expect([live.subscriptionCount, live.feedCount, bus.listenerCount]).toEqual([2, 1, 1]);
		const pending = streams.map((s) => s.next());
		await store.appendEntry(WS, "s", user("e1"));
		const firsts = await within(2_000, "entry 1 on both", Promise.all(pending));
		expect(firsts.map((r) => r.value?.seq)).toEqual([1, 1]);
		const seconds = streams.map((s) => s.next());
		await store.appendEntry(WS, "s", user("e2"));
		expect((await within(2_000, "entry 2 on both", Promise.all(seconds))).map((r) => r.value?.seq)).toEqual([
			2, 2,
		]);
		for (const s of streams) await s.return();
		expect([live.subscriptionCount, live.feedCount, bus.listenerCount]).toEqual([0, 0, 0]);
	});

	it("a subscription to a missing session opening next to a live one leaves the live one attached", async () => {
		const { bus, store, live } = setup();
		await store.createSession(WS, { sessionId: "s" });
		const stream = await live.sessionEntries(WS, "s");
		await expect(live.sessionEntries(WS, "missing")).rejects.toMatchObject({ code: "NOT_FOUND" });
		expect([live.subscriptionCount, live.feedCount, bus.listenerCount]).toEqual([1, 1, 1]);
		const next = stream.next();
		await store.appendEntry(WS, "s", user("e1"));
		expect((await within(2_000, "entry 1", next)).value?.seq).toBe(1);
		await stream.return();
		expect([live.subscriptionCount, live.feedCount, bus.listenerCount]).toEqual([0, 0, 0]);
	});
});
