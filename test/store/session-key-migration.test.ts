/**
 * Upgrading a database written before entries carried their session's key
 * (drizzle/0004_session_key.sql): every entry keeps its session, and the
 * store reads and writes them as before; its rollups (0005) are made from
 * the log when the store opens. The database is first migrated to
 * the version before (0003) and filled in that version's shape, on Postgres
 * and on PGlite, then the store opens it and applies the rest.
 */
import { describe, expect, it } from "vitest";
import type { PgStore } from "../../src/store/postgres/store.js";
import type { SessionStore } from "../../src/store/store.js";
import { checkUpgrade } from "../support/upgrade-from.js";

const BEFORE = "0003_narrow_secondary_indexes";
/** Two workspaces, each with a session "s" of a three-entry chain plus a label, in the old shape. */
const OLD_ROWS = ["ws-a", "ws-b"].flatMap((ws) => [
	`insert into sessions (workspace_id, id, created_at, updated_at, leaf_id, leaf_depth, last_seq, entry_count)
		values ('${ws}', 's', '2026-01-01T00:00:00Z', '2026-01-01T00:00:04Z', '${ws}-3', 2, 4, 4)`,
	...[1, 2, 3].map(
		(
			n,
		) => `insert into entries (workspace_id, session_id, seq, id, parent_id, type, timestamp, depth, payload)
			values ('${ws}', 's', ${n}, '${ws}-${n}', ${n === 1 ? "null" : `'${ws}-${n - 1}'`}, 'message',
				'2026-01-01T00:00:0${n}Z', ${n - 1}, '{"message":{"role":"user","content":"${ws} ${n}","timestamp":1}}')`,
	),
	`insert into entries (workspace_id, session_id, seq, id, parent_id, type, timestamp, depth, payload)
		values ('${ws}', 's', 4, '${ws}-label', '${ws}-3', 'label', '2026-01-01T00:00:04Z', 3,
			'{"targetId":"${ws}-2","label":"kept"}')`,
]);

/** Entries, messages and labels of a workspace, as its metrics (rollups) count them. */
async function counted(store: SessionStore, ws: string) {
	const { rows } = await store.metrics(ws, {
		measures: ["entries", "messages", "labels", "activeSessions"],
		dimensions: [],
		granularity: "day",
		timeZone: "UTC",
		filter: {},
		orderBy: [],
		limit: 10,
	});
	return rows[0]?.values;
}

async function expectUpgraded(store: PgStore) {
	// Rollups came after this data: opening made them from the log (drizzle/0005_usage_rollups.sql).
	for (const ws of ["ws-a", "ws-b"])
		expect(await counted(store, ws)).toEqual({ entries: 4, messages: 3, labels: 1, activeSessions: 1 });
	// A full rebuild is idempotent.
	expect(await store.rebuildRollups()).toBe(2);
	expect(await counted(store, "ws-a")).toEqual({ entries: 4, messages: 3, labels: 1, activeSessions: 1 });
	for (const ws of ["ws-a", "ws-b"]) {
		const log = await store.listEntries(ws, "s");
		expect(log.map((e) => [e.seq, e.entry.id, e.sessionId])).toEqual([
			[1, `${ws}-1`, "s"],
			[2, `${ws}-2`, "s"],
			[3, `${ws}-3`, "s"],
			[4, `${ws}-label`, "s"],
		]);
		expect((await store.activePath(ws, "s")).map((e) => e.entry.id)).toEqual([
			`${ws}-1`,
			`${ws}-2`,
			`${ws}-3`,
		]);
		expect(await store.labels(ws, "s", [`${ws}-2`])).toEqual(new Map([[`${ws}-2`, "kept"]]));
		const appended = await store.appendEntry(ws, "s", {
			type: "message",
			message: { role: "user", content: "after the upgrade" },
		} as never);
		expect(appended.entry).toMatchObject({ seq: 5, depth: 3, entry: { parentId: `${ws}-3` } });
		expect(await counted(store, ws)).toEqual({ entries: 5, messages: 4, labels: 1, activeSessions: 1 });
	}
	// The workspaces' sessions of the same id stay apart.
	expect((await store.listEntries("ws-a", "s")).some((e) => e.entry.id.startsWith("ws-b"))).toBe(false);
}

describe("the session-key migration keeps every entry with its session", () => {
	it.each([
		["on Postgres", "postgres"],
		["on PGlite", "pglite"],
	] as const)("%s", (_, backend) => checkUpgrade(backend, BEFORE, OLD_ROWS, expectUpgraded));
});
