/**
 * Disposable databases on the test Postgres server: each test file owns one
 * and drops it. A database is a copy (CREATE DATABASE … TEMPLATE) of one the
 * global setup migrated with `openPostgres` at the start of the run, so the
 * run applies every migration on Postgres once and a test's store opens on
 * a current schema; a test of migrating itself asks for an empty one.
 */
import postgres from "postgres";
import { inject } from "vitest";
import { createDatabase, type DisposableDatabase } from "../../scripts/dev-postgres.js";
import { openPostgres } from "../../src/store/postgres/open.js";

export type TestDatabase = DisposableDatabase;

declare module "vitest" {
	export interface ProvidedContext {
		/** A migrated database nobody may connect to: the template of the tests' databases. */
		postgresTemplate: string;
	}
}

/** Global setup: the migrated template on the server, closed to connections (a copy needs it idle). */
export async function createPostgresTemplate(serverUrl: string): Promise<TestDatabase> {
	const template = await createDatabase(serverUrl, "session_tree_template");
	try {
		await (await openPostgres(template.url)).close();
		const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
		try {
			await admin.unsafe(`alter database ${template.name} with allow_connections false`);
		} finally {
			await admin.end({ timeout: 1 });
		}
	} catch (error) {
		await template.drop();
		throw error;
	}
	return template;
}

/**
 * A test's commits do not wait for the WAL to reach the disk: the database is
 * dropped at the end of its file, and asynchronous commit changes durability
 * after a crash only, not what another connection sees. On a server the run
 * did not start (TEST_DATABASE_URL) only settings of one database are ours to
 * change; the embedded server starts with fsync off altogether.
 */
const THROWAWAY_DATABASE = { synchronous_commit: "off" } as const;

/** A migrated database of the caller's own; `{ empty: true }` for one with no schema at all. */
export function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
	return createDatabase(inject("postgresUrl"), "session_tree_test", {
		settings: THROWAWAY_DATABASE,
		...(options.empty ? {} : { template: inject("postgresTemplate") }),
	});
}
