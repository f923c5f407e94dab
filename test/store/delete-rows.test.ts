/**
 * Deleting a session on Postgres, counted in the tables themselves: no row
 * of its key is left in any table that holds session rows, and the entries
 * trigger still refuses every other change (a DELETE outside deleteSession,
 * one that names another session's key, an UPDATE, a TRUNCATE).
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/store/postgres/open.js";
import type { SessionStore } from "../../src/store/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

const ws = "ws-delete-rows";
const assistant = (text: string) => ({
	type: "message",
	message: {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "p",
		model: "m",
		usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0.1 } },
		stopReason: "stop",
		timestamp: 1,
	},
});

/** The tables that hold rows of a session, by its key. */
const KEYED = ["entries", "usage_rollups", "assistant_turns", "activity_log"] as const;

describe("deleting a session on Postgres, counted in every table", () => {
	let database: TestDatabase;
	let store: SessionStore;
	let sql: postgres.Sql;

	beforeAll(async () => {
		database = await createTestDatabase();
		store = await openPostgres(database.url);
		sql = postgres(database.url, { max: 1, onnotice: () => {} });
	});
	afterAll(async () => {
		await sql?.end();
		await store?.close();
		await database?.drop();
	});

	async function seeded(sessionId: string): Promise<number> {
		await store.createSession(ws, { sessionId });
		for (let i = 0; i < 3; i++) await store.appendEntry(ws, sessionId, assistant(`${sessionId} ${i}`));
		const [row] = await sql<
			{ key: number }[]
		>`select key from sessions where workspace_id = ${ws} and id = ${sessionId}`;
		if (!row) throw new Error("no session row");
		return row.key;
	}

	async function rowsOf(key: number): Promise<Record<string, number>> {
		const counts: Record<string, number> = {};
		for (const table of [...KEYED, "sessions"] as const) {
			const column = table === "sessions" ? "key" : "session_key";
			const [row] = await sql<
				{ n: number }[]
			>`select count(*)::integer as n from ${sql(table)} where ${sql(column)} = ${key}`;
			counts[table] = row?.n ?? -1;
		}
		return counts;
	}

	it("leaves no row of the session's key in any table, and the other session's rows as they were", async () => {
		const doomed = await seeded("doomed");
		const kept = await seeded("kept");
		const keptBefore = await rowsOf(kept);
		expect(await rowsOf(doomed)).toEqual({
			entries: 3,
			usage_rollups: 1,
			assistant_turns: 3,
			activity_log: 4,
			sessions: 1,
		});
		await store.deleteSession(ws, "doomed");
		expect(await rowsOf(doomed)).toEqual({
			entries: 0,
			usage_rollups: 0,
			assistant_turns: 0,
			activity_log: 0,
			sessions: 0,
		});
		expect(await rowsOf(kept)).toEqual(keptBefore);
	});

	it("the entries trigger refuses a DELETE outside deleteSession, one naming another key, an UPDATE and a TRUNCATE", async () => {
		const key = await seeded("guarded");
		const other = await seeded("bystander");
		const refused = async (statement: (tx: postgres.TransactionSql) => Promise<unknown>) => {
			const error = await sql.begin(statement).then(
				() => null,
				(e: unknown) => e as { code?: string; message?: string },
			);
			expect(error?.code).toBe("23001");
			expect(error?.message).toMatch(/append-only/);
		};
		await refused((tx) => tx`delete from entries where session_key = ${key}`);
		await refused(async (tx) => {
			await tx`select set_config('session_tree.deleting_session', ${String(other)}, true)`;
			await tx`delete from entries where session_key = ${key}`;
		});
		await refused(async (tx) => {
			await tx`select set_config('session_tree.deleting_session', ${String(key)}, true)`;
			await tx`update entries set type = 'x' where session_key = ${key}`;
		});
		await refused(async (tx) => {
			await tx`select set_config('session_tree.deleting_session', ${String(key)}, true)`;
			await tx`truncate entries cascade`;
		});
		// The setting lasts one transaction: the next one is refused again.
		await refused((tx) => tx`delete from entries where session_key = ${key}`);
		expect((await rowsOf(key)).entries).toBe(3);
		expect((await rowsOf(other)).entries).toBe(3);
	});
});
