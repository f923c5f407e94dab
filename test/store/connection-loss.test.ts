/**
 * Losing the database under write load (issue 7, finding 11). postgres.js
 * 3.4.9 wrote to a socket it had already dropped, from a timer, when a
 * transaction's connection was lost (its ROLLBACK): an uncaught TypeError
 * that killed the process. So the service runs in a child process here, the
 * honest witness of such a crash, while eight clients append over HTTP and
 * the database goes away: its connections terminated with
 * pg_terminate_backend, or a private cluster restarted with `-m immediate`.
 * The process must stay up and keep serving; a write whose connection was
 * lost answers UNAVAILABLE, and a retry with the same entryId stores the
 * entry exactly once; live updates resume; no log line carries a payload.
 */

import { DrizzleQueryError } from "drizzle-orm/errors";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionError } from "../../src/session/errors.js";
import { openPostgres } from "../../src/store/postgres/open.js";
import { PgStore } from "../../src/store/postgres/store.js";
import { codedDatabaseError, isConnectionLoss } from "../../src/store/postgres/unavailable.js";
import { sseSubscribe } from "../events/clients.js";
import { eventOf, range, SESSION_EVENTS, waitUntil } from "../events/helpers.js";
import {
	clusterUser,
	type PrivateCluster,
	postgresBinaries,
	startPrivateCluster,
} from "../support/connection-loss-cluster.js";
import { type ServerProcess, startServerProcess } from "../support/connection-loss-process.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { within } from "../support/expect.js";

const WRITERS = 8;
/** In every entry written here; the service's log must never contain it. */
const MARKER = "connection-loss-payload";
const CREATE = "mutation($id: String!) { createSession(input: {sessionId: $id}) { sessionId } }";
const APPEND = `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { created entry { entryId seq } } }`;
const STORED = `query($id: String!) {
	session(sessionId: $id) { lastSeq entryCount leafId entries(first: 500) { totalCount edges { node { entryId } } } }
}`;

interface AppendData {
	appendEntry: { created: boolean; entry: { entryId: string; seq: number } };
}

interface StoredData {
	session: {
		lastSeq: number;
		entryCount: number;
		leafId: string | null;
		entries: { totalCount: number; edges: Array<{ node: { entryId: string } }> };
	};
}

const entryInput = (sessionId: string, entryId: string) => ({
	sessionId,
	entryId,
	entry: { message: { role: "user", content: `${MARKER} ${entryId}`, timestamp: 1_764_000_000_000 } },
});

/** One entry as a client wrote it: every answer it got until one was not UNAVAILABLE. */
interface Write {
	entryId: string;
	created: boolean[];
	unavailable: number;
}

interface Load {
	acknowledged: number;
	unavailable: number;
	/** Set to end the load, and by a writer that got an answer other than success or UNAVAILABLE. */
	stopped: boolean;
}

/** Retry after UNAVAILABLE as a client would: soon, with the same entryId. */
const RETRY_MS = 10;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Append with the same entryId until an answer is not UNAVAILABLE; any other error fails. */
async function appendUntilAnswered(
	server: ServerProcess,
	sessionId: string,
	entryId: string,
	load?: Load,
): Promise<Write & { seq: number }> {
	const write: Write = { entryId, created: [], unavailable: 0 };
	for (;;) {
		const answer = await server.request<AppendData>(APPEND, { input: entryInput(sessionId, entryId) });
		const appended = answer.data?.appendEntry;
		if (appended) {
			write.created.push(appended.created);
			if (load) load.acknowledged += 1;
			return { ...write, seq: appended.entry.seq };
		}
		if (answer.errors?.[0]?.extensions?.code !== "UNAVAILABLE")
			throw new Error(`append ${entryId}: ${JSON.stringify(answer.errors ?? answer)}`);
		write.unavailable += 1;
		if (load) load.unavailable += 1;
		await pause(RETRY_MS);
	}
}

/** `WRITERS` clients appending to their own session until `load.stopped`. */
function startWriters(server: ServerProcess, sessionIds: readonly string[], load: Load): Promise<Write[][]> {
	return Promise.all(
		sessionIds.map(async (sessionId, n) => {
			const writes: Write[] = [];
			try {
				for (let i = 0; !load.stopped; i++)
					writes.push(await appendUntilAnswered(server, sessionId, `w${n}-${i}`, load));
			} catch (error) {
				load.stopped = true;
				throw error;
			}
			return writes;
		}),
	);
}

