/**
 * `sessionActivity` resumes like `sessionEvents`: each event carries its
 * cursor (over SSE also as the event's id), and a client that comes back with
 * the last cursor it saw (as `afterCursor`, or as EventSource's
 * `Last-Event-ID`) gets every activity committed meanwhile and then the live
 * ones, each once, in the workspace's activity log order. Through the real
 * server on memory, and on Postgres across two instances (the client leaves
 * one and comes back on the other, writes landing on both meanwhile).
 *
 * The expected order is the store's own log (SessionStore.activity), each
 * record expanded to its events (a created session: one CREATED at its last
 * seq; otherwise one event per seq).
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import { parseActivityCursor } from "../../src/store/activity-cursor.js";
import { MemoryStore } from "../../src/store/memory.js";
import { type ActivityRecord, DEFAULT_WORKSPACE, type SessionStore } from "../../src/store/store.js";
import { rejectsWithCode, within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { collect, SSE, type SubscriptionResult, WS } from "./clients.js";
import {
	allReleased,
	append,
	createSession,
	message,
	moveLeaf,
	mutate,
	pool,
	range,
	rename,
	subscriptionsReach,
	waitUntil,
} from "./helpers.js";
import { connect, type SseEvent } from "./sse-client.js";

const WAIT = 20_000;

const ACTIVITY = `subscription ($after: String, $ids: [String!]) {
	sessionActivity(afterCursor: $after, sessionIds: $ids) { cursor kind seq session { sessionId } }
}`;

interface Activity {
	cursor: string;
	kind: string;
	seq: number;
	session: { sessionId: string };
}

/** `session:seq` of every event the workspace's log holds, in its order, and the cursor of each record's last event. */
async function logEvents(store: SessionStore, ws = DEFAULT_WORKSPACE) {
	const events: string[] = [];
	const recordEnds = new Map<string, string>();
	for (const record of await store.activity(ws, { limit: 100_000 })) {
		const seqs = record.created ? [record.toSeq] : range(record.fromSeq, record.toSeq);
		for (const seq of seqs) events.push(`${record.sessionId}:${seq}`);
		recordEnds.set(`${record.sessionId}:${record.toSeq}`, record.cursor);
	}
	return { events, recordEnds };
}

const key = (a: Activity) => `${a.session.sessionId}:${a.seq}`;

function activityOf(result: SubscriptionResult | SseEvent["data"]): Activity {
	if (result.errors?.length) throw new Error(`subscription error: ${JSON.stringify(result.errors)}`);
	return (result.data as { sessionActivity: Activity }).sessionActivity;
}

/** The next `n` events of an SSE connection, with the id each carried. */
async function take(client: ReturnType<typeof connect>, n: number) {
	const got: Array<{ activity: Activity; id: string }> = [];
	for (let i = 0; i < n; i++) {
		const event = await client.next(WAIT);
		got.push({ activity: activityOf(event.data), id: event.lastEventId });
	}
	return got;
}

