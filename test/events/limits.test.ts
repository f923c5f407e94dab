/**
 * Bounded resources of live updates: a slow subscriber's buffer is bounded
 * (overflow ends it with LIMIT_EXCEEDED and the seq to resume from, others
 * unaffected), a closed subscription releases its listeners at once, and
 * keep-alives drop dead peers. In-process against LiveEvents (memory store,
 * in-process bus), then through real SSE and WebSocket connections.
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { InProcessBus } from "../../src/events/bus.js";
import { isSessionDeleted, type SessionStreamItem } from "../../src/events/entry-stream.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import type { DraftEntry } from "../../src/session/entry.js";
import { MemoryStore } from "../../src/store/memory.js";
import { rejectsWithCode, within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { collect, type SubscriptionClient, sseSubscribe, TRANSPORTS } from "./clients.js";
import {
	allReleased,
	append,
	createSession,
	eventOf,
	openSubscriptions,
	range,
	SESSION_ACTIVITY,
	SESSION_EVENTS,
	seqsOf,
	subscriptionsReach,
	waitUntil,
} from "./helpers.js";

const WS_ID = "default";
const WAIT = 20_000;

const user = (id: string, text = id): DraftEntry => ({
	type: "message",
	id,
	message: { role: "user", content: text, timestamp: 1_764_000_000_000 },
});

function inProcess(bufferSize = 1000) {
	const bus = new InProcessBus();
	const store = new MemoryStore(undefined, { onCommit: bus.publish });
	const live = new LiveEvents({ store, bus, logger: silentLogger, bufferSize });
	const released = () =>
		waitUntil(
			`counts return to zero (now ${live.subscriptionCount}/${live.feedCount}/${bus.listenerCount})`,
			() => live.subscriptionCount === 0 && live.feedCount === 0 && bus.listenerCount === 0,
		);
	return { bus, store, live, released };
}

/** Read entries until `seq` (inclusive). */
async function readUntil(stream: AsyncIterator<SessionStreamItem>, seq: number): Promise<number[]> {
	const seqs: number[] = [];
	for (;;) {
		const next = await stream.next();
		if (next.done || isSessionDeleted(next.value)) return seqs;
		seqs.push(next.value.seq);
		if (next.value.seq >= seq) return seqs;
	}
}

describe("bounded resources (LiveEvents in-process)", () => {
	it("a slow subscriber is ended with LIMIT_EXCEEDED naming the afterSeq to resume from; a fast one gets everything", async () => {
		const { store, live, released } = inProcess(5);
		await store.createSession(WS_ID, { sessionId: "s" });
		const fast = await live.sessionEntries(WS_ID, "s", 0);
		const slow = await live.sessionEntries(WS_ID, "s", 0);
		const N = 30;
		const fastSeqs = readUntil(fast, N);

		for (const i of range(1, 3)) await store.appendEntry(WS_ID, "s", user(`e${i}`));
		expect(await within(WAIT, "the slow subscriber's first 3", readUntil(slow, 3))).toEqual([1, 2, 3]);
		// The slow one stops reading; 5 more fit its buffer, the 6th ends it.
		for (const i of range(4, N)) await store.appendEntry(WS_ID, "s", user(`e${i}`));

		expect(await within(WAIT, "the fast subscriber", fastSeqs)).toEqual(range(1, N));
		await waitUntil("the slow subscription is released", () => live.subscriptionCount === 1);
		const error = await rejectsWithCode(slow.next(), "LIMIT_EXCEEDED");
		expect(error.message).toContain("afterSeq: 3");

		// Resuming from the seq the error names misses nothing.
		const resumed = await live.sessionEntries(WS_ID, "s", 3);
		expect(await within(WAIT, "the resumed subscriber", readUntil(resumed, N))).toEqual(range(4, N));
		await resumed.return();
		await fast.return();
		await released();
	});

	it("an activity subscriber that falls behind is ended with LIMIT_EXCEEDED; others keep going", async () => {
		const { store, live, released } = inProcess(3);
		const slow = await live.activityEvents(WS_ID);
		const fast = await live.activityEvents(WS_ID);
		const kinds: string[] = [];
		const reading = (async () => {
			for (;;) {
				const next = await fast.next();
				if (next.done) return;
				kinds.push(`${next.value.session.sessionId}:${next.value.kind}:${next.value.seq}`);
				if (kinds.length === 9) return;
			}
		})();
		await store.createSession(WS_ID, { sessionId: "a" });
		for (const i of range(1, 8)) await store.appendEntry(WS_ID, "a", user(`a${i}`));
		await within(WAIT, "the fast activity subscriber", reading);
		expect(kinds).toEqual(["a:CREATED:0", ...range(1, 8).map((i) => `a:APPENDED:${i}`)]);
		await rejectsWithCode(
			(async () => {
				for (;;) if ((await slow.next()).done) return;
			})(),
			"LIMIT_EXCEEDED",
		);
		await fast.return?.();
		await released();
	});

	it("opening and closing 10,000 subscriptions returns subscription, feed and bus listener counts to zero", async () => {
		const { bus, store, live, released } = inProcess();
		const sessions = range(0, 9).map((i) => `s${i}`);
		for (const id of sessions) {
			await store.createSession(WS_ID, { sessionId: id });
			await store.appendEntry(WS_ID, id, user(`${id}-1`));
			await store.appendEntry(WS_ID, id, user(`${id}-2`));
		}
		const TOTAL = 10_000;
		const BATCH = 100;
		for (let batch = 0; batch < TOTAL / BATCH; batch++) {
			const streams = await Promise.all(
				range(0, BATCH - 1).map((i) =>
					live.sessionEntries(WS_ID, sessions[i % sessions.length] ?? "s0", i % 2 === 0 ? 0 : undefined),
				),
			);
			expect(live.subscriptionCount).toBe(BATCH);
			expect(live.feedCount).toBe(sessions.length);
			expect(bus.listenerCount).toBe(1);
			await Promise.all(
				streams.map(async (stream, i) => {
					if (i % 4 === 0) {
						// Replaying: take one stored entry, then leave.
						expect((await stream.next()).value?.seq).toBe(1);
						await stream.return();
					} else if (i % 4 === 1) {
						// Live only, waiting for the next entry when the consumer goes away.
						const pending = stream.next();
						await stream.return();
						expect((await pending).done).toBe(true);
					} else await stream.return();
				}),
			);
			expect(live.subscriptionCount).toBe(0);
		}
		// Activity subscriptions and failed (NOT_FOUND) subscriptions release too.
		for (let i = 0; i < 1000; i++) {
			const activity = await live.activityEvents(WS_ID);
			const pending = activity.next();
			await activity.return?.();
			expect((await pending).done).toBe(true);
		}
		for (let i = 0; i < 100; i++)
			await rejectsWithCode(live.sessionEntries(WS_ID, `missing-${i}`, 0), "NOT_FOUND");
		expect(live.subscriptionCount).toBe(0);
		expect(live.feedCount).toBe(0);
		expect(bus.listenerCount).toBe(0);
		await released();
		// Nothing is left reacting to commits.
		await store.appendEntry(WS_ID, "s0", user("after"));
		expect(live.feedCount).toBe(0);
	});
});