async function createSessions(server: ServerProcess, prefix: string, count = WRITERS): Promise<string[]> {
	const ids = range(1, count).map((i) => `${prefix}-${i}`);
	for (const id of ids) {
		const created = await server.request(CREATE, { id });
		expect(created.errors).toBeUndefined();
	}
	return ids;
}

/**
 * Each session holds exactly the entries its client was answered for, once
 * each and in order, and its row agrees with them: no write was half done.
 */
async function expectStoredOnce(server: ServerProcess, sessionIds: readonly string[], writes: Write[][]) {
	for (const [n, sessionId] of sessionIds.entries()) {
		const mine = writes[n] ?? [];
		const stored = await server.request<StoredData>(STORED, { id: sessionId });
		expect(stored.errors).toBeUndefined();
		const session = stored.data?.session;
		const ids = session?.entries.edges.map((e) => e.node.entryId);
		expect(ids).toEqual(mine.map((w) => w.entryId));
		expect([session?.lastSeq, session?.entryCount, session?.leafId]).toEqual([
			mine.length,
			mine.length,
			mine.at(-1)?.entryId ?? null,
		]);
		for (const write of mine) {
			// Created by at most one answer; none when the commit of an attempt that answered UNAVAILABLE got through.
			expect(write.created.filter(Boolean).length, write.entryId).toBeLessThanOrEqual(1);
			if (write.unavailable === 0) expect(write.created, write.entryId).toEqual([true]);
		}
	}
}

/** Every seq of a session over SSE, resuming from the last one after UNAVAILABLE, until `target.seq`. */
async function follow(
	server: ServerProcess,
	sessionId: string,
	target: { seq: number },
): Promise<{ seqs: number[]; resumed: number }> {
	const seqs: number[] = [];
	for (let resumed = 0; resumed < 50; resumed++) {
		const client = sseSubscribe(server, SESSION_EVENTS, { sessionId, afterSeq: seqs.at(-1) ?? 0 });
		try {
			for (;;) {
				const next = await client.next();
				if (next.done) break;
				const code = next.value.errors?.[0]?.extensions?.code;
				if (code === "UNAVAILABLE") break;
				const { seq } = eventOf(next.value);
				seqs.push(seq);
				if (seq >= target.seq) return { seqs, resumed };
			}
		} finally {
			await client.close();
		}
	}
	throw new Error(`the subscription to ${sessionId} ended 50 times; seqs so far: ${seqs.join(",")}`);
}

/** The service's log must say nothing of what was written. */
function expectNoPayloadLogged(server: ServerProcess) {
	expect(server.log()).not.toContain(MARKER);
	expect(server.log()).not.toMatch(/unexpected error/);
}