describe("sessionActivity resumes after a reconnect (memory, real server)", () => {
	let server: TestServer;

	beforeAll(async () => {
		server = await startTestServer("memory");
	});
	afterAll(async () => {
		await server?.close();
	});

	it("an EventSource-style client that reconnects with Last-Event-ID (even inside a leaf move with its summary) sees every activity once, in order", async () => {
		const { store } = server.services;
		const body = { query: ACTIVITY, variables: {} };
		const seen: Array<{ activity: Activity; id: string }> = [];

		const first = connect((_u, init) => fetch(server.url, init), server.url, body);
		await subscriptionsReach(server, 1);
		await createSession(server, "a"); // a:0
		await append(server, "a", "a1"); // a:1
		await append(server, "a", "a2"); // a:2
		await createSession(server, "b"); // b:0
		await moveLeaf(server, "a", "a1", "back to a1"); // a:3 summary, a:4 leaf: one record
		seen.push(...(await take(first, 5)));
		// Gone right after the summary: the last id is inside the move's record.
		await first.close();
		await subscriptionsReach(server, 0);
		expect(seen.at(-1)?.activity).toMatchObject({ seq: 3, session: { sessionId: "a" } });

		// Written while the client was away.
		await append(server, "b", "b1");
		await rename(server, "a", "Renamed");
		await createSession(server, "c");

		const second = connect((_u, init) => fetch(server.url, init), server.url, body, seen.at(-1)?.id);
		seen.push(...(await take(second, 4))); // a:4, b:1, a:5, c:0
		await append(server, "c", "c1"); // live
		seen.push(...(await take(second, 1)));
		await second.close();
		await subscriptionsReach(server, 0);

		// Resumed by argument over WebSocket this time.
		await append(server, "a", "a6");
		const third = WS.subscribe(server, ACTIVITY, { after: seen.at(-1)?.activity.cursor });
		const [resumed] = await within(
			WAIT,
			"the activity written before the third connection",
			collect(third, () => true),
		);
		seen.push({ activity: activityOf(resumed as SubscriptionResult), id: "" });
		await third.close();

		const { events, recordEnds } = await logEvents(store);
		expect(seen.map((s) => key(s.activity))).toEqual(events);
		expect(events).toHaveLength(11);
		// The SSE id is the cursor; a record's last event carries the store's own cursor of the record.
		for (const { activity, id } of seen) {
			if (id) expect(id).toBe(activity.cursor);
			const end = recordEnds.get(key(activity));
			if (end) expect(activity.cursor).toBe(end);
		}
		expect(seen.find((s) => key(s.activity) === "a:3")?.activity.cursor).not.toBe(recordEnds.get("a:4"));
		await allReleased(server);
	});

	it("Last-Event-ID wins when later than afterCursor, not when earlier; a header or argument that is no cursor is INVALID_INPUT naming it", async () => {
		await createSession(server, "order");
		const watching = SSE.subscribe(server, ACTIVITY, { ids: ["order"] });
		await subscriptionsReach(server, 1);
		for (const i of range(1, 6)) await append(server, "order", `o${i}`);
		const cursors = (
			await within(
				WAIT,
				"six events",
				collect(watching, (r) => activityOf(r).seq === 6),
			)
		).map((r) => activityOf(r).cursor);
		await watching.close();
		const cursorAt = (seq: number) => cursors[seq - 1] as string;

		const firstSeq = async (after: string | undefined, header: string) => {
			const client = connect(
				(_u, init) => fetch(server.url, init),
				server.url,
				{ query: ACTIVITY, variables: { ids: ["order"], ...(after ? { after } : {}) } },
				header,
			);
			try {
				return activityOf((await client.next(WAIT)).data).seq;
			} finally {
				await client.close();
			}
		};
		expect(await firstSeq(cursorAt(1), cursorAt(4))).toBe(5); // the stale argument EventSource repeats
		expect(await firstSeq(cursorAt(3), cursorAt(2))).toBe(4); // a client resuming on purpose past the header
		expect(await firstSeq(undefined, cursorAt(2))).toBe(3); // no argument: the header is the position

		for (const [after, header, field] of [
			[cursorAt(1), "abc", "Last-Event-ID"],
			["abc", undefined, "afterCursor"],
			[Buffer.from('["e","x",1,null]').toString("base64url"), undefined, "afterCursor"],
		] as const) {
			const client = connect(
				(_u, init) => fetch(server.url, init),
				server.url,
				{ query: ACTIVITY, variables: { after } },
				header,
			);
			const event = await client.next(WAIT);
			expect(event.data.errors?.[0]?.extensions).toMatchObject({ code: "INVALID_INPUT", field });
			await client.close();
		}
		await allReleased(server);
	});
});

describe.each(["memory", "pglite", "postgres"] as const)(
	"a sessions list's activityCursor (%s, real server)",
	(backend) => {
		let server: TestServer;

		beforeAll(async () => {
			server = await startTestServer(backend);
		});
		afterAll(async () => {
			await server?.close();
		});

		const LIST = "{ sessions(first: 50) { totalCount activityCursor edges { node { sessionId } } } }";
		interface List {
			sessions: { totalCount: number; activityCursor: string; edges: Array<{ node: { sessionId: string } }> };
		}
		const list = async () => (await mutate<List>(server, LIST, {})).sessions;

		/** The events sessionActivity delivers after `cursor` until one of `last`, over WebSocket. */
		async function eventsAfter(cursor: string, last: string): Promise<string[]> {
			const client = WS.subscribe(server, ACTIVITY, { after: cursor });
			try {
				const results = await within(
					WAIT,
					`the activity up to ${last}`,
					collect(client, (r) => key(activityOf(r)) === last),
				);
				return results.map((r) => `${activityOf(r).kind} ${key(activityOf(r))}`);
			} finally {
				await client.close();
			}
		}

		it("subscribing from it delivers what was written after the list was read, even in a workspace with no activity yet", async () => {
			const empty = await list();
			expect(empty).toMatchObject({ totalCount: 0, edges: [] });
			// Written after the read, before anyone subscribes: a subscription "from now" would miss it.
			await createSession(server, "early");
			expect(await eventsAfter(empty?.activityCursor as string, "early:0")).toEqual(["CREATED early:0"]);

			const listed = await list();
			expect(listed?.edges.map((e) => e.node.sessionId)).toEqual(["early"]);
			await createSession(server, "late");
			await append(server, "early", "e1");
			// What the second list may not show. What it shows may come again: on Postgres the cursor
			// stops short of records an older transaction anywhere on the server still holds back.
			const after = await eventsAfter(listed?.activityCursor as string, "early:1");
			expect(after.filter((e) => e !== "CREATED early:0")).toEqual(["CREATED late:0", "APPENDED early:1"]);
			await allReleased(server);
		});
	},
);

