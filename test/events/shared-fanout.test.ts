/**
 * Shared subscription results (src/app/shared-results.ts, wired in
 * src/app.ts) on the real server over real connections, with real tokens:
 * subscribers of one selection on one session get identical, correct events
 * exactly once and in order from one execution per event; another selection,
 * other scopes or another workspace execute their own and never see anything
 * else; a subscriber resuming with `afterSeq` still gets its catch-up.
 *
 * Counts come from the app's `sharedEventResults` counters. Each case first
 * waits until every subscriber has received a warm-up entry: a stream's first
 * read of the store (its catch-up, a copy of its own) may race the first
 * append, and only entries the session's feed pushes are one object for all.
 * Every wait is bounded; nothing sleeps.
 */
import { SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SharedResultsStats } from "../../src/app/shared-results.js";
import { testAuthenticator } from "../graphql/tokens.js";
import { within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";
import {
	collect,
	type Endpoint,
	type SubscriptionClient,
	type SubscriptionResult,
	sseSubscribe,
	wsSubscribe,
} from "./clients.js";
import { allReleased, range, subscriptionsReach } from "./helpers.js";

const SECRET = "shared-fanout-secret-of-at-least-32-bytes!";
const WAIT = 20_000;

interface Caller {
	name: string;
	authorization: string;
}

async function caller(sub: string, workspace: string, scope: string): Promise<Caller> {
	const token = await new SignJWT({ workspace, scope })
		.setProtectedHeader({ alg: "HS256" })
		.setSubject(sub)
		.setIssuedAt()
		.setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
		.sign(new TextEncoder().encode(SECRET));
	return { name: sub, authorization: `Bearer ${token}` };
}

/** Everything an event can tell, so that a wrong or foreign result shows. */
const EVENTS = `subscription Events($sessionId: String!, $afterSeq: Int) {
	sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) {
		__typename
		... on EntryAppended { seq leafId entry { entryId type parentId author } }
		... on LeafMoved { seq fromId toId leafId author }
	}
}`;

/** Another selection of the same events. */
const APPENDED = `subscription Appended($sessionId: String!, $afterSeq: Int) {
	entryAppended(sessionId: $sessionId, afterSeq: $afterSeq) { seq entry { entryId } }
}`;

interface Event {
	__typename?: string;
	seq: number;
	[field: string]: unknown;
}

/** The event of a result, by its root field; a result with errors fails the test. */
function eventOf(result: SubscriptionResult): Event {
	if (result.errors?.length) throw new Error(`subscription error: ${JSON.stringify(result.errors)}`);
	const [event] = Object.values(result.data ?? {}) as Event[];
	if (!event) throw new Error(`no event in ${JSON.stringify(result)}`);
	return event;
}

const appended = (seq: number, entryId: string, parentId: string | null, author: string) => ({
	__typename: "EntryAppended",
	seq,
	leafId: entryId,
	entry: { entryId, type: "MESSAGE", parentId, author },
});

describe("subscription events shared across subscribers (real server, memory backend)", () => {
	let server: TestServer;
	let alice: Caller;
	let carol: Caller;
	let reader: Caller;
	let bob: Caller;
	const opened: SubscriptionClient[] = [];

	beforeAll(async () => {
		[alice, carol, reader, bob] = await Promise.all([
			caller("alice", "team-a", "read write"),
			// Another subject of the same workspace and scopes: the results do not depend on who reads.
			caller("carol", "team-a", "read write"),
			caller("reader", "team-a", "read"),
			caller("bob", "team-b", "read write"),
		]);
		server = await startTestServer("memory", { authenticate: testAuthenticator(SECRET) });
	});

	afterAll(async () => {
		await server?.close();
	});

	afterEach(async () => {
		await Promise.all(opened.splice(0).map((c) => c.close()));
		await allReleased(server);
	});

	const counters = (): SharedResultsStats => ({ ...server.running.app.sharedEventResults });
	const since = (before: SharedResultsStats): SharedResultsStats => {
		const now = counters();
		return {
			executions: now.executions - before.executions,
			reused: now.reused - before.reused,
			encodings: now.encodings - before.encodings,
		};
	};

	async function run<T>(who: Caller, query: string, variables: Record<string, unknown>): Promise<T> {
		const response = await fetch(server.url, {
			method: "POST",
			headers: {
				"content-type": "application/json",
				accept: "application/graphql-response+json",
				authorization: who.authorization,
			},
			body: JSON.stringify({ query, variables }),
		});
		const body = (await response.json()) as { data?: T; errors?: unknown };
		if (body.errors || !body.data) throw new Error(`operation failed: ${JSON.stringify(body)}`);
		return body.data;
	}

	const createSession = (who: Caller, sessionId: string) =>
		run(who, "mutation($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }", {
			id: sessionId,
		});

	const append = async (who: Caller, sessionId: string, entryId: string) => {
		const data = await run<{ appendEntry: { entry: { seq: number } } }>(
			who,
			"mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }",
			{
				input: {
					sessionId,
					entryId,
					entry: { message: { role: "user", content: `text of ${entryId}`, timestamp: 1 } },
				},
			},
		);
		return data.appendEntry.entry.seq;
	};

	const moveLeaf = (who: Caller, sessionId: string, targetId: string) =>
		run(who, "mutation($input: MoveLeafInput!) { moveLeaf(input: $input) { leafEntry { seq } } }", {
			input: { sessionId, targetId },
		});

	function open(
		who: Caller,
		transport: "sse" | "ws",
		query: string,
		variables: Record<string, unknown>,
	): SubscriptionClient {
		const endpoint: Endpoint = { url: server.url, wsUrl: server.wsUrl, authorization: who.authorization };
		const client =
			transport === "sse"
				? sseSubscribe(endpoint, query, variables)
				: wsSubscribe(endpoint, query, variables);
		opened.push(client);
		return client;
	}

	/** Each client's events up to and including `seq`. */
	const eventsUpTo = (clients: readonly SubscriptionClient[], seq: number, what: string) =>
		within(
			WAIT,
			what,
			Promise.all(
				clients.map(async (c) => (await collect(c, (r) => eventOf(r).seq >= seq)).map((r) => eventOf(r))),
			),
		);

	it("subscribers of one selection get identical events exactly once, in order, from one execution each", async () => {
		const id = "one-selection";
		await createSession(alice, id);
		const subscribers = [
			...range(1, 6).map(() => open(alice, "sse", EVENTS, { sessionId: id, afterSeq: 0 })),
			...range(1, 3).map(() => open(alice, "ws", EVENTS, { sessionId: id, afterSeq: 0 })),
			...range(1, 3).map(() => open(carol, "sse", EVENTS, { sessionId: id, afterSeq: 0 })),
		];
		await subscriptionsReach(server, subscribers.length);
		await append(alice, id, "e0");
		await eventsUpTo(subscribers, 1, "the warm-up entry");

		const before = counters();
		for (const e of ["e1", "e2", "e3", "e4"]) await append(alice, id, e); // seq 2..5
		await moveLeaf(alice, id, "e2"); // 6
		await append(carol, id, "e5"); // 7, under e2
		const received = await eventsUpTo(subscribers, 7, "seq 7 at every subscriber");

		const expected = [
			appended(2, "e1", "e0", "alice"),
			appended(3, "e2", "e1", "alice"),
			appended(4, "e3", "e2", "alice"),
			appended(5, "e4", "e3", "alice"),
			{ __typename: "LeafMoved", seq: 6, fromId: "e4", toId: "e2", leafId: "e2", author: "alice" },
			appended(7, "e5", "e2", "carol"),
		];
		for (const events of received) expect(events).toEqual(expected);
		// Six events, twelve subscribers over SSE and WebSocket: one execution per event; the SSE
		// subscribers send one encoding of each (graphql-ws encodes its own message per subscription).
		expect(since(before)).toEqual({ executions: 6, reused: 6 * 11, encodings: 6 });
	});

	it("another selection, other scopes and another workspace get their own results, never another's", async () => {
		// The same session id in two workspaces: two different sessions.
		const id = "same-id";
		await createSession(alice, id);
		await createSession(bob, id);
		const groups = {
			alice: range(1, 3).map(() => open(alice, "sse", EVENTS, { sessionId: id, afterSeq: 0 })),
			otherSelection: range(1, 2).map(() => open(alice, "sse", APPENDED, { sessionId: id, afterSeq: 0 })),
			readOnly: range(1, 2).map(() => open(reader, "sse", EVENTS, { sessionId: id, afterSeq: 0 })),
			bob: [
				...range(1, 2).map(() => open(bob, "sse", EVENTS, { sessionId: id, afterSeq: 0 })),
				open(bob, "ws", EVENTS, { sessionId: id, afterSeq: 0 }),
			],
		};
		const all = Object.values(groups).flat();
		await subscriptionsReach(server, all.length);
		await append(alice, id, "a0");
		await append(bob, id, "b0");
		await eventsUpTo(all, 1, "the warm-up entries");

		const before = counters();
		for (const i of [1, 2, 3]) {
			await append(alice, id, `a${i}`);
			await append(bob, id, `b${i}`);
		}
		const [ofAlice, ofOther, ofReader, ofBob] = await Promise.all([
			eventsUpTo(groups.alice, 4, "alice's entries"),
			eventsUpTo(groups.otherSelection, 4, "alice's entries in the other selection"),
			eventsUpTo(groups.readOnly, 4, "alice's entries, read-only"),
			eventsUpTo(groups.bob, 4, "bob's entries"),
		]);

		const inA = [
			appended(2, "a1", "a0", "alice"),
			appended(3, "a2", "a1", "alice"),
			appended(4, "a3", "a2", "alice"),
		];
		for (const events of [...(ofAlice ?? []), ...(ofReader ?? [])]) expect(events).toEqual(inA);
		for (const events of ofOther ?? [])
			expect(events).toEqual(["a1", "a2", "a3"].map((entryId, i) => ({ seq: i + 2, entry: { entryId } })));
		for (const events of ofBob ?? [])
			expect(events).toEqual([
				appended(2, "b1", "b0", "bob"),
				appended(3, "b2", "b1", "bob"),
				appended(4, "b3", "b2", "bob"),
			]);
		// Per event of A: one execution for each of its three selection and scope groups; of B: one.
		expect(since(before)).toEqual({
			executions: 3 * 3 + 3,
			reused: 3 * (2 + 1 + 1) + 3 * 2,
			encodings: 3 * 3 + 3,
		});
	});

	it("a subscriber resuming with afterSeq gets its catch-up, then shares the live events", async () => {
		const id = "resume";
		await createSession(alice, id);
		const live = range(1, 3).map(() => open(alice, "sse", EVENTS, { sessionId: id, afterSeq: 0 }));
		await subscriptionsReach(server, live.length);
		await append(alice, id, "r1");
		await append(alice, id, "r2");
		await append(alice, id, "r3");
		await eventsUpTo(live, 3, "the first entries");

		const resumed = open(carol, "sse", EVENTS, { sessionId: id, afterSeq: 1 });
		const [catchUp] = await eventsUpTo([resumed], 3, "the resumed subscriber's catch-up");
		expect(catchUp).toEqual([appended(2, "r2", "r1", "alice"), appended(3, "r3", "r2", "alice")]);

		const before = counters();
		await append(alice, id, "r4");
		await append(alice, id, "r5");
		const received = await eventsUpTo([...live, resumed], 5, "the live entries");
		for (const events of received)
			expect(events).toEqual([appended(4, "r4", "r3", "alice"), appended(5, "r5", "r4", "alice")]);
		expect(since(before)).toEqual({ executions: 2, reused: 2 * 3, encodings: 2 });
	});
});

describe("a subscriber whose result budget runs out (real server, memory backend)", () => {
	let server: TestServer;
	const opened: SubscriptionClient[] = [];

	beforeAll(async () => {
		// Two list items per event: the third entry's page of the session's entries is over it.
		server = await startTestServer("memory", { limits: { resultItems: 2 } });
	});

	afterAll(async () => {
		await Promise.all(opened.splice(0).map((c) => c.close()));
		await allReleased(server);
		await server?.close();
	});

	const PAGES = `subscription Pages($sessionId: String!) {
		entryAppended(sessionId: $sessionId) { seq entry { session { entries(first: 10) { edges { node { entryId } } } } } }
	}`;

	it("does not pass its cut-short result on: every subscriber gets its own LIMIT_EXCEEDED", async () => {
		const id = "budget";
		const check = async (result: { errors?: unknown }) => {
			if (result.errors) throw new Error(`operation failed: ${JSON.stringify(result.errors)}`);
		};
		await check(
			await server.request(
				"mutation($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }",
				{
					id,
				},
			),
		);
		const endpoint: Endpoint = { url: server.url, wsUrl: server.wsUrl };
		const subscribers = [
			sseSubscribe(endpoint, PAGES, { sessionId: id }),
			sseSubscribe(endpoint, PAGES, { sessionId: id }),
		];
		opened.push(...subscribers);
		await subscriptionsReach(server, 2);
		const append = (entryId: string) =>
			server.request("mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }", {
				input: {
					sessionId: id,
					entryId,
					entry: { message: { role: "user", content: entryId, timestamp: 1 } },
				},
			});
		const next = () =>
			within(
				WAIT,
				"the next event at both subscribers",
				Promise.all(subscribers.map(async (s) => (await s.next()).value as SubscriptionResult)),
			);
		const pageOf = (...ids: string[]) => ({
			data: {
				entryAppended: {
					seq: ids.length,
					entry: { session: { entries: { edges: ids.map((entryId) => ({ node: { entryId } })) } } },
				},
			},
		});

		await check(await append("x1"));
		expect(await next()).toEqual([pageOf("x1"), pageOf("x1")]);
		// Counted from before the write: a subscriber's event may be executed before the write's response arrives.
		const before = { ...server.running.app.sharedEventResults };
		await check(await append("x2"));
		expect(await next()).toEqual([pageOf("x1", "x2"), pageOf("x1", "x2")]);
		expect(server.running.app.sharedEventResults.executions - before.executions).toBe(1);

		const third = { ...server.running.app.sharedEventResults };
		await check(await append("x3"));
		const [a, b] = await next();
		for (const result of [a, b]) {
			expect(result?.data ?? null).toBeNull();
			expect(result?.errors?.map((e) => e.extensions?.code)).toEqual(["LIMIT_EXCEEDED"]);
			expect(result?.errors?.[0]?.message).toMatch(/more than 2 list items/);
		}
		expect(server.running.app.sharedEventResults.executions - third.executions).toBe(2);
		expect(server.running.app.sharedEventResults.reused - third.reused).toBe(0);
	});
});