describe("terminating the service's connections with pg_terminate_backend", () => {
	let database: TestDatabase;
	let server: ServerProcess;
	let admin: postgres.Sql;

	/** Terminate the service's backends (its pool and upkeep, with the listener its LISTEN connection); their pids. */
	const terminate = async (listener: boolean) => {
		const names = ["session-tree", "session-tree-upkeep", ...(listener ? ["session-tree-listen"] : [])];
		const rows = await admin<{ pid: number; terminated: boolean }[]>`
			select pid, pg_terminate_backend(pid) as terminated from pg_stat_activity
			where datname = ${database.name} and application_name in ${admin(names)}`;
		return rows.filter((r) => r.terminated).map((r) => r.pid);
	};

	beforeAll(async () => {
		database = await createTestDatabase();
		admin = postgres(database.url, { max: 2, onnotice: () => {} });
		server = await startServerProcess(database.url);
	});

	afterAll(async () => {
		await server?.stop();
		await admin?.end({ timeout: 1 });
		await database?.drop();
	});

	it("an append whose connection is terminated answers UNAVAILABLE; the same entryId then stores it exactly once", async () => {
		const [sessionId = ""] = await createSessions(server, "waiting", 1);
		let answer: Promise<Awaited<ReturnType<typeof server.request<AppendData>>>> | undefined;
		// The session row is locked, so the append waits inside its transaction until its backend is terminated.
		await admin.begin(async (tx) => {
			await tx`select id from sessions where id = ${sessionId} for update`;
			answer = server.request<AppendData>(APPEND, { input: entryInput(sessionId, "in-flight") });
			const blocked = await within(
				10_000,
				"the append to wait for the session lock",
				(async () => {
					for (;;) {
						const rows = await admin`
							select pid from pg_stat_activity
							where datname = ${database.name} and application_name = 'session-tree' and wait_event_type = 'Lock'`;
						if (rows.length > 0) return rows.length;
						await pause(5);
					}
				})(),
			);
			expect(blocked).toBe(1);
			expect((await terminate(false)).length).toBeGreaterThan(0);
			const lost = await within(10_000, "the answer to the append in flight", answer);
			expect(lost.data).toBeNull();
			expect(lost.errors?.map((e) => e.extensions?.code)).toEqual(["UNAVAILABLE"]);
			expect(lost.errors?.[0]?.message).toMatch(/database is unavailable.*retry/);
			expect(lost.errors?.[0]?.message).not.toContain(MARKER);
		});
		const retried = await server.request<AppendData>(APPEND, { input: entryInput(sessionId, "in-flight") });
		expect(retried.data?.appendEntry.created).toBe(true);
		const again = await server.request<AppendData>(APPEND, { input: entryInput(sessionId, "in-flight") });
		expect(again.data?.appendEntry.created).toBe(false);
		const stored = await server.request<StoredData>(STORED, { id: sessionId });
		expect(stored.data?.session.entries.edges.map((e) => e.node.entryId)).toEqual(["in-flight"]);
		expect(server.status()).toBe("running");
		expectNoPayloadLogged(server);
	});

	it("five rounds under eight writers: the process stays up, serves between rounds, and live updates resume", async () => {
		const ROUNDS = 5;
		const PER_ROUND = 16;
		const sessionIds = await createSessions(server, "load");
		const watched = sessionIds[0] ?? "";
		const target = { seq: Number.MAX_SAFE_INTEGER };
		const live = follow(server, watched, target);
		live.catch(() => {});
		const load: Load = { acknowledged: 0, unavailable: 0, stopped: false };
		const writing = startWriters(server, sessionIds, load);
		writing.catch(() => {});
		const killed: number[][] = [];
		try {
			for (let round = 0; round < ROUNDS; round++) {
				const wanted = load.acknowledged + PER_ROUND;
				// Serving again: the writers got answers since the last round (or one of them failed).
				await waitUntil(
					`${PER_ROUND} more appends (round ${round}, ${load.acknowledged} so far)`,
					() => load.acknowledged >= wanted || load.stopped,
					15_000,
				);
				if (load.stopped) break;
				killed.push(await terminate(true));
			}
		} finally {
			load.stopped = true;
		}
		const writes = await within(30_000, "the writers to finish", writing);
		expect(server.status(), server.log()).toBe("running");
		expect(killed).toHaveLength(ROUNDS);
		for (const pids of killed) expect(pids.length).toBeGreaterThan(0);
		// The terminations hit writes in flight, and those were answered UNAVAILABLE (and then retried).
		expect(load.unavailable).toBeGreaterThan(0);
		await expectStoredOnce(server, sessionIds, writes);

		// The listening connection was terminated too: it listens again, and a subscriber sees every entry in order.
		await within(
			10_000,
			"the listening connection to listen again",
			(async () => {
				for (;;) {
					const rows = await admin<{ pid: number }[]>`
						select pid from pg_stat_activity
						where datname = ${database.name} and application_name = 'session-tree-listen' and query ilike 'listen%'`;
					if (rows.some((r) => !killed.flat().includes(r.pid))) return;
					await pause(5);
				}
			})(),
		);
		const before = await server.request<StoredData>(STORED, { id: watched });
		const lastSeq = before.data?.session.lastSeq ?? 0;
		target.seq = lastSeq + 1;
		const sentinel = await appendUntilAnswered(server, watched, "sentinel");
		expect(sentinel.seq).toBe(lastSeq + 1);
		const { seqs } = await within(15_000, "every entry over SSE", live);
		expect(seqs).toEqual(range(1, lastSeq + 1));
		expectNoPayloadLogged(server);
	});
});

const bin = postgresBinaries();
const user = clusterUser();

