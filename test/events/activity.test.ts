/**
 * The activity fan-out (`sessionActivity`) under load. Notices of a session
 * that wait are merged into one seq range, so the fan-out's store reads and
 * pending state grow with the number of sessions written, not with the write
 * rate; every event still arrives, in seq order per session, with its kind; a
 * subscriber that stops reading is ended with LIMIT_EXCEEDED while the others
 * keep everything; closing the last subscription detaches from the bus.
 *
 * The fan-out sees the store through `observed`, which counts its reads (the
 * writers use the store directly) and can hold them open, a slow database
 * round trip made deterministic.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import { type ActivityEvent, LiveEvents, type LiveOptions } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import { openServices, type Services } from "../../src/services.js";
import type { DraftEntry } from "../../src/session/entry.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { StoreConfig } from "../../src/store/open.js";
import type { SessionStore } from "../../src/store/store.js";
import { createTestDatabase } from "../support/databases.js";
import { rejectsWithCode, within } from "../support/expect.js";
import { freshPgliteDirectory } from "../support/pglite-directories.js";
import { range, waitUntil } from "./helpers.js";

const WS = "default";
const WAIT = 20_000;

const user = (id: string): DraftEntry => ({
	type: "message",
	id,
	message: { role: "user", content: id, timestamp: 1_764_000_000_000 },
});

type Read = "getSession" | "listEntries";

/** The store as the fan-out sees it: its reads counted, and held while the test says so. */
function observed(store: SessionStore) {
	const reads = { getSession: 0, listEntries: 0 };
	const limits: Array<number | undefined> = [];
	let inFlight = 0;
	let maxInFlight = 0;
	let gate: Promise<void> | undefined;
	let failures = 0;
	let arrived: (() => void) | undefined;
	const view = new Proxy(store, {
		get(target, prop) {
			const value = Reflect.get(target, prop, target);
			if (prop === "getSession" || prop === "listEntries") {
				return async (...args: unknown[]) => {
					reads[prop as Read] += 1;
					if (prop === "listEntries") limits.push((args[2] as { limit?: number } | undefined)?.limit);
					inFlight += 1;
					maxInFlight = Math.max(maxInFlight, inFlight);
					try {
						if (failures > 0) {
							failures -= 1;
							throw new Error("connection lost");
						}
						if (gate) {
							arrived?.();
							await gate;
						}
						return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
					} finally {
						inFlight -= 1;
					}
				};
			}
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
	return {
		view,
		reads,
		limits,
		get total() {
			return reads.getSession + reads.listEntries;
		},
		/** The most reads that were waiting on the store at once. */
		get maxInFlight() {
			return maxInFlight;
		},
		/** The next `n` reads fail. */
		fail(n: number) {
			failures = n;
		},
		/** Hold every read from now on; `waiting` resolves once one is held. */
		hold() {
			let release: () => void = () => {};
			gate = new Promise((resolve) => {
				release = resolve;
			});
			const waiting = new Promise<void>((resolve) => {
				arrived = resolve;
			});
			return {
				waiting,
				release: () => {
					gate = undefined;
					release();
				},
			};
		},
	};
}

/** Reads `count` events (bounded by WAIT), grouped per session as `kind:seq`. */
async function readEvents(
	stream: AsyncIterator<ActivityEvent>,
	count: number,
	what: string,
	skip: (event: ActivityEvent) => boolean = () => false,
) {
	const bySession = new Map<string, string[]>();
	const all: ActivityEvent[] = [];
	await within(
		WAIT,
		what,
		(async () => {
			while (all.length < count) {
				const next = await stream.next();
				if (next.done) throw new Error(`${what}: the stream ended after ${all.length} events`);
				if (skip(next.value)) continue;
				all.push(next.value);
				const id = next.value.session.sessionId;
				bySession.set(id, [...(bySession.get(id) ?? []), `${next.value.kind}:${next.value.seq}`]);
			}
		})(),
	);
	return { bySession, all };
}

const appended = (n: number, from = 1) => range(from, n).map((seq) => `APPENDED:${seq}`);

interface Opened {
	services: Services;
	dispose(): Promise<void>;
}

async function open(backend: "memory" | "pglite" | "postgres"): Promise<Opened> {
	if (backend === "memory") {
		const services = await openServices({ backend: "memory" }, silentLogger);
		return { services, dispose: () => services.close() };
	}
	if (backend === "pglite") {
		const dir = freshPgliteDirectory("session-tree-activity-");
		const services = await openServices({ backend: "pglite", dataDir: dir }, silentLogger);
		return {
			services,
			async dispose() {
				await services.close();
				rmSync(dir, { recursive: true, force: true });
			},
		};
	}
	const database = await createTestDatabase();
	const config: StoreConfig = { backend: "postgres", url: database.url };
	const services = await openServices(config, silentLogger);
	return {
		services,
		async dispose() {
			await services.close();
			await database.drop();
		},
	};
}

describe("activity fan-out under sustained load", () => {
	const cleanups: Array<() => Promise<void>> = [];
	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	});

	/**
	 * Appends per writer, and the store reads per append the fan-out may make
	 * (the old one made 2 per notice, one notice per append). On Postgres a
	 * process sends its notices after the commits, a session's adjacent ranges
	 * merged, so there may be fewer notices than appends; reads are bounded
	 * per append, which is what a busy workspace costs. The fan-out has one read in flight at a time, so
	 * its reads per second are bounded by the store's round trip and notices
	 * merge as soon as writes come faster than that: 8 parallel writers outrun
	 * it easily on memory and PGlite (measured 0.29 and 0.16 reads per
	 * notice), less so on Postgres, whose reads are cheap next to its writes
	 * (0.62 to 0.80 on a busy 2-core machine).
	 */
	const LOADS = [
		["memory", 2_000, 0.5],
		["pglite", 60, 0.5],
		["postgres", 150, 1.25],
	] as const;

	for (const [backend, perWriter, readsPerNotice] of LOADS) {
		it(`${backend}: 8 writers on 8 sessions; one subscriber gets every event in seq order per session, with far fewer store reads than notices and at most one pending range per session`, async () => {
			const opened = await open(backend);
			cleanups.push(() => opened.dispose());
			const { services } = opened;
			const { store, bus } = services;
			const seen = observed(store);
			const live = new LiveEvents({ store: seen.view, bus, logger: silentLogger });
			let notices = 0;
			const stopCounting = bus.subscribe({
				notice: () => {
					notices += 1;
				},
				resync: () => {},
			});
			cleanups.push(async () => stopCounting());

			const sessions = range(1, 8).map((i) => `w${i}`);
			for (const id of sessions) await store.createSession(WS, { sessionId: id });
			// The sessions' own notices (NOTIFY delivers them later) come before the subscription.
			await waitUntil("the creations' notices", () => notices === sessions.length);
			notices = 0;
			const subscriber = await live.activityEvents(WS);
			const total = sessions.length * perWriter;
			// A feed starts at the log's end as readers see it: a transaction still running elsewhere on the
			// server (another test file's import, a background fold) may hold the creations back past that
			// moment, and then they come first. Only the appends are this test's.
			const reading = readEvents(subscriber, total, `${total} activity events`, (e) => e.kind === "CREATED");

			let maxPending = 0;
			const started = Date.now();
			await Promise.all(
				sessions.map(async (id) => {
					for (let i = 1; i <= perWriter; i++) {
						await store.appendEntry(WS, id, user(`${id}-${i}`));
						maxPending = Math.max(maxPending, live.activityPending);
					}
				}),
			);
			const stopped = Date.now();
			const { bySession } = await reading;
			const lag = Date.now() - stopped;

			for (const id of sessions) expect(bySession.get(id), id).toEqual(appended(perWriter));
			const reads = seen.total;
			// Visible in the test output; asserted only loosely below (shared CI machines).
			console.info(
				`${backend}: ${total} appends in ${stopped - started} ms, ${notices} notices, ${reads} store reads ` +
					`(${(reads / notices).toFixed(3)} per notice), last event ${lag} ms after the writers stopped, ` +
					`at most ${maxPending} sessions pending`,
			);
			// Every append was announced: one notice each, or fewer covering their ranges (Postgres merges).
			expect(notices).toBeGreaterThan(0);
			expect(notices).toBeLessThanOrEqual(total);
			if (backend !== "postgres") expect(notices).toBe(total);
			expect(reads).toBeLessThan(total * readsPerNotice);
			expect(seen.maxInFlight).toBe(1);
			expect(maxPending).toBeLessThanOrEqual(sessions.length);
			expect(live.activityPending).toBe(0);

			await subscriber.return?.();
			expect([live.subscriptionCount, live.activityPending]).toEqual([0, 0]);
		});
	}
});

function inProcess(options: Partial<LiveOptions> = {}) {
	const bus = new InProcessBus();
	const store = new MemoryStore(undefined, { onCommit: bus.publish });
	const seen = observed(store);
	const live = new LiveEvents({ store: seen.view, bus, logger: silentLogger, ...options });
	return { bus, store, seen, live };
}

describe("activity fan-out: coalescing, bounds and detaching (memory store, in-process bus)", () => {
	it("notices that arrive while the fan-out waits on the store are merged: one session row and one entries read per session, long ranges in batches", async () => {
		const { store, seen, live } = inProcess({ batchSize: 10 });
		const sessions = range(1, 8).map((i) => `s${i}`);
		for (const id of sessions) await store.createSession(WS, { sessionId: id });
		const subscriber = await live.activityEvents(WS);
		const PER = 25;
		const reading = readEvents(subscriber, sessions.length * PER, "every event");

		const held = seen.hold();
		await store.appendEntry(WS, "s1", user("s1-1"));
		await within(WAIT, "the fan-out's first read", held.waiting);
		// Everything else is written while that read is held.
		await Promise.all(
			sessions.map(async (id) => {
				for (let i = id === "s1" ? 2 : 1; i <= PER; i++) await store.appendEntry(WS, id, user(`${id}-${i}`));
			}),
		);
		expect(live.activityPending).toBe(sessions.length);
		held.release();

		const { bySession } = await reading;
		for (const id of sessions) expect(bySession.get(id), id).toEqual(appended(PER));
		// s1's first notice alone (2 reads), then each session's merged range: one row and ⌈25/10⌉ = 3 entry batches.
		expect(seen.reads).toEqual({ getSession: 1 + 8, listEntries: 1 + 8 * 3 });
		expect(new Set(seen.limits)).toEqual(new Set([10]));
		expect(live.activityPending).toBe(0);
		await subscriber.return?.();
	});

	it("a session created and written while the fan-out waits keeps its kinds in order: CREATED first, then each entry's own kind", async () => {
		const { store, seen, live } = inProcess();
		await store.createSession(WS, { sessionId: "busy" });
		const subscriber = await live.activityEvents(WS);
		const reading = readEvents(subscriber, 1 + 6, "the events");

		const held = seen.hold();
		await store.appendEntry(WS, "busy", user("b1"));
		await within(WAIT, "the fan-out's first read", held.waiting);
		await store.createSession(WS, { sessionId: "new" });
		await store.appendEntry(WS, "new", user("n1"));
		await store.appendEntry(WS, "new", user("n2"));
		await store.moveLeaf(WS, "new", { targetId: "n1" });
		await store.renameSession(WS, "new", "Renamed");
		await store.appendEntry(WS, "new", user("n3"));
		held.release();

		const { bySession, all } = await reading;
		expect(bySession.get("busy")).toEqual(["APPENDED:1"]);
		expect(bySession.get("new")).toEqual([
			"CREATED:0",
			"APPENDED:1",
			"APPENDED:2",
			"LEAF_MOVED:3",
			"RENAMED:4",
			"APPENDED:5",
		]);
		// The session row is read after the entries it announces: the rename is already in it.
		expect(all.filter((e) => e.session.sessionId === "new").map((e) => e.session.name)).toEqual(
			Array(6).fill("Renamed"),
		);
		await subscriber.return?.();
	});

	it("a subscriber that never reads is ended with LIMIT_EXCEEDED once bufferSize events pile up; another gets everything", async () => {
		const BUFFER = 5;
		const { store, live } = inProcess({ bufferSize: BUFFER });
		await store.createSession(WS, { sessionId: "a" });
		const idle = await live.activityEvents(WS);
		const reader = await live.activityEvents(WS);
		expect(live.subscriptionCount).toBe(2);

		// Each append is waited for on the reader, so the idle one's queue grows by exactly one event.
		for (const seq of range(1, BUFFER)) {
			const next = reader.next();
			await store.appendEntry(WS, "a", user(`a${seq}`));
			expect((await within(WAIT, `event ${seq}`, next)).value?.seq).toBe(seq);
		}
		expect(live.subscriptionCount).toBe(2);
		const next = reader.next();
		await store.appendEntry(WS, "a", user(`a${BUFFER + 1}`));
		expect((await within(WAIT, "the event past the idle buffer", next)).value?.seq).toBe(BUFFER + 1);
		expect(live.subscriptionCount).toBe(1);

		const error = await rejectsWithCode(idle.next(), "LIMIT_EXCEEDED");
		expect(error.message).toMatch(/fell more than 5 events behind/);
		expect(error.message).toMatch(/resubscribe/);
		// Ended for good: no more events, and its queue is gone.
		await rejectsWithCode(idle.next(), "LIMIT_EXCEEDED");

		const more = readEvents(reader, 20, "the reader's next 20 events");
		for (const seq of range(BUFFER + 2, BUFFER + 21)) await store.appendEntry(WS, "a", user(`a${seq}`));
		expect((await more).bySession.get("a")).toEqual(appended(BUFFER + 21, BUFFER + 2));
		await reader.return?.();
		expect(live.subscriptionCount).toBe(0);
	});

	it("a failed store read is retried from the feed's position with a warning: nothing is lost, with no later write", async () => {
		const warnings: string[] = [];
		const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
		const { store, seen, live } = inProcess({ logger });
		await store.createSession(WS, { sessionId: "a" });
		const subscriber = await live.activityEvents(WS);
		seen.fail(2);
		await store.appendEntry(WS, "a", user("a1"));
		await store.appendEntry(WS, "a", user("a2"));
		const { all } = await readEvents(subscriber, 2, "both events after the failures");
		expect(all.map((e) => e.seq)).toEqual([1, 2]);
		expect(warnings).toEqual(["activity feed read failed; retrying", "activity feed read failed; retrying"]);
		await subscriber.return?.();
	});

	it("closing every subscription detaches from the bus and drops pending work; nothing reads the store afterwards", async () => {
		const { bus, store, seen, live } = inProcess();
		await store.createSession(WS, { sessionId: "a" });
		await store.createSession("other", { sessionId: "b" });
		const subscribers = await Promise.all([
			live.activityEvents(WS),
			live.activityEvents(WS),
			live.activityEvents("other"),
		]);
		expect([live.subscriptionCount, bus.listenerCount]).toEqual([3, 1]);

		// Pending work at the moment the subscribers leave.
		const held = seen.hold();
		await store.appendEntry(WS, "a", user("a1"));
		await within(WAIT, "the fan-out's first read", held.waiting);
		await store.appendEntry(WS, "a", user("a2"));
		await store.appendEntry("other", "b", user("b1"));
		expect(live.activityPending).toBe(2);
		const pending = subscribers[0]?.next();
		for (const s of subscribers) await s.return?.();
		expect((await pending)?.done).toBe(true);
		expect([live.subscriptionCount, live.activityPending, bus.listenerCount]).toEqual([0, 0, 0]);
		const before = seen.total;
		held.release();
		// The held read finishes (the memory store answers within this turn); nothing else is read.
		await within(WAIT, "the next turn", new Promise((resolve) => setImmediate(resolve)));
		await store.appendEntry(WS, "a", user("a3"));
		await store.appendEntry("other", "b", user("b2"));
		await within(WAIT, "the next turn", new Promise((resolve) => setImmediate(resolve)));
		expect(seen.total).toBe(before);
		expect([live.subscriptionCount, live.activityPending, bus.listenerCount]).toEqual([0, 0, 0]);

		// Shutdown ends open activity subscriptions the same way.
		const open = await live.activityEvents(WS);
		const waiting = open.next();
		live.close();
		expect((await waiting).done).toBe(true);
		expect([live.subscriptionCount, bus.listenerCount]).toEqual([0, 0]);
	});
});
