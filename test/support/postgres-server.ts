/**
 * A Postgres server for the tests of the postgres backend.
 * TEST_DATABASE_URL names one (CI uses the machine's PostgreSQL); without it
 * an embedded PostgreSQL is started, so `npm test` covers Postgres on a fresh
 * machine with nothing installed. Each test file then creates and drops its
 * own database on this server.
 */
import type { TestProject } from "vitest/node";
import { assertReachable, startEmbeddedPostgres } from "../../scripts/dev-postgres.js";

declare module "vitest" {
	export interface ProvidedContext {
		postgresUrl: string;
	}
}

/**
 * The embedded server's data lives as long as the run: nothing needs to reach
 * the disk (Postgres's documented settings for a cluster one can recreate).
 * A run creates a database per test file, and the shared machine's disk is slow.
 */
const THROWAWAY = { fsync: "off", synchronous_commit: "off", full_page_writes: "off" } as const;

/** Provides `postgresUrl`; resolves with it and, if it started a server, how to stop it. */
export async function providePostgresServer(
	project: TestProject,
): Promise<{ url: string; stop?: () => Promise<void> }> {
	const given = process.env.TEST_DATABASE_URL;
	if (given) {
		await assertReachable(given, "TEST_DATABASE_URL");
		project.provide("postgresUrl", given);
		return { url: given };
	}
	const server = await startEmbeddedPostgres({ settings: THROWAWAY });
	project.provide("postgresUrl", server.url);
	return { url: server.url, stop: () => server.stop() };
}
