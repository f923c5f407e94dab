/**
 * The Postgres server a benchmark run measures on, and a database of the
 * run's own on it. BENCH_DATABASE_URL names a server, else TEST_DATABASE_URL
 * (so CI measures on the server its tests use); without either an embedded
 * PostgreSQL is started, so `npm run bench` works on a fresh machine.
 */
import postgres from "postgres";
import {
	assertReachable,
	createDatabase,
	type DisposableDatabase,
	type PostgresServer,
	startEmbeddedPostgres,
} from "../scripts/dev-postgres.js";
import { redactUrl } from "../src/config.js";

export type { PostgresServer };

const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });

export async function startServer(env: NodeJS.ProcessEnv = process.env): Promise<PostgresServer> {
	for (const variable of ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]) {
		const url = env[variable]?.trim();
		if (!url) continue;
		await assertReachable(url, variable);
		return { url, origin: `${variable}=${redactUrl(url)}`, stop: async () => {} };
	}
	return startEmbeddedPostgres();
}

export async function serverVersion(url: string): Promise<string> {
	const sql = connect(url);
	try {
		const [row] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
		return row?.version ?? "unknown";
	} finally {
		await sql.end({ timeout: 1 });
	}
}

/**
 * A database for this run only, so that table sizes, statistics and caches
 * start the same every run and nothing of another run (or of the tests) is
 * measured. The `bench_` prefix makes a leftover of an interrupted run easy to
 * recognise.
 */
export function createBenchDatabase(serverUrl: string): Promise<DisposableDatabase> {
	return createDatabase(serverUrl, "bench");
}
