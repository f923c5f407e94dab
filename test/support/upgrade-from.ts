/**
 * Upgrading a database an older version left behind, for the tests of a
 * migration: the database is migrated only up to the migration before the
 * one under test (a copy of the migrations folder, its journal cut there),
 * filled with rows in that version's shape, then opened by the current store,
 * which applies the migrations after it exactly as it does in production.
 * On Postgres (an empty database of the test server) and on PGlite (a copy
 * of the run's directory before any migration: the migrated template would
 * already be past the cut).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { MIGRATIONS_DIR, openPglite, openPostgres } from "../../src/store/postgres/open.js";
import { pgliteWasmModule } from "../../src/store/postgres/pglite-wasm.js";
import type { PgStore } from "../../src/store/postgres/store.js";
import { createTestDatabase } from "./databases.js";
import { emptyPgliteDirectory } from "./pglite-directories.js";

interface UpgradedStore {
	/** The current store, opened on the older database (every later migration applied). */
	store: PgStore;
	/** Closes the store and removes the database or directory. */
	close(): Promise<void>;
}

/** The migrations folder as it was up to `last` (a copy, its journal cut there), and how to remove it. */
function migrationsUpTo(last: string): { dir: string; remove(): void } {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-migrations-"));
	const remove = () => rmSync(dir, { recursive: true, force: true });
	try {
		cpSync(MIGRATIONS_DIR, dir, { recursive: true });
		const journalPath = join(dir, "meta", "_journal.json");
		const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
		const end = journal.entries.findIndex((e) => e.tag === last);
		// A misspelt tag must not quietly migrate nothing (or everything).
		if (end < 0) throw new Error(`no migration ${last} in ${MIGRATIONS_DIR}`);
		journal.entries = journal.entries.slice(0, end + 1);
		writeFileSync(journalPath, JSON.stringify(journal));
	} catch (error) {
		remove();
		throw error;
	}
	return { dir, remove };
}

/**
 * A `backend` database migrated up to `lastMigration` (a tag of drizzle's
 * journal, e.g. "0008_workspace_rollups"), given `oldRows` (SQL statements in
 * that version's shape, run in order), then opened by the current store.
 */
async function upgradeFrom(
	backend: "postgres" | "pglite",
	lastMigration: string,
	oldRows: readonly string[],
): Promise<UpgradedStore> {
	const migrations = migrationsUpTo(lastMigration);
	try {
		if (backend === "postgres") {
			const database = await createTestDatabase({ empty: true });
			try {
				const sql = postgres(database.url, { max: 1, onnotice: () => {} });
				try {
					await migratePostgres(drizzlePostgres(sql), { migrationsFolder: migrations.dir });
					for (const statement of oldRows) await sql.unsafe(statement);
				} finally {
					await sql.end({ timeout: 5 });
				}
				const store = await openPostgres(database.url);
				return {
					store,
					async close() {
						await store.close();
						await database.drop();
					},
				};
			} catch (error) {
				await database.drop();
				throw error;
			}
		}
		const dir = emptyPgliteDirectory("session-tree-pglite-upgrade-");
		const remove = () => rmSync(dir, { recursive: true, force: true });
		try {
			const client = new PGlite(dir, { pgliteWasmModule: await pgliteWasmModule() });
			try {
				await migratePglite(drizzlePglite(client), { migrationsFolder: migrations.dir });
				for (const statement of oldRows) await client.exec(statement);
			} finally {
				await client.close();
			}
			const store = await openPglite(dir);
			return {
				store,
				async close() {
					await store.close();
					remove();
				},
			};
		} catch (error) {
			remove();
			throw error;
		}
	} finally {
		migrations.remove();
	}
}

/**
 * `check` on the current store opened on a `backend` database upgraded from
 * `lastMigration` with `oldRows` (see upgradeFrom); the database or
 * directory is removed afterwards, whether `check` passes or not.
 */
export async function checkUpgrade(
	backend: "postgres" | "pglite",
	lastMigration: string,
	oldRows: readonly string[],
	check: (store: PgStore) => Promise<void>,
): Promise<void> {
	const upgraded = await upgradeFrom(backend, lastMigration, oldRows);
	try {
		await check(upgraded.store);
	} finally {
		await upgraded.close();
	}
}