const FAST = `subscription($sessionId: String!, $afterSeq: Int) {
	sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) { __typename ... on EntryAppended { seq } ... on LeafMoved { seq } }
}`;
/** Selects each entry's full JSON, so a subscriber that stops reading fills the connection's buffers quickly. */
const HEAVY = `subscription($sessionId: String!, $afterSeq: Int) {
	sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) { __typename ... on EntryAppended { seq entry { raw } } }
}`;

describe("bounded resources over real connections", () => {
	let server: TestServer | undefined;
	const opened: SubscriptionClient[] = [];

	afterEach(async () => {
		await Promise.all(opened.splice(0).map((c) => c.close()));
		if (server) await allReleased(server);
		await server?.close();
		server = undefined;
	});

	for (const transport of TRANSPORTS) {
		const name = transport.name === "sse" ? "SSE" : "WebSocket";

		it(`${name}: a subscriber that stops reading overflows its bounded buffer and is ended with LIMIT_EXCEEDED; another gets everything`, async () => {
			const s = await startTestServer("memory", { bufferSize: 4 });
			server = s;
			const open = (query: string, variables: Record<string, unknown>) => {
				const client = transport.subscribe(s, query, variables);
				opened.push(client);
				return client;
			};
			await createSession(s, "slow");
			const fast = open(FAST, { sessionId: "slow", afterSeq: 0 });
			const slow = open(HEAVY, { sessionId: "slow", afterSeq: 0 });
			await subscriptionsReach(s, 2);
			let last = Number.POSITIVE_INFINITY;
			const fastResults = collect(fast, (r) => eventOf(r).seq >= last);

			await append(s, "slow", "first");
			await append(s, "slow", "second");
			expect(
				seqsOf(
					await within(
						WAIT,
						"the slow subscriber's first two",
						collect(slow, (_, all) => all.length === 2),
					),
				),
			).toEqual([1, 2]);
			slow.pause();

			// Large entries fill the socket buffers; after that the server's stream holds at most 4 more.
			const big = "x".repeat(128 * 1024);
			let written = 2;
			while (openSubscriptions(s) === 2) {
				if (written >= 400) throw new Error(`the slow subscriber was not ended after ${written} entries`);
				await append(s, "slow", undefined, big);
				written += 1;
			}
			last = written + 1;
			await append(s, "slow", "last");
			expect(seqsOf(await within(WAIT, "the fast subscriber", fastResults))).toEqual(range(1, last));

			slow.resume();
			const drained = await within(
				WAIT,
				"the slow subscriber's backlog and its end",
				collect(slow, () => false),
			);
			const failure = drained.at(-1);
			const delivered = seqsOf(drained.slice(0, -1));
			const resumeFrom = 2 + delivered.length;
			expect(delivered).toEqual(range(3, resumeFrom));
			expect(failure?.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
			expect(failure?.errors?.[0]?.message).toContain(`afterSeq: ${resumeFrom}`);
			expect(resumeFrom).toBeLessThan(last);

			const resumed = open(FAST, { sessionId: "slow", afterSeq: resumeFrom });
			const rest = await within(
				WAIT,
				"the resumed subscriber",
				collect(resumed, (r) => eventOf(r).seq >= last),
			);
			expect(seqsOf(rest)).toEqual(range(resumeFrom + 1, last));
		});

		it(`${name}: closing clients releases every listener of the server at once`, async () => {
			const s = await startTestServer("memory");
			server = s;
			await createSession(s, "a");
			await createSession(s, "b");
			const clients = [
				...range(1, 3).map((i) =>
					transport.subscribe(s, SESSION_EVENTS, { sessionId: i === 1 ? "a" : "b", afterSeq: 0 }),
				),
				transport.subscribe(s, SESSION_EVENTS, { sessionId: "a" }),
				transport.subscribe(s, SESSION_ACTIVITY),
			];
			opened.push(...clients);
			await subscriptionsReach(s, 5);
			expect(s.services.live.feedCount).toBe(2);
			expect(s.services.bus.listenerCount).toBe(1);
			await Promise.all(clients.map((c) => c.close()));
			await allReleased(s);
		});
	}

	it("SSE: a peer whose connection is reset is released", async () => {
		const s = await startTestServer("memory");
		server = s;
		await createSession(s, "reset");
		const url = new URL(s.url);
		const body = JSON.stringify({ query: SESSION_EVENTS, variables: { sessionId: "reset", afterSeq: 0 } });
		const socket = connect(Number(url.port), url.hostname);
		socket.on("error", () => {});
		socket.write(
			[
				`POST ${url.pathname} HTTP/1.1`,
				`Host: ${url.host}`,
				"Content-Type: application/json",
				"Accept: text/event-stream",
				`Content-Length: ${Buffer.byteLength(body)}`,
				"",
				body,
			].join("\r\n"),
		);
		await subscriptionsReach(s, 1);
		socket.resetAndDestroy();
		await allReleased(s);
	});

	it.runIf(process.env.NODE_ENV === "test")(
		"SSE: an idle subscription receives keep-alive pings",
		async () => {
			const s = await startTestServer("memory");
			server = s;
			await createSession(s, "idle");
			const client = sseSubscribe(s, SESSION_EVENTS, { sessionId: "idle" });
			opened.push(client);
			expect(await within(WAIT, "the SSE response", client.opened)).toBe(200);
			const pending = client.next();
			await waitUntil(`3 pings (got ${client.pings})`, () => client.pings >= 3);
			await client.close();
			expect((await pending).done).toBe(true);
		},
	);

	describe("WebSocket keep-alive", () => {
		/** A raw graphql-transport-ws client subscribed to `sessionEvents`, counting pings. */
		async function rawSubscriber(s: TestServer, sessionId: string, autoPong: boolean) {
			const socket = new WebSocket(s.wsUrl, "graphql-transport-ws", { autoPong });
			let pings = 0;
			socket.on("ping", () => {
				pings += 1;
			});
			const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
			await within(WAIT, "the socket to open", new Promise((resolve) => socket.once("open", resolve)));
			const acked = new Promise<void>((resolve) =>
				socket.on("message", (data) => {
					if (JSON.parse(String(data)).type === "connection_ack") resolve();
				}),
			);
			socket.send(JSON.stringify({ type: "connection_init" }));
			await within(WAIT, "connection_ack", acked);
			socket.send(
				JSON.stringify({
					id: "1",
					type: "subscribe",
					payload: { query: SESSION_EVENTS, variables: { sessionId } },
				}),
			);
			await subscriptionsReach(s, 1);
			return { socket, closed, pings: () => pings };
		}

		it("a peer that stops answering pings is terminated and its subscription released", async () => {
			const s = await startTestServer("memory", { keepAliveMs: 200 });
			server = s;
			await createSession(s, "dead");
			const peer = await rawSubscriber(s, "dead", false);
			const code = await within(5_000, "the server to terminate the silent peer", peer.closed);
			expect(code).toBe(1006);
			expect(peer.pings()).toBeGreaterThanOrEqual(1);
			await allReleased(s);
		});

		it("a peer that answers pings stays connected and subscribed", async () => {
			const s = await startTestServer("memory", { keepAliveMs: 200 });
			server = s;
			await createSession(s, "alive");
			const peer = await rawSubscriber(s, "alive", true);
			await waitUntil(`4 pings (got ${peer.pings()})`, () => peer.pings() >= 4, 5_000);
			expect(peer.socket.readyState).toBe(WebSocket.OPEN);
			expect(openSubscriptions(s)).toBe(1);
			peer.socket.close();
			await within(WAIT, "the socket to close", peer.closed);
			await allReleased(s);
		});
	});
});