describe("a slow activity subscriber (in process)", () => {
	it("is ended with LIMIT_EXCEEDED naming the cursor to resume from, and resuming there misses nothing", async () => {
		const bus = new InProcessBus();
		const store = new MemoryStore(undefined, { onCommit: bus.publish });
		const live = new LiveEvents({ store, bus, logger: silentLogger, bufferSize: 3 });
		await store.createSession(DEFAULT_WORKSPACE, { sessionId: "s" });
		const reader = await live.activityEvents(DEFAULT_WORKSPACE);
		const first = reader.next();
		await store.appendEntry(DEFAULT_WORKSPACE, "s", {
			type: "message",
			message: { role: "user", content: "1" },
		});
		expect((await within(WAIT, "the first event", first)).value?.seq).toBe(1);
		for (const i of range(2, 8))
			await store.appendEntry(DEFAULT_WORKSPACE, "s", {
				type: "message",
				message: { role: "user", content: `${i}` },
			});
		const error = await rejectsWithCode(reader.next(), "LIMIT_EXCEEDED");
		const cursor = /afterCursor: (\S+)$/.exec(error.message)?.[1];
		expect(cursor).toBeDefined();
		const resumed = await live.activityEvents(DEFAULT_WORKSPACE, { afterCursor: cursor ?? null });
		const seqs: number[] = [];
		for (let i = 0; i < 7; i++)
			seqs.push((await within(WAIT, `event ${i}`, resumed.next())).value?.seq as number);
		expect(seqs).toEqual(range(2, 8));
		await resumed.return?.();
		expect(live.subscriptionCount).toBe(0);
		live.close();
	});
});

describe("a quiet watched workspace among busy ones (in process)", () => {
	it("its safety reads start where the log stands, not at its own last record, and its next write still comes once", async () => {
		const bus = new InProcessBus();
		const memory = new MemoryStore(undefined, { onCommit: bus.publish });
		/** Where each read of the quiet workspace's log started (commit numbers: the memory log's positions). */
		const startedAt: number[] = [];
		const store: SessionStore = Object.create(memory, {
			activity: {
				value: (ws: string, query: { after?: string | null; limit: number }) => {
					if (ws === "quiet") startedAt.push(query.after ? Number(parseActivityCursor(query.after).xid) : 0);
					return memory.activity(ws, query);
				},
			},
		});
		const live = new LiveEvents({ store, bus, logger: silentLogger, safetyReadMs: 5 });
		await memory.createSession("quiet", { sessionId: "q" });
		await memory.createSession("busy", { sessionId: "b" });
		const reader = await live.activityEvents("quiet");
		// Each read after an unmoved position would walk every one of these again (so would Postgres's).
		for (let i = 0; i < 50; i++)
			await memory.appendEntry("busy", "b", { type: "message", message: message(`b${i}`) });
		const end = Number(parseActivityCursor(await memory.activityNow()).xid);
		await waitUntil("a safety read that starts after the busy workspace's writes", () =>
			startedAt.some((at) => at >= end),
		);

		await memory.appendEntry("quiet", "q", { type: "message", message: message("q1") });
		await memory.appendEntry("quiet", "q", { type: "message", message: message("q2") });
		const got: string[] = [];
		for (let i = 0; i < 2; i++) {
			const { value } = await within(WAIT, "the quiet workspace's writes", reader.next());
			got.push(`${value.kind} ${value.session.sessionId}:${value.seq}`);
		}
		expect(got).toEqual(["APPENDED q:1", "APPENDED q:2"]);
		await reader.return?.();
		expect(live.subscriptionCount).toBe(0);
		live.close();
	});
});