describe.skipIf(!bin || !user)("restarting a private cluster with pg_ctl restart -m immediate", () => {
	let cluster: PrivateCluster;
	let server: ServerProcess;

	beforeAll(async () => {
		cluster = await startPrivateCluster(bin ?? "");
		server = await startServerProcess(cluster.url);
	});

	afterAll(async () => {
		await server?.stop();
		await cluster?.stop();
	});

	it("three immediate restarts under eight writers: the process stays up and serves after each", async () => {
		const ROUNDS = 3;
		const PER_ROUND = 16;
		const sessionIds = await createSessions(server, "restart");
		const load: Load = { acknowledged: 0, unavailable: 0, stopped: false };
		const writing = startWriters(server, sessionIds, load);
		writing.catch(() => {});
		try {
			for (let round = 0; round < ROUNDS; round++) {
				const wanted = load.acknowledged + PER_ROUND;
				await waitUntil(
					`${PER_ROUND} more appends (round ${round}, ${load.acknowledged} so far)`,
					() => load.acknowledged >= wanted || load.stopped,
					15_000,
				);
				if (load.stopped) break;
				await cluster.restart("immediate");
			}
			const wanted = load.acknowledged + PER_ROUND;
			await waitUntil(
				`${PER_ROUND} appends after the last restart`,
				() => load.acknowledged >= wanted || load.stopped,
				15_000,
			);
		} finally {
			load.stopped = true;
		}
		const writes = await within(30_000, "the writers to finish", writing);
		expect(server.status(), server.log()).toBe("running");
		expect(load.unavailable).toBeGreaterThan(0);
		await expectStoredOnce(server, sessionIds, writes);
		expectNoPayloadLogged(server);
	});
});

describe("connection loss as UNAVAILABLE", () => {
	const closed = Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), {
		code: "CONNECTION_CLOSED",
	});

	it("is recognised through Drizzle's wrapper, and the error it becomes carries no SQL, parameters or cause", () => {
		const wrapped = new DrizzleQueryError("insert into entries values ($1)", [`${MARKER} secret`], closed);
		expect(wrapped.message).toContain(MARKER);
		expect(isConnectionLoss(wrapped)).toBe(true);
		const mapped = codedDatabaseError(wrapped);
		expect(mapped).toBeInstanceOf(SessionError);
		expect((mapped as SessionError).code).toBe("UNAVAILABLE");
		expect((mapped as SessionError).message).toBe("The database is unavailable (CONNECTION_CLOSED); retry");
		expect((mapped as SessionError).cause).toBeUndefined();
		expect(JSON.stringify(mapped)).not.toContain(MARKER);
	});

	it("covers the server's shutdown, startup and connection-exception SQLSTATEs as UNAVAILABLE, a statement timeout as LIMIT_EXCEEDED, and nothing else", () => {
		const coded = (code: string) => Object.assign(new Error(code), { code });
		for (const code of ["57P01", "57P02", "57P03", "08006", "08001", "ECONNREFUSED", "ECONNRESET", "EPIPE"])
			expect(isConnectionLoss(coded(code)), code).toBe(true);
		for (const code of ["23505", "40001", "25P02", "ENOENT"]) {
			expect(isConnectionLoss(coded(code)), code).toBe(false);
			const error = coded(code);
			expect(codedDatabaseError(error)).toBe(error);
		}
		// A statement cancelled by the statement timeout is over a limit; a server out of disk or memory is unavailable.
		expect(isConnectionLoss(coded("57014"))).toBe(false);
		expect(codedDatabaseError(coded("57014"))).toMatchObject({ code: "LIMIT_EXCEEDED" });
		expect(codedDatabaseError(coded("53100"))).toMatchObject({ code: "UNAVAILABLE" });
		const own = new SessionError("NOT_FOUND", "Session x not found", { cause: closed });
		expect(codedDatabaseError(own)).toBe(own);
		expect(isConnectionLoss("CONNECTION_CLOSED")).toBe(false);
	});

	it("the Postgres store keeps its class, backend, db and upkeep behind the mapping", async () => {
		const database = await createTestDatabase();
		const store = await openPostgres(database.url);
		try {
			expect(store).toBeInstanceOf(PgStore);
			expect(store.backend).toBe("postgres");
			expect(store.db).toBeDefined();
			await store.analyze();
			expect(store.appendEntry).toBe(store.appendEntry);
			await expect(store.getSession("default", "missing")).resolves.toBeNull();
		} finally {
			await store.close();
			await database.drop();
		}
	});
});
