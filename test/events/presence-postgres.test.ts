/**
 * Presence across two instances on one Postgres database (LISTEN/NOTIFY on
 * `session_tree_presence`, src/events/pg-presence.ts), on the real clock
 * with a short heartbeat and TTL: a viewer on one instance is seen on the
 * other, a focus set through the other reaches it, an instance whose
 * connections end without a word has its viewers expire, and a killed
 * listening connection re-listens and re-announces.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgPresenceTransport, PRESENCE_CHANNEL } from "../../src/events/pg-presence.js";
import { PresenceHub } from "../../src/events/presence.js";
import type { Viewer } from "../../src/events/presence-transport.js";
import { silentLogger } from "../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { within } from "../support/expect.js";
import { waitUntil } from "./helpers.js";

const WAIT = 10_000;
const HEARTBEAT = 100;
const TTL = 400;

/** The next list that satisfies `ok` (lists in between are skipped). */
async function listWhere(
	watch: AsyncIterator<readonly Viewer[]>,
	what: string,
	ok: (list: readonly Viewer[]) => boolean,
): Promise<readonly Viewer[]> {
	return within(
		WAIT,
		what,
		(async () => {
			for (;;) {
				const r = await watch.next();
				if (r.done) throw new Error(`${what}: the watch ended`);
				if (ok(r.value)) return r.value;
			}
		})(),
	);
}

describe("presence across two instances on Postgres", () => {
	let database: TestDatabase;
	let admin: postgres.Sql;
	const transports: PgPresenceTransport[] = [];
	const hubs: PresenceHub[] = [];

	const instance = async () => {
		const transport = await PgPresenceTransport.open(database.url, silentLogger);
		transports.push(transport);
		const hub = new PresenceHub({ transport, logger: silentLogger, heartbeatMs: HEARTBEAT, ttlMs: TTL });
		hubs.push(hub);
		return { transport, hub };
	};

	beforeAll(async () => {
		database = await createTestDatabase();
		admin = postgres(database.url, { max: 1, onnotice: () => {} });
	});

	afterAll(async () => {
		for (const hub of hubs) hub.close();
		await Promise.all(transports.map((t) => t.close()));
		await admin?.end({ timeout: 1 });
		await database?.drop();
	});

	it("joins, focus changes (set on either instance) and leaves reach the other instance", async () => {
		const a = await instance();
		const b = await instance();
		const listeners = await admin<{ query: string }[]>`
			select query from pg_stat_activity
			where datname = current_database() and query ilike 'listen%'`;
		expect(listeners.map((r) => r.query)).toEqual([
			`listen "${PRESENCE_CHANNEL}"`,
			`listen "${PRESENCE_CHANNEL}"`,
		]);

		const watch = b.hub.watch("ws", "s");
		const ann = a.hub.join("ws", "s", { subject: "ann", focusEntryId: "e1" });
		// Another workspace's viewer, announced first: it must never show up in ws's list.
		a.hub.join("other", "s", { subject: "eve", focusEntryId: null });
		const joined = await listWhere(watch, "ann on B", (l) => l.length > 0);
		expect(joined.map((v) => [v.viewerId, v.subject, v.focusEntryId])).toEqual([[ann.viewerId, "ann", "e1"]]);

		ann.update("e2");
		await listWhere(watch, "ann's focus on B", (l) => l[0]?.focusEntryId === "e2");
		// Set through B (where the viewer is remote): B asks A, A announces.
		b.hub.focus("ws", "s", ann.viewerId, "ann", "e3");
		await waitUntil("A applies B's focus request", () => a.hub.viewers("ws", "s")[0]?.focusEntryId === "e3");
		await listWhere(watch, "the focus set through B", (l) => l[0]?.focusEntryId === "e3");

		ann.leave();
		await listWhere(watch, "ann's leave", (l) => l.length === 0);
		await watch.return?.();
		expect(b.hub.viewers("other", "s").map((v) => v.subject)).toEqual(["eve"]);
		expect(b.hub.watcherCount).toBe(0);
	});

	it("a killed listening connection re-listens and the viewers come back; an instance that vanishes has its viewers expire after the TTL", async () => {
		const a = await instance();
		const b = await instance();
		let asksFromB = 0;
		a.transport.subscribe({
			message: (m) => {
				if (m.kind === "ask" && m.from === b.hub.instanceId) asksFromB += 1;
			},
			relistened: () => {},
		});
		const watch = b.hub.watch("ws", "vanish");
		a.hub.join("ws", "vanish", { subject: "ann", focusEntryId: null });
		await listWhere(watch, "ann on B", (l) => l.length === 1);

		// Kill B's listening connection: postgres.js reconnects and LISTENs again.
		const killed = await admin<{ pid: number }[]>`
			select pg_terminate_backend(pid) from (
				select pid from pg_stat_activity
				where datname = current_database() and application_name = 'session-tree-presence-listen'
				order by backend_start desc limit 1) as newest`;
		expect(killed).toHaveLength(1);
		await waitUntil("B listens again", () => b.transport.listenCount === 2, WAIT);
		// B, having maybe missed messages, asks the others to re-announce (its first ask was at its start).
		await waitUntil("B's second ask reaches A", () => asksFromB >= 2, WAIT);
		const late = a.hub.join("ws", "vanish", { subject: "bob", focusEntryId: null });
		await listWhere(watch, "bob after B re-listened", (l) => l.some((v) => v.viewerId === late.viewerId));

		// A's connections end without a leave: B hears nothing more and expires A's viewers after the TTL.
		const started = Date.now();
		await a.transport.close();
		await listWhere(watch, "A's viewers expiring", (l) => l.length === 0);
		const elapsed = Date.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(TTL - 2 * HEARTBEAT);
		expect(elapsed).toBeLessThan(TTL + TTL / 4 + 1000);
		await watch.return?.();
		// What B still tracks is the first test's live instance's viewer in another workspace, nothing of A's.
		expect(b.hub.viewers("ws", "vanish")).toEqual([]);
		expect(b.hub.viewers("other", "s").map((v) => v.subject)).toEqual(["eve"]);
		expect([b.hub.sessionCount, b.hub.watcherCount]).toEqual([1, 0]);
	});
});
