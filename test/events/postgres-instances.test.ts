/**
 * Live updates across instances: two servers on one Postgres database, each
 * LISTENing on its own connection. Entries written through one instance
 * reach subscribers of the other, and a listening connection killed with
 * pg_terminate_backend during writes loses nothing (the bus reconnects and
 * every feed re-reads from the store).
 */
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { PgListenBus } from "../../src/events/pg-bus.js";
import { NOTIFY_CHANNEL } from "../../src/store/commits.js";
import { within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { collect, type SubscriptionClient, TRANSPORTS } from "./clients.js";
import {
	allReleased,
	append,
	createSession,
	ENTRY_APPENDED,
	eventOf,
	mutate,
	pool,
	range,
	SESSION_EVENTS,
	seqsOf,
	subscriptionsReach,
	waitUntil,
} from "./helpers.js";

const WAIT = 30_000;

describe("live updates across two instances on one Postgres", () => {
	let a: TestServer;
	let b: TestServer;
	let admin: postgres.Sql;
	const opened: SubscriptionClient[] = [];

	const open = (
		server: TestServer,
		transport: (typeof TRANSPORTS)[number],
		variables: Record<string, unknown>,
	) => {
		const client = transport.subscribe(server, SESSION_EVENTS, variables);
		opened.push(client);
		return client;
	};

	beforeAll(async () => {
		// Live metrics send at most one result per 100 ms here (1 s by default).
		// No background folds of rollups (src/store/postgres/analytics/fold.ts): the outage test below lets B write on
		// the one connection it has while new ones are refused, and a fold would take that connection.
		const noFolds = { foldDelayMs: 3_600_000 };
		a = await startTestServer("postgres", { metricsIntervalMs: 100, ...noFolds });
		b = await startTestServer("postgres", {
			...noFolds,
			...(a.databaseUrl ? { databaseUrl: a.databaseUrl } : {}),
		});
		admin = postgres(a.databaseUrl ?? "", { max: 1, onnotice: () => {} });
	});

	afterAll(async () => {
		await admin?.end({ timeout: 1 });
		// B first: A owns the database and drops it.
		await b?.close();
		await a?.close();
	});

	afterEach(async () => {
		await Promise.all(opened.splice(0).map((c) => c.close()));
		await allReleased(a);
		await allReleased(b);
	});

	it("both instances listen on their own connection", async () => {
		expect(a.services.bus).toBeInstanceOf(PgListenBus);
		expect(b.services.bus).toBeInstanceOf(PgListenBus);
		// Each listening connection's last statement: LISTEN on the commits channel, then on its instance's probe channel (readiness).
		const listeners = await admin<{ pid: number; query: string }[]>`
			select pid, query from pg_stat_activity
			where datname = current_database() and application_name = 'session-tree-listen' and query ilike 'listen%'`;
		expect(new Set(listeners.map((r) => r.pid)).size).toBe(2);
		for (const { query } of listeners)
			expect(query).toMatch(new RegExp(`^listen "(${NOTIFY_CHANNEL}|session_tree_probe_[0-9a-f]{32})"$`));
	});

	it("subscribers on instance A (SSE and WebSocket) receive entries written through instance B", async () => {
		await createSession(b, "across");
		const N = 30;
		const subs = TRANSPORTS.map((t) => open(a, t, { sessionId: "across", afterSeq: 0 }));
		// A live-only subscriber too: it must see B's writes through NOTIFY alone.
		const liveOnly = TRANSPORTS.map((t) => open(a, t, { sessionId: "across" }));
		await subscriptionsReach(a, 4);
		const written = await within(
			WAIT,
			"the writes through B",
			pool(N, 5, (i) => append(b, "across", `b${i + 1}`)),
		);
		const idAt = new Map(written.map((e) => [e.seq, e.entryId]));
		const results = await within(
			WAIT,
			"every subscriber on A",
			Promise.all([...subs, ...liveOnly].map((c) => collect(c, (r) => eventOf(r).seq >= N))),
		);
		for (const r of results) {
			expect(seqsOf(r)).toEqual(range(1, N));
			expect(r.map((x) => eventOf(x).entry?.entryId)).toEqual(range(1, N).map((seq) => idAt.get(seq)));
		}
		// Instance B held no subscription of its own: delivery to A went through Postgres.
		expect(b.services.live.subscriptionCount).toBe(0);
	});

	it("a session deleted through B ends A's subscribers of it: sessionEvents with SessionDeleted, the filtered views by ending", async () => {
		await createSession(b, "doomed-across");
		await append(b, "doomed-across", "b1");
		const events = TRANSPORTS.map((t) => open(a, t, { sessionId: "doomed-across", afterSeq: 0 }));
		const appended = TRANSPORTS.map((t) => {
			const client = t.subscribe(a, ENTRY_APPENDED, { sessionId: "doomed-across", afterSeq: 1 });
			opened.push(client);
			return client;
		});
		await subscriptionsReach(a, 4);
		const first = await within(WAIT, "the first entry on A", Promise.all(events.map((c) => c.next())));
		for (const r of first) expect(eventOf(r.value).seq).toBe(1);
		const deleted = await mutate<{ deleteSession: { sessionId: string; deletedEntries: number } }>(
			b,
			"mutation($id: String!) { deleteSession(input: { sessionId: $id }) { sessionId deletedEntries } }",
			{ id: "doomed-across" },
		);
		expect(deleted.deleteSession).toEqual({ sessionId: "doomed-across", deletedEntries: 1 });
		const ends = await within(
			WAIT,
			"every subscriber on A to end",
			Promise.all([...events, ...appended].map((c) => collect(c, () => false))),
		);
		for (const rest of ends.slice(0, 2))
			expect(rest.map((r) => r.data)).toEqual([
				{ sessionEvents: { __typename: "SessionDeleted", sessionId: "doomed-across" } },
			]);
		for (const rest of ends.slice(2)) expect(rest).toEqual([]);
		await waitUntil("A's subscriptions are released", () => a.services.live.subscriptionCount === 0);
	});

	it("a metricsUpdated subscriber on A sees B's commits within a second, bursts coalesced, the last total exact", async () => {
		await createSession(b, "metrics-across");
		type Metrics = { metricsUpdated: { rows: Array<{ values: { entries: number; userTurns: number } }> } };
		const entriesOf = (r: { data?: unknown }) =>
			(r.data as Metrics | undefined)?.metricsUpdated.rows[0]?.values.entries ?? -1;
		const client = TRANSPORTS[0]?.subscribe(
			a,
			`subscription ($q: MetricsQuery!) { metricsUpdated(query: $q) { rows { values { entries userTurns } } } }`,
			{ q: { measures: ["ENTRIES", "USER_TURNS"], filter: { sessionIds: ["metrics-across"] } } },
		) as SubscriptionClient;
		opened.push(client);
		const [first] = await within(
			WAIT,
			"the first result",
			collect(client, () => true),
		);
		expect(entriesOf(first as { data?: unknown })).toBe(0);

		await append(b, "metrics-across", "m1");
		const committed = performance.now();
		await within(
			WAIT,
			"the total after one commit on B",
			collect(client, (r) => entriesOf(r) === 1),
		);
		expect(performance.now() - committed).toBeLessThan(1000);

		// A burst of 20 commits: at most one result per 100 ms it lasted (and fewer than 20), the last one exact.
		const burstStarted = performance.now();
		await pool(20, 20, (i) => append(b, "metrics-across", `burst${i}`));
		const burst = await within(
			WAIT,
			"the total after the burst",
			collect(client, (r) => entriesOf(r) === 21),
		);
		const burstMs = performance.now() - burstStarted;
		expect(burst.length).toBeLessThan(20);
		expect(burst.length).toBeLessThanOrEqual(Math.floor(burstMs / 100) + 1);
		expect(burst.map(entriesOf)).toEqual([...burst.map(entriesOf)].sort((x, y) => x - y));
		const last = burst.at(-1)?.data as Metrics | undefined;
		expect(last?.metricsUpdated.rows[0]?.values.userTurns).toBe(21);
	});

	it("metricsUpdated refuses a malformed query with INVALID_INPUT and keeps nothing attached", async () => {
		const client = TRANSPORTS[1]?.subscribe(
			a,
			`subscription ($q: MetricsQuery!) { metricsUpdated(query: $q) { truncated } }`,
			{ q: { measures: ["ENTRIES"], timeZone: "Nowhere/Else" } },
		) as SubscriptionClient;
		opened.push(client);
		const [result] = await within(
			WAIT,
			"the refusal",
			collect(client, () => true),
		);
		expect(result?.errors?.[0]?.extensions?.code).toBe("INVALID_INPUT");
		await allReleased(a);
	});

	it("killing the listening connections with pg_terminate_backend during writes loses nothing", async () => {
		await createSession(a, "terminate");
		const N = 80;
		const listensBefore = (a.services.bus as PgListenBus).listenCount;
		const subs = TRANSPORTS.map((t) => open(a, t, { sessionId: "terminate", afterSeq: 0 }));
		await subscriptionsReach(a, 2);
		const receiving = subs.map((c) => collect(c, (r) => eventOf(r).seq >= N));

		let completed = 0;
		let terminated: Promise<number> | undefined;
		const writing = pool(N, 3, async (i) => {
			// Writes alternate between the instances; the kill happens a quarter of the way in.
			const entry = await append(i % 2 === 0 ? b : a, "terminate", `t${i + 1}`);
			if (++completed === N / 4) {
				terminated = admin<{ pid: number }[]>`
					select pg_terminate_backend(pid) as pid from pg_stat_activity
					where datname = current_database() and application_name = 'session-tree-listen' and query ilike 'listen%'`.then(
					(rows) => rows.length,
				);
			}
			return entry;
		});
		await within(WAIT, "the writes", writing);
		expect(await within(WAIT, "the kill", terminated ?? Promise.resolve(0))).toBe(2);

		const results = await within(WAIT, "every subscriber to reach the last seq", Promise.all(receiving));
		for (const r of results) expect(seqsOf(r)).toEqual(range(1, N));

		// The bus re-established LISTEN (and told its feeds to resync) on both instances.
		for (const server of [a, b]) {
			const bus = server.services.bus as PgListenBus;
			await waitUntil(
				`the listening connection is back (listenCount ${bus.listenCount})`,
				() => bus.listenCount >= 2,
			);
		}
		expect((a.services.bus as PgListenBus).listenCount).toBeGreaterThan(listensBefore);

		// And live delivery keeps working through the new connection.
		const after = TRANSPORTS.map((t) => open(a, t, { sessionId: "terminate" }));
		await subscriptionsReach(a, 4);
		await append(b, "terminate", "after-kill");
		const tails = await within(
			WAIT,
			"an entry written after the reconnect",
			Promise.all(after.map((c) => collect(c, () => true))),
		);
		for (const t of tails) expect(seqsOf(t)).toEqual([N + 1]);
	});

	it("entries whose notices were sent while the listener was down arrive after it reconnects, with no later write", async () => {
		const database = new URL(a.databaseUrl ?? "").pathname.slice(1);
		// Warms B's pooled connection: B keeps writing while new connections are refused.
		await createSession(b, "outage");
		const subs = TRANSPORTS.map((t) => open(a, t, { sessionId: "outage", afterSeq: 0 }));
		await subscriptionsReach(a, 2);
		const receiving = subs.map((c) => collect(c, (r) => eventOf(r).seq >= 10));
		const bus = a.services.bus as PgListenBus;
		const listensBefore = bus.listenCount;
		// A database cannot refuse connections while it is the caller's own: use the server's admin database.
		const server = postgres(inject("postgresUrl"), { max: 1, onnotice: () => {} });
		try {
			// The listening connections cannot come back until connections are allowed again,
			// so every NOTIFY of the writes below is sent while no instance listens.
			await server.unsafe(`alter database "${database}" with allow_connections false`);
			const killed = await admin`
				select pg_terminate_backend(pid) from pg_stat_activity
				where datname = current_database() and application_name = 'session-tree-listen' and query ilike 'listen%'`;
			expect(killed).toHaveLength(2);
			for (const i of range(1, 10)) await append(b, "outage", `o${i}`);
		} finally {
			await server.unsafe(`alter database "${database}" with allow_connections true`);
			await server.end({ timeout: 1 });
		}
		// No more writes: only the reconnect's resync can deliver them.
		const results = await within(WAIT, "entries written during the outage", Promise.all(receiving));
		for (const r of results) expect(seqsOf(r)).toEqual(range(1, 10));
		expect(bus.listenCount).toBeGreaterThan(listensBefore);
	});
});