describe("sessionActivity on Postgres, two instances", () => {
	let a: TestServer;
	let b: TestServer;
	let admin: postgres.Sql;

	beforeAll(async () => {
		a = await startTestServer("postgres");
		b = await startTestServer("postgres", a.databaseUrl ? { databaseUrl: a.databaseUrl } : {});
		admin = postgres(a.databaseUrl ?? "", { max: 1, onnotice: () => {} });
	}, 60_000);
	afterAll(async () => {
		await admin?.end({ timeout: 1 });
		await b?.close();
		await a?.close();
	});

	it("a client that leaves instance A and resumes on instance B, writes on both meanwhile, sees every activity once, in order", async () => {
		const sessions = ["p0", "p1", "p2", "p3"];
		for (const id of sessions) await createSession(a, id);
		const onA = WS.subscribe(a, ACTIVITY, {});
		await subscriptionsReach(a, 1);
		// Concurrent writers on both instances: commits need not come in the log's order.
		const write = (round: number) =>
			pool(16, 8, (i) => append(i % 2 === 0 ? a : b, sessions[i % 4] as string, `r${round}-${i}`));
		await write(1);
		// The first round's appends (a creation still held back by another transaction when A's feed
		// started may come first: the feed starts where the log ended as it could see it).
		const before = await within(
			WAIT,
			"the first round on A",
			collect(onA, (_r, all) => all.filter((r) => activityOf(r).kind === "APPENDED").length === 16),
		);
		await onA.close();
		await subscriptionsReach(a, 0);

		await write(2); // while the client is away
		const last = activityOf(before.at(-1) as SubscriptionResult).cursor;
		const onB = connect((_u, init) => fetch(b.url, init), b.url, { query: ACTIVITY, variables: {} }, last);
		const after = await take(onB, 16);
		await write(3); // live, on both instances
		after.push(...(await take(onB, 16)));
		await onB.close();

		const { events } = await logEvents(a.services.store);
		const got = [...before.map((r) => key(activityOf(r))), ...after.map((e) => key(e.activity))];
		expect(got).toEqual(events.slice(events.length - got.length));
		expect(new Set(got).size).toBe(got.length);
		expect(got.filter((k) => !k.endsWith(":0"))).toHaveLength(48);
		await allReleased(a);
		await allReleased(b);
	});

	it("an open older transaction holds later records back (the store returns none of them); the feed delivers them within a second of its commit, with no later write, and polls only while watched", async () => {
		const ws = "held-back";
		const { store, live, bus, storeCalls } = a.services;
		const activityReads = () => storeCalls.byMethod.get("activity")?.calls ?? 0;
		await store.createSession(ws, { sessionId: "h" });
		// Other databases' transactions on this server may hold the log back for a moment too.
		let created: ActivityRecord | undefined;
		while (!created) [created] = await store.activity(ws, { limit: 10 });
		const subscriber = await live.activityEvents(ws, { afterCursor: created.cursor });

		// An older transaction with a transaction id, open while a later one commits.
		const hold = async () => {
			let release: () => void = () => {};
			const gate = new Promise<void>((resolve) => {
				release = resolve;
			});
			let opened: () => void = () => {};
			const isOpen = new Promise<void>((resolve) => {
				opened = resolve;
			});
			const done = admin.begin(async (tx) => {
				await tx`select pg_current_xact_id()`;
				opened();
				await gate;
			});
			await isOpen;
			return {
				commit: async () => {
					release();
					await done;
				},
			};
		};
		const older = await hold();
		await store.appendEntry(ws, "h", { type: "message", message: { role: "user", content: "held" } });
		expect((await store.getSession(ws, "h"))?.lastSeq).toBe(1); // committed
		expect(await store.activity(ws, { after: created.cursor, limit: 10 })).toEqual([]);

		// The feed has heard of it and polls: several reads, nothing delivered.
		const next = subscriber.next();
		let delivered = false;
		void next.then(() => {
			delivered = true;
		});
		const readsBefore = activityReads();
		await waitUntil("the feed polls the held-back log", () => activityReads() >= readsBefore + 3);
		expect(delivered).toBe(false);
		expect(live.activityPending).toBe(1);

		await older.commit();
		const committed = performance.now();
		const event = await within(WAIT, "the held-back event", next);
		const latency = performance.now() - committed;
		expect(event.value).toMatchObject({ kind: "APPENDED", seq: 1 });
		console.info(
			`held-back activity delivered ${latency.toFixed(0)} ms after the older transaction committed`,
		);
		// The poll's delay doubles up to 1 s while held back; the safety read alone would take up to 2 s.
		expect(latency).toBeLessThan(1_500);
		expect(live.activityPending).toBe(0);

		// Nobody watching: a held-back write costs no read at all.
		await subscriber.return?.();
		const again = await hold();
		let heard: () => void = () => {};
		const noticed = new Promise<void>((resolve) => {
			heard = resolve;
		});
		const stop = bus.subscribe({ notice: (n) => n.workspaceId === ws && heard(), resync: () => {} });
		const idleReads = activityReads();
		await store.appendEntry(ws, "h", { type: "message", message: { role: "user", content: "unwatched" } });
		await within(WAIT, "the notice", noticed);
		// A read started by the notice would have finished by the end of this round trip.
		await store.getSession(ws, "h");
		expect(activityReads()).toBe(idleReads);
		expect([live.activityPending, live.subscriptionCount]).toEqual([0, 0]);
		stop();
		await again.commit();
		await allReleased(a);
	});
});
