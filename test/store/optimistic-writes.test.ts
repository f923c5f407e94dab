/**
 * Tree writes on Postgres are optimistic (src/store/postgres/writes.ts): a
 * plan made on a snapshot commits only if the session did not move, and a
 * process remembers the rows its own commits leave. These cases are what
 * several server processes on one database would see: two stores (two
 * pools) write the same session, each with a memory the other makes stale.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSessionError } from "../../src/session/errors.js";
import { openPostgres } from "../../src/store/postgres/open.js";
import type { SessionStore } from "../../src/store/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { rejectsWithCode } from "../support/expect.js";

const ws = "ws-optimistic";
const user = (text: string) => ({ type: "message", message: { role: "user", content: text } }) as const;

describe("optimistic tree writes on Postgres, two processes on one database", () => {
	let database: TestDatabase;
	let a: SessionStore;
	let b: SessionStore;
	/** Statements store `a` sent while `counting`. */
	let statements: string[] = [];
	let counting = false;

	beforeAll(async () => {
		database = await createTestDatabase();
		a = await openPostgres(database.url, {
			onQuery: (query) => {
				if (counting) statements.push(query);
			},
		});
		b = await openPostgres(database.url);
	});
	afterAll(async () => {
		await a?.close();
		await b?.close();
		await database?.drop();
	});

	async function countStatements(work: () => Promise<unknown>): Promise<number> {
		statements = [];
		counting = true;
		try {
			await work();
		} finally {
			counting = false;
		}
		return statements.length;
	}

	/** The log is one chain: seqs 1..n, each entry's parent the one before it, the leaf the last. */
	async function expectOneChain(store: SessionStore, sessionId: string, n: number) {
		const log = await store.listEntries(ws, sessionId);
		expect(log.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
		log.forEach((e, i) => {
			expect(e.entry.parentId).toBe(i === 0 ? null : log[i - 1]?.entry.id);
			expect(e.depth).toBe(i);
		});
		const session = await store.getSession(ws, sessionId);
		expect(session).toMatchObject({
			lastSeq: n,
			entryCount: n,
			leafId: log[n - 1]?.entry.id,
			leafDepth: n - 1,
		});
	}

	it("concurrent appends from both processes to one session make one chain, none lost or doubled", async () => {
		await a.createSession(ws, { sessionId: "race" });
		const results = await Promise.all(
			Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).appendEntry(ws, "race", user(`m${i}`))),
		);
		expect(new Set(results.map((r) => r.entry.seq)).size).toBe(60);
		await expectOneChain(a, "race", 60);
		await expectOneChain(b, "race", 60);
	});

	it("a session the other process archived refuses this process's write, though it remembers the row as active", async () => {
		await a.createSession(ws, { sessionId: "archived-elsewhere" });
		await a.appendEntry(ws, "archived-elsewhere", user("remembered"));
		await b.setArchived(ws, "archived-elsewhere", true);
		await rejectsWithCode(a.appendEntry(ws, "archived-elsewhere", user("too late")), "ARCHIVED");
		await expectOneChain(b, "archived-elsewhere", 1);
		// Appends racing the archive either land before it or are refused: never after it.
		await b.setArchived(ws, "archived-elsewhere", false);
		const racing = await Promise.allSettled([
			...Array.from({ length: 20 }, (_, i) => a.appendEntry(ws, "archived-elsewhere", user(`r${i}`))),
			b.setArchived(ws, "archived-elsewhere", true),
		]);
		const landed = racing.slice(0, 20).filter((r) => r.status === "fulfilled").length;
		for (const r of racing.slice(0, 20))
			if (r.status === "rejected") expect((r.reason as { code?: string }).code).toBe("ARCHIVED");
		await expectOneChain(b, "archived-elsewhere", 1 + landed);
		await rejectsWithCode(a.appendEntry(ws, "archived-elsewhere", user("after")), "ARCHIVED");
	});

	it("a session the other process deleted and created again under its id is a new one to this process's writes", async () => {
		await a.createSession(ws, { sessionId: "reborn" });
		for (let i = 0; i < 3; i++) await a.appendEntry(ws, "reborn", user(`old ${i}`));
		await b.deleteSession(ws, "reborn");
		await b.createSession(ws, { sessionId: "reborn" });
		const fresh = [];
		for (let i = 0; i < 3; i++) fresh.push(await b.appendEntry(ws, "reborn", user(`new ${i}`)));
		// Same id, same last seq as the session `a` remembers: still another session.
		const next = await a.appendEntry(ws, "reborn", user("after"));
		expect(next.entry.entry.parentId).toBe(fresh[2]?.entry.entry.id);
		await expectOneChain(b, "reborn", 4);
	});

	it("a write after the other process wrote plans on the session as it is, not as this process last left it", async () => {
		await a.createSession(ws, { sessionId: "stale" });
		const first = await a.appendEntry(ws, "stale", user("from a"));
		const fromB = await b.appendEntry(ws, "stale", user("from b"));
		await b.renameSession(ws, "stale", "renamed by b");

		// a remembers the session at seq 1; the leaf is now b's rename.
		const leaf = (await b.getSession(ws, "stale"))?.leafId;
		const next = await a.appendEntry(ws, "stale", user("a again"), { expectedLeafId: leaf ?? null });
		expect(next.entry.entry.parentId).toBe(leaf);
		expect(next.entry.seq).toBe(4);
		expect(next.session).toMatchObject({ name: "renamed by b", lastSeq: 4, entryCount: 4 });
		expect(fromB.entry.entry.parentId).toBe(first.entry.entry.id);
	});

	it("LEAF_CONFLICT names the session's real leaf, not the one this process remembers, and writes nothing", async () => {
		await a.createSession(ws, { sessionId: "conflict" });
		const mine = await a.appendEntry(ws, "conflict", user("a"));
		const theirs = await b.appendEntry(ws, "conflict", user("b"));
		const error = await a
			.appendEntry(ws, "conflict", user("late"), { expectedLeafId: mine.entry.entry.id })
			.then(
				() => null,
				(e: unknown) => e,
			);
		expect(isSessionError(error, "LEAF_CONFLICT")).toBe(true);
		expect((error as Error).message).toContain(theirs.entry.entry.id);
		expect((await a.getSession(ws, "conflict"))?.lastSeq).toBe(2);

		// And with the leaf it really is, the same process succeeds.
		const ok = await a.appendEntry(ws, "conflict", user("on time"), {
			expectedLeafId: theirs.entry.entry.id,
		});
		expect(ok.entry.seq).toBe(3);
	});

	it("a re-sent entry another process stored is answered from the store, not written twice", async () => {
		await a.createSession(ws, { sessionId: "resend" });
		await a.appendEntry(ws, "resend", user("warm"));
		const sent = await b.appendEntry(ws, "resend", { ...user("once"), id: "fixed-id" });
		const again = await a.appendEntry(ws, "resend", { ...user("once"), id: "fixed-id" });
		expect(again.created).toBe(false);
		expect(again.entry.seq).toBe(sent.entry.seq);
		expect((await a.getSession(ws, "resend"))?.entryCount).toBe(2);
	});

	it("an append on a session this process wrote last is one statement; a first one reads the row, then commits", async () => {
		await b.createSession(ws, { sessionId: "trips" });
		expect(await countStatements(() => a.appendEntry(ws, "trips", user("first from a")))).toBe(2);
		expect(await countStatements(() => a.appendEntry(ws, "trips", user("second from a")))).toBe(1);
		await b.appendEntry(ws, "trips", user("from b"));
		// The remembered row is stale: the conditional commit fails, a fresh read and a commit follow.
		expect(await countStatements(() => a.appendEntry(ws, "trips", user("after b")))).toBe(3);
		await expectOneChain(a, "trips", 4);
	});

	it("under a write storm from the other process, a write still lands (it falls back to the row lock)", async () => {
		await a.createSession(ws, { sessionId: "storm" });
		let stop = false;
		const storm = (async () => {
			let n = 0;
			while (!stop) await b.appendEntry(ws, "storm", user(`storm ${n++}`));
			return n;
		})();
		try {
			for (let i = 0; i < 20; i++) await a.appendEntry(ws, "storm", user(`steady ${i}`));
		} finally {
			stop = true;
		}
		const stormed = await storm;
		await expectOneChain(a, "storm", 20 + stormed);
	});

	it("a session that does not exist is NOT_FOUND from a fresh read, whatever was remembered", async () => {
		const error = await a.appendEntry(ws, "never-created", user("x")).then(
			() => null,
			(e: unknown) => e,
		);
		expect(isSessionError(error, "NOT_FOUND")).toBe(true);
		// Another workspace's session of that id is not this workspace's.
		await b.createSession("ws-other", { sessionId: "elsewhere" });
		const other = await a.appendEntry(ws, "elsewhere", user("x")).then(
			() => null,
			(e: unknown) => e,
		);
		expect(isSessionError(other, "NOT_FOUND")).toBe(true);
	});
});
