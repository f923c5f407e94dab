/**
 * Presence (src/events/presence.ts) on in-process instances: hubs that hear
 * each other through an in-process network (messages encoded like NOTIFY
 * payloads, delivered asynchronously), on a fake clock so heartbeats and
 * expiry run on demand instead of after seconds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import {
	type PresenceHub as Hub,
	type PresenceClock,
	PresenceHub,
	type PresenceOptions,
} from "../../src/events/presence.js";
import {
	decodeMessage,
	encodeMessage,
	InProcessPresenceNetwork,
	InProcessPresenceTransport,
	type PresenceMessage,
	type PresenceReceiver,
	type PresenceTransport,
	type Viewer,
} from "../../src/events/presence-transport.js";
import { silentLogger } from "../../src/logger.js";
import { rejectsWithCode, within } from "../support/expect.js";

/** Lets queued microtasks and immediates (message deliveries) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

class FakeClock implements PresenceClock {
	private t = Date.parse("2026-01-01T00:00:00Z");
	private readonly timers = new Set<{ ms: number; due: number; run: () => void }>();

	now(): number {
		return this.t;
	}

	every(ms: number, run: () => void): () => void {
		const timer = { ms, due: this.t + ms, run };
		this.timers.add(timer);
		return () => this.timers.delete(timer);
	}

	/** Runs every timer due within `ms`, in time order, letting deliveries land after each. */
	async advance(ms: number): Promise<void> {
		const end = this.t + ms;
		for (;;) {
			let next: { ms: number; due: number; run: () => void } | undefined;
			for (const timer of this.timers) if (timer.due <= end && (!next || timer.due < next.due)) next = timer;
			if (!next) break;
			this.t = next.due;
			next.due += next.ms;
			next.run();
			await settle();
		}
		this.t = end;
		await settle();
	}
}

const HEARTBEAT = 10_000;
const TTL = 30_000;
const WAIT = 2_000;

let clock = new FakeClock();
const hubs: Hub[] = [];

function hub(transport: PresenceTransport, options: Partial<PresenceOptions> = {}): Hub {
	const h = new PresenceHub({
		transport,
		logger: silentLogger,
		clock,
		heartbeatMs: HEARTBEAT,
		ttlMs: TTL,
		...options,
	});
	hubs.push(h);
	return h;
}

/** Two instances that hear each other. */
function cluster(options: Partial<PresenceOptions> = {}) {
	const network = new InProcessPresenceNetwork();
	const ta = network.transport();
	const tb = network.transport();
	return { network, ta, tb, a: hub(ta, options), b: hub(tb, options) };
}

const next = async <T>(it: AsyncIterator<T>, what: string): Promise<T> => {
	const r = await within(WAIT, what, it.next());
	if (r.done) throw new Error(`${what}: the iterator ended`);
	return r.value;
};

/** Subjects in a fixed order (viewers who joined in the same millisecond are listed by their random ids). */
const subjects = (list: readonly Viewer[]) => list.map((v) => v.subject).sort();

const focusOf = (list: readonly Viewer[]) => list.map((v) => [v.subject, v.focusEntryId]);

afterEach(() => {
	for (const h of hubs.splice(0)) h.close();
});

