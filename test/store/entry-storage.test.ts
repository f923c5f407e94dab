/**
 * The planner statistics the store's own ANALYZE keeps (postgres/upkeep.ts):
 * the entry columns plans estimate from, and not the payload or the search
 * index's expression (drizzle/0011_entry_statistics.sql), whose per-row text
 * made an ANALYZE 50 times slower while no plan could use it; and a search
 * index that grows by its entries, not by GIN's pending list
 * (drizzle/0012_search_index_fastupdate.sql); payloads compressed with LZ4
 * where the server has it, else with its default (drizzle/0010_payload_lz4.sql,
 * PGlite has none), a large one read back as written. On Postgres and
 * PGlite, both of which run the migrations.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite, openPostgres } from "../../src/store/postgres/open.js";
import { executeRows } from "../../src/store/postgres/statements.js";
import type { PgStore } from "../../src/store/postgres/store.js";
import { createTestDatabase } from "../support/databases.js";
import { freshPgliteDirectory } from "../support/pglite-directories.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
	for (const cleanup of cleanups.reverse()) await cleanup();
});

const rows = <T>(store: PgStore, query: ReturnType<typeof sql>) => executeRows<T>(store.db, query);

const FIXTURE = join(
	import.meta.dirname,
	"..",
	"..",
	"..",
	"shared",
	"fixtures",
	"pi",
	"large-session.v1.jsonl",
);

/** Whether the server can compress with LZ4 at all (a setting it refuses otherwise). */
async function hasLz4(store: PgStore): Promise<boolean> {
	try {
		await store.db.transaction(async (tx) => {
			await tx.execute(sql`set local default_toast_compression = 'lz4'`);
		});
		return true;
	} catch {
		return false;
	}
}

/** A session of user messages with text the search index covers. */
function sessionFile(entries: number): string {
	const lines = [
		JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-06-01T00:00:00.000Z" }),
	];
	for (let i = 0; i < entries; i++)
		lines.push(
			JSON.stringify({
				type: "message",
				id: `e${i}`,
				parentId: i === 0 ? null : `e${i - 1}`,
				timestamp: "2026-06-01T00:00:00.000Z",
				message: { role: "user", content: `question ${i} about the parser`, timestamp: 0 },
			}),
		);
	return `${lines.join("\n")}\n`;
}

describe.each([
	[
		"postgres",
		async () => {
			const database = await createTestDatabase();
			const store = await openPostgres(database.url);
			cleanups.push(
				() => database.drop(),
				() => store.close(),
			);
			return store;
		},
	],
	[
		"pglite",
		async () => {
			const dir = freshPgliteDirectory();
			const store = await openPglite(dir);
			cleanups.push(
				async () => rmSync(dir, { recursive: true, force: true }),
				() => store.close(),
			);
			return store;
		},
	],
] as const)("entry storage on %s", (_, open) => {
	it("covers the keys plans use, not the payload or the search text", async () => {
		const store = await open();
		await store.importSession("ws", sessionFile(200), { sessionId: "s" });
		await store.analyze();
		const columns = await rows<{ column: string }>(
			store,
			sql`select attname::text as column from pg_stats where tablename = 'entries' order by 1`,
		);
		const analyzed = columns.map((c) => c.column);
		expect(analyzed).toEqual(expect.arrayContaining(["session_key", "id", "parent_id", "seq", "type"]));
		expect(analyzed).not.toContain("payload");
		// An expression index's statistics are stored under the index's name.
		const search = await rows<{ n: number }>(
			store,
			sql`select count(*)::integer as n from pg_stats where tablename = 'entries_search'`,
		);
		expect(search[0]?.n).toBe(0);
	});

	it("keeps the search index as compact as one built at once", async () => {
		const store = await open();
		for (let i = 0; i < 4; i++) await store.importSession("ws", sessionFile(500), { sessionId: `s${i}` });
		const size = async () => {
			await store.db.execute(sql`vacuum entries`);
			const [row] = await rows<{ bytes: number }>(
				store,
				sql`select pg_relation_size('entries_search')::integer as bytes`,
			);
			return row?.bytes ?? 0;
		};
		const inserted = await size();
		await store.db.execute(sql`reindex index entries_search`);
		expect(inserted).toBeLessThanOrEqual(1.5 * (await size()));
	});

	it("is LZ4 where the server has it, and a large session reads back as written", async () => {
		const store = await open();
		const [column] = await rows<{ method: string }>(
			store,
			sql`select attcompression::text as method from pg_attribute
				where attrelid = 'entries'::regclass and attname = 'payload'`,
		);
		expect(column?.method).toBe((await hasLz4(store)) ? "l" : "");

		const file = readFileSync(FIXTURE, "utf8");
		await store.importSession("ws", file, { sessionId: "large" });
		const [compressed] = await rows<{ n: number }>(
			store,
			sql`select count(*)::integer as n from entries where pg_column_compression(payload) is not null`,
		);
		expect(compressed?.n).toBeGreaterThan(0);
		// The largest tool output of the file (compressed either way) reads back as it was written.
		const texts = file
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => (JSON.parse(line) as { message?: { content?: Array<{ text?: unknown }> } }).message)
			.flatMap((message) => (Array.isArray(message?.content) ? message.content : []))
			.map((part) => part.text)
			.filter((text): text is string => typeof text === "string");
		const largest = texts.reduce((a, b) => (b.length > a.length ? b : a), "");
		expect(largest.length).toBeGreaterThan(10_000);
		const stored = (await store.listEntries("ws", "large")).flatMap((e) => {
			const message = (e.entry as { message?: { content?: unknown } }).message;
			return Array.isArray(message?.content) ? (message.content as Array<{ text?: unknown }>) : [];
		});
		expect(stored.filter((part) => part.text === largest)).toHaveLength(
			texts.filter((t) => t === largest).length,
		);
	});
});
