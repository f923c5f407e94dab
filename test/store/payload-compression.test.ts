/**
 * Entry payloads are compressed with LZ4 where the server has it
 * (drizzle/0010_payload_lz4.sql), else with the server's default, and a
 * large payload stored either way reads back as it was written. On Postgres
 * only: PGlite has no LZ4, and every PGlite test runs the migration.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/store/postgres/open.js";
import type { PgStore } from "../../src/store/postgres/store.js";
import { createTestDatabase } from "../support/databases.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
	for (const cleanup of cleanups.reverse()) await cleanup();
});

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

async function rows<T>(store: PgStore, query: ReturnType<typeof sql>): Promise<T[]> {
	const result = (await store.db.execute(query)) as unknown;
	return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

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
] as const)("entry payload compression on %s", (_, open) => {
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