describe("presence", () => {
	it("a watcher sees the viewers at once, then each join, focus change and leave, from either instance", async () => {
		clock = new FakeClock();
		const { a, b } = cluster();
		const early = a.join("ws", "s1", { subject: "ann", focusEntryId: "e1" });
		const watch = a.watch("ws", "s1");
		expect(focusOf(await next(watch, "the first list"))).toEqual([["ann", "e1"]]);

		await clock.advance(1); // a later `since`: the list is ordered by it
		const bob = b.join("ws", "s1", { subject: "bob", focusEntryId: null });
		expect(focusOf(await next(watch, "bob's join through the network"))).toEqual([
			["ann", "e1"],
			["bob", null],
		]);
		bob.update("e7");
		expect(focusOf(await next(watch, "bob's focus"))).toEqual([
			["ann", "e1"],
			["bob", "e7"],
		]);
		early.update("e2");
		expect(focusOf(await next(watch, "ann's focus"))).toEqual([
			["ann", "e2"],
			["bob", "e7"],
		]);
		bob.leave();
		expect(focusOf(await next(watch, "bob's leave"))).toEqual([["ann", "e2"]]);
		early.leave();
		expect(await next(watch, "ann's leave")).toEqual([]);
		const [viewer] = a.viewers("ws", "s1");
		expect(viewer).toBeUndefined();
		await watch.return?.();
	});

	it("each viewer has its own id, its subject, focus and the time it joined; two tabs of one subject are two viewers", async () => {
		clock = new FakeClock();
		const { a, b } = cluster();
		const tab1 = a.join("ws", "s", { subject: "ann", focusEntryId: null });
		const tab2 = b.join("ws", "s", { subject: "ann", focusEntryId: "x" });
		const watch = a.watch("ws", "s");
		let list = await next(watch, "the first list");
		while (list.length < 2) list = await next(watch, "the second tab");
		expect(tab1.viewerId).not.toBe(tab2.viewerId);
		expect(list).toEqual(
			[
				{
					viewerId: tab1.viewerId,
					subject: "ann",
					focusEntryId: null,
					since: new Date(clock.now()).toISOString(),
				},
				{
					viewerId: tab2.viewerId,
					subject: "ann",
					focusEntryId: "x",
					since: new Date(clock.now()).toISOString(),
				},
			].sort((x, y) => (x.viewerId < y.viewerId ? -1 : 1)),
		);
		// One tab closing leaves the other present.
		tab1.leave();
		expect((await next(watch, "tab 1 leaving")).map((v) => v.viewerId)).toEqual([tab2.viewerId]);
		await watch.return?.();
	});

	it("changes a watcher has not read yet arrive as one list, the latest", async () => {
		clock = new FakeClock();
		const a = hub(new InProcessPresenceTransport());
		const watch = a.watch("ws", "s");
		expect(await next(watch, "the empty list")).toEqual([]);
		const v = a.join("ws", "s", { subject: null, focusEntryId: null });
		for (const e of ["e1", "e2", "e3"]) v.update(e);
		const other = a.join("ws", "s", { subject: null, focusEntryId: null });
		other.leave();
		expect(focusOf(await next(watch, "the coalesced list"))).toEqual([[null, "e3"]]);
		// Nothing more is pending: the next list comes only with the next change.
		const pending = watch.next();
		v.update("e4");
		expect(focusOf((await within(WAIT, "the change after", pending)).value)).toEqual([[null, "e4"]]);
		await watch.return?.();
	});

	it("watchers of another workspace or session never see a viewer", async () => {
		clock = new FakeClock();
		const { a, b } = cluster();
		const otherWorkspace = a.watch("ws2", "s1");
		const otherSession = a.watch("ws1", "s2");
		expect(await next(otherWorkspace, "ws2's first list")).toEqual([]);
		expect(await next(otherSession, "s2's first list")).toEqual([]);
		a.join("ws1", "s1", { subject: "ann", focusEntryId: null });
		b.join("ws1", "s1", { subject: "bob", focusEntryId: null });
		// Markers sent after them, through the same in-order network: a leak would have come first.
		b.join("ws2", "s1", { subject: "ws2-marker", focusEntryId: null });
		b.join("ws1", "s2", { subject: "s2-marker", focusEntryId: null });
		expect(focusOf(await next(otherWorkspace, "ws2's marker"))).toEqual([["ws2-marker", null]]);
		expect(focusOf(await next(otherSession, "s2's marker"))).toEqual([["s2-marker", null]]);
		expect(subjects(a.viewers("ws1", "s1"))).toEqual(["ann", "bob"]);
		// Focus by viewer id is scoped too: the same id in another workspace is not found.
		const [bobs] = b.viewers("ws1", "s1").filter((v) => v.subject === "bob");
		expect(() => a.focus("ws2", "s1", bobs?.viewerId ?? "", "bob", "e1")).toThrow(
			expect.objectContaining({ code: "NOT_FOUND" }),
		);
		await otherWorkspace.return?.();
		await otherSession.return?.();
	});

	it("focus moves a viewer served by another instance, for its own subject only", async () => {
		clock = new FakeClock();
		const { a, b } = cluster();
		const watch = a.watch("ws", "s");
		await next(watch, "the first list");
		const onB = b.join("ws", "s", { subject: "bob", focusEntryId: null });
		expect(focusOf(await next(watch, "bob's join"))).toEqual([["bob", null]]);
		// A holds the viewer as a remote one: the request goes to B, which announces the new focus.
		expect(a.focus("ws", "s", onB.viewerId, "bob", "e9")).toMatchObject({ focusEntryId: "e9" });
		expect(focusOf(await next(watch, "the focus set through A"))).toEqual([["bob", "e9"]]);
		expect(b.viewers("ws", "s")[0]?.focusEntryId).toBe("e9");

		const refused = (f: () => unknown, code: string) => expect(f).toThrow(expect.objectContaining({ code }));
		refused(() => a.focus("ws", "s", onB.viewerId, "mallory", "e1"), "FORBIDDEN");
		refused(() => a.focus("ws", "s", onB.viewerId, null, "e1"), "FORBIDDEN");
		refused(() => a.focus("ws", "s", "no-such-viewer", "bob", "e1"), "NOT_FOUND");
		refused(() => a.focus("ws", "other", onB.viewerId, "bob", "e1"), "NOT_FOUND");
		refused(() => a.focus("ws", "s", onB.viewerId, "bob", ""), "INVALID_INPUT");
		// Nothing changed by the refusals.
		onB.update("e10");
		expect(focusOf(await next(watch, "the next real change"))).toEqual([["bob", "e10"]]);
		await watch.return?.();
	});

	it("viewers of an instance that vanished expire after the TTL; a live instance's stay through heartbeats", async () => {
		clock = new FakeClock();
		const network = new InProcessPresenceNetwork();
		const [ta, tb, tc] = [network.transport(), network.transport(), network.transport()];
		const a = hub(ta);
		const b = hub(tb);
		const c = hub(tc);
		b.join("ws", "s", { subject: "vanishing", focusEntryId: null });
		c.join("ws", "s", { subject: "staying", focusEntryId: null });
		const watch = a.watch("ws", "s");
		let list = await next(watch, "the first list");
		while (list.length < 2) list = await next(watch, "both viewers");

		await tb.close(); // B vanishes: no "gone" is ever sent for its viewer
		await clock.advance(TTL - HEARTBEAT);
		expect(subjects(a.viewers("ws", "s"))).toEqual(["staying", "vanishing"]);
		const gone = watch.next();
		await clock.advance(HEARTBEAT + TTL / 4);
		const expired = await within(WAIT, "the vanished viewer's expiry", gone);
		expect(subjects(expired.value ?? [])).toEqual(["staying"]);
		// Well past the TTL, C's viewer is still there: its heartbeats keep it.
		await clock.advance(3 * TTL);
		expect(a.viewers("ws", "s").map((v) => v.subject)).toEqual(["staying"]);
		expect(a.remoteViewerCount).toBe(1);
		await watch.return?.();
	});

	it("an instance that closes takes its viewers away at once, without waiting for the TTL", async () => {
		clock = new FakeClock();
		const { a, b, tb } = cluster();
		b.join("ws", "s", { subject: "bob", focusEntryId: null });
		const watch = a.watch("ws", "s");
		let list = await next(watch, "the first list");
		if (list.length === 0) list = await next(watch, "bob");
		expect(list).toHaveLength(1);
		b.close();
		await tb.close();
		expect(await next(watch, "bob gone with B's shutdown")).toEqual([]);
		expect(b.localViewerCount + b.watcherCount + b.sessionCount).toBe(0);
		expect(tb.listenerCount).toBe(0);
		await watch.return?.();
	});

	it("a new instance learns the viewers already present without waiting for a heartbeat", async () => {
		clock = new FakeClock();
		const network = new InProcessPresenceNetwork();
		const a = hub(network.transport());
		a.join("ws", "s", { subject: "ann", focusEntryId: "e1" });
		await settle();
		const late = hub(network.transport());
		const watch = late.watch("ws", "s");
		let list = await next(watch, "the first list");
		if (list.length === 0) list = await next(watch, "ann, answered to the new instance's ask");
		expect(focusOf(list)).toEqual([["ann", "e1"]]);
		await watch.return?.();
	});

	it("after messages were lost (listening connection dropped), re-listening re-announces and asks again", async () => {
		clock = new FakeClock();
		/** A member of the network that can go deaf, like a dropped LISTEN connection. */
		class Flaky implements PresenceTransport {
			readonly kind = "in-process" as const;
			deaf = false;
			private readonly inner: InProcessPresenceTransport;
			private readonly receivers = new Set<PresenceReceiver>();
			constructor(network: InProcessPresenceNetwork) {
				this.inner = network.transport();
				this.inner.subscribe({
					message: (m) => {
						if (!this.deaf) for (const r of this.receivers) r.message(m);
					},
					relistened: () => {},
				});
			}
			subscribe(r: PresenceReceiver) {
				this.receivers.add(r);
				return () => this.receivers.delete(r);
			}
			get listenerCount() {
				return this.receivers.size;
			}
			send(m: PresenceMessage) {
				this.inner.send(m);
			}
			relisten() {
				this.deaf = false;
				for (const r of this.receivers) r.relistened();
			}
			close() {
				return this.inner.close();
			}
		}
		const network = new InProcessPresenceNetwork();
		const flaky = new Flaky(network);
		const a = hub(network.transport());
		const b = hub(flaky);
		const watch = b.watch("ws", "s");
		expect(await next(watch, "the first list")).toEqual([]);
		flaky.deaf = true;
		a.join("ws", "s", { subject: "ann", focusEntryId: null });
		await settle();
		expect(b.viewers("ws", "s")).toEqual([]);
		flaky.relisten();
		expect(focusOf(await next(watch, "ann, re-announced on B's ask"))).toEqual([["ann", null]]);
		await watch.return?.();
	});

	it("a watcher's return() (and a view's) frees everything on both instances", async () => {
		clock = new FakeClock();
		const { a, b, ta, tb } = cluster();
		const ann = a.view("ws", "s", { subject: "ann", focusEntryId: null });
		const anon = a.view("ws", "t", { subject: null, focusEntryId: null });
		const watchOnB = b.watch("ws", "s");
		const first = await next(ann, "the view's first list");
		// A view lists its own viewer from the start and says which one it is.
		expect(first.viewers.map((v) => v.viewerId)).toEqual([first.viewerId]);
		let seen = await next(watchOnB, "B's first list");
		if (seen.length === 0) seen = await next(watchOnB, "ann on B");
		expect(seen.map((v) => v.viewerId)).toEqual([first.viewerId]);
		await next(anon, "t's first list");
		const pending = anon.next();
		expect(a.localViewerCount).toBe(2);

		await ann.return?.();
		await anon.return?.();
		expect(await within(WAIT, "the pending next of a returned view", pending)).toEqual({
			value: undefined,
			done: true,
		});
		expect(await next(watchOnB, "ann leaving with her subscription")).toEqual([]);
		await watchOnB.return?.();
		const counts = (h: Hub) => [h.sessionCount, h.watcherCount, h.localViewerCount, h.remoteViewerCount];
		expect(counts(a)).toEqual([0, 0, 0, 0]);
		await settle();
		expect(counts(b)).toEqual([0, 0, 0, 0]);
		expect(await ann.next()).toEqual({ value: undefined, done: true });
		// The hub's one transport subscription lasts until it closes.
		expect([ta.listenerCount, tb.listenerCount]).toEqual([1, 1]);
		a.close();
		b.close();
		expect([ta.listenerCount, tb.listenerCount]).toEqual([0, 0]);
	});

	it("a pending next() resolves done when the watcher is returned", async () => {
		clock = new FakeClock();
		const a = hub(new InProcessPresenceTransport());
		const watch = a.watch("ws", "s");
		await next(watch, "the first list");
		const pending = watch.next();
		await watch.return?.();
		expect(await within(WAIT, "the pending next", pending)).toEqual({ value: undefined, done: true });
		expect(a.sessionCount).toBe(0);
	});

	it("limits: a session's viewers and the sessions tracked are bounded, refused with LIMIT_EXCEEDED, changing nothing", async () => {
		clock = new FakeClock();
		const { a, b } = cluster({ maxViewersPerSession: 2, maxSessions: 2 });
		const watch = a.watch("ws", "s");
		await next(watch, "the first list");
		const one = a.join("ws", "s", { subject: "1", focusEntryId: null });
		b.join("ws", "s", { subject: "2", focusEntryId: null });
		let list = await next(watch, "the viewers");
		while (list.length < 2) list = await next(watch, "both viewers");

		await rejectsWithCode(
			Promise.resolve().then(() => a.join("ws", "s", { subject: "3", focusEntryId: null })),
			"LIMIT_EXCEEDED",
		);
		await rejectsWithCode(
			Promise.resolve().then(() => b.join("ws", "s", { subject: "3", focusEntryId: null })),
			"LIMIT_EXCEEDED",
		);
		expect(subjects(a.viewers("ws", "s"))).toEqual(["1", "2"]);

		a.join("ws", "t", { subject: "t", focusEntryId: null });
		await rejectsWithCode(
			Promise.resolve().then(() => a.join("ws", "u", { subject: "u", focusEntryId: null })),
			"LIMIT_EXCEEDED",
		);
		await rejectsWithCode(
			Promise.resolve().then(() => a.watch("ws", "u")),
			"LIMIT_EXCEEDED",
		);
		expect(a.sessionCount).toBe(2);
		expect(a.viewers("ws", "u")).toEqual([]);

		// Room frees up when a viewer leaves.
		one.leave();
		expect((await next(watch, "1 leaving")).map((v) => v.subject)).toEqual(["2"]);
		await clock.advance(1);
		a.join("ws", "s", { subject: "3", focusEntryId: null });
		expect((await next(watch, "3 joining")).map((v) => v.subject)).toEqual(["2", "3"]);
		await watch.return?.();
	});

	it("remote viewers beyond the limits are ignored, not stored", async () => {
		clock = new FakeClock();
		const network = new InProcessPresenceNetwork();
		const small = hub(network.transport(), { maxViewersPerSession: 1, maxSessions: 1 });
		const big = hub(network.transport());
		big.join("ws", "s", { subject: "1", focusEntryId: null });
		big.join("ws", "s", { subject: "2", focusEntryId: null });
		big.join("ws", "t", { subject: "3", focusEntryId: null });
		await settle();
		expect(small.remoteViewerCount).toBe(1);
		expect(small.sessionCount).toBe(1);
	});

	it("refuses malformed input with INVALID_INPUT and a taken viewer id with ALREADY_EXISTS, storing nothing", async () => {
		clock = new FakeClock();
		const a = hub(new InProcessPresenceTransport());
		const join = (input: Parameters<Hub["join"]>[2], sessionId = "s") =>
			Promise.resolve().then(() => a.join("ws", sessionId, input));
		await rejectsWithCode(join({ subject: null, focusEntryId: "" }), "INVALID_INPUT", "focusEntryId");
		await rejectsWithCode(join({ subject: null, focusEntryId: null }, ""), "INVALID_INPUT", "sessionId");
		await rejectsWithCode(
			join({ subject: null, focusEntryId: "x".repeat(257) }),
			"INVALID_INPUT",
			"focusEntryId",
		);
		// Too long to announce in one NOTIFY payload.
		await rejectsWithCode(join({ subject: "\u0001".repeat(2000), focusEntryId: null }), "INVALID_INPUT");
		expect(a.sessionCount).toBe(0);
		const v = a.join("ws", "s", { viewerId: "v1", subject: null, focusEntryId: null });
		await rejectsWithCode(
			join({ viewerId: "v1", subject: null, focusEntryId: null }),
			"ALREADY_EXISTS",
			"viewerId",
		);
		await rejectsWithCode(
			Promise.resolve().then(() => v.update("")),
			"INVALID_INPUT",
			"focusEntryId",
		);
		expect(a.viewers("ws", "s")).toEqual([expect.objectContaining({ viewerId: "v1", focusEntryId: null })]);
		v.leave();
		await rejectsWithCode(
			Promise.resolve().then(() => v.update("e1")),
			"NOT_FOUND",
		);
	});

	it("a closed hub refuses new viewers (UNAVAILABLE) and ends its watchers", async () => {
		clock = new FakeClock();
		const a = hub(new InProcessPresenceTransport());
		const watch = a.watch("ws", "s");
		await next(watch, "the first list");
		const pending = watch.next();
		a.close();
		expect(await within(WAIT, "the watcher's end", pending)).toEqual({ value: undefined, done: true });
		await rejectsWithCode(
			Promise.resolve().then(() => a.join("ws", "s", { subject: null, focusEntryId: null })),
			"UNAVAILABLE",
		);
	});

	it("a hub ignores its own messages and malformed ones", async () => {
		clock = new FakeClock();
		const t = new InProcessPresenceTransport();
		const sent: string[] = [];
		t.subscribe({ message: (m) => void sent.push(m.kind), relistened: () => {} });
		const a = hub(t);
		a.join("ws", "s", { subject: null, focusEntryId: null });
		await settle();
		// Its own start-up ask came back to it and was not answered with a re-announcement.
		expect(sent).toEqual(["ask", "here"]);
		await clock.advance(HEARTBEAT * 2); // its own heartbeats come back to it
		expect(sent).toEqual(["ask", "here", "here", "here"]);
		expect([a.localViewerCount, a.remoteViewerCount]).toEqual([1, 0]);
		for (const payload of [
			"",
			"{",
			"null",
			"[]",
			'{"k":"h","i":"x"}',
			'{"k":"h","i":"x","w":"ws","s":"s","v":"v","u":1,"f":null,"t":"t"}',
		]) {
			expect(decodeMessage(payload), payload).toBeNull();
		}
		const here: PresenceMessage = {
			kind: "here",
			from: "i",
			workspaceId: "w",
			sessionId: "s",
			viewer: { viewerId: "v", subject: null, focusEntryId: "e", since: "2026-01-01T00:00:00.000Z" },
		};
		expect(decodeMessage(encodeMessage(here))).toEqual(here);
	});

	it("refuses a TTL shorter than two heartbeats", () => {
		clock = new FakeClock();
		expect(() => hub(new InProcessPresenceTransport(), { heartbeatMs: 1000, ttlMs: 1500 })).toThrow(/ttlMs/);
	});

	it("a deleted session's presence ends on every instance: its watches and views finish, its viewers are gone", async () => {
		clock = new FakeClock();
		const bus = new InProcessBus();
		const { a, b } = cluster({ bus });
		const view = a.view("ws", "doomed", { subject: "ann", focusEntryId: null });
		expect(subjects((await next(view, "ann's first snapshot")).viewers)).toEqual(["ann"]);
		const watch = b.watch("ws", "doomed");
		const kept = b.watch("ws", "kept");
		expect(await next(kept, "the kept session's list")).toEqual([]);
		b.join("ws", "doomed", { subject: "bob", focusEntryId: null });
		expect(bus.listenerCount).toBe(2);
		// Every instance hears the deletion's notice on its own bus connection: one bus stands for both here.
		bus.publish({
			workspaceId: "ws",
			sessionId: "doomed",
			fromSeq: 3,
			toSeq: 3,
			created: false,
			deleted: true,
		});
		for (const stream of [view, watch] as AsyncIterator<unknown>[]) {
			for (;;) {
				const r = await within(WAIT, "the stream's end", stream.next());
				if (r.done) break;
			}
		}
		expect(a.viewers("ws", "doomed")).toEqual([]);
		expect(b.viewers("ws", "doomed")).toEqual([]);
		expect(a.sessionCount).toBe(0);
		// The other session's watch goes on; a hub tracking nothing stops listening.
		expect(b.sessionCount).toBe(1);
		expect(bus.listenerCount).toBe(1);
		await kept.return?.();
		expect(bus.listenerCount).toBe(0);
	});
});
