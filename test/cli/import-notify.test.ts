/**
 * The import CLI on Postgres announces what it imports to the servers running
 * on the same database (their sessionActivity subscribers hear it): it opens
 * the store through store/open.ts, which chooses the announcer for both the
 * CLI and the server.
 */
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgListenBus } from "../../src/events/pg-bus.js";
import { silentLogger } from "../../src/logger.js";
import type { CommitNotice } from "../../src/store/commits.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = join(ROOT, "test/fixtures/pi-small");
const IDS = [
	"0195f3a0-0000-7000-8000-000000000001",
	"0195f3a0-0000-7000-8000-000000000002",
	"0195f3a0-0000-7000-8000-000000000003",
];

let database: TestDatabase;
let bus: PgListenBus;

beforeAll(async () => {
	database = await createTestDatabase();
	bus = await PgListenBus.open(database.url, silentLogger);
});

afterAll(async () => {
	await bus?.close();
	await database?.drop();
});

/** The entry point as `npm run import` runs it under tsx, in one Node process (npx and tsx's CLI would add two). */
function runImporter(
	args: string[],
	env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, ["--import", "tsx", "src/cli/import.ts", ...args], {
			cwd: ROOT,
			env: { ...process.env, ...env },
			stdio: ["ignore", "ignore", "pipe"],
		});
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		child.on("error", reject);
		child.on("close", (code) => resolvePromise({ code, stderr }));
	});
}

describe("npm run import on Postgres", () => {
	it("announces each imported session to the instances listening on the database", async () => {
		const notices: CommitNotice[] = [];
		let heardAll: () => void = () => {};
		const allHeard = new Promise<void>((resolvePromise) => {
			heardAll = resolvePromise;
		});
		bus.subscribe({
			notice(notice) {
				notices.push(notice);
				if (IDS.every((id) => notices.some((n) => n.sessionId === id))) heardAll();
			},
			resync() {},
		});

		const run = await runImporter(["--workspace", "imports", FIXTURES], { DATABASE_URL: database.url });
		expect(run.code, run.stderr).toBe(0);
		// The notices were sent on commit, before the process exited; delivery may trail the exit.
		let timer: NodeJS.Timeout | undefined;
		try {
			await Promise.race([
				allHeard,
				new Promise((_, reject) => {
					timer = setTimeout(() => reject(new Error(`heard only ${JSON.stringify(notices)}`)), 5_000);
				}),
			]);
		} finally {
			clearTimeout(timer);
		}
		for (const id of IDS) {
			expect(notices.filter((n) => n.sessionId === id)).toEqual([
				expect.objectContaining({ workspaceId: "imports", sessionId: id, fromSeq: 0, created: true }),
			]);
		}
	}, 60_000);
});
