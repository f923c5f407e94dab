/**
 * The embedded PostgreSQL that `npm test` and `npm run bench` start when no
 * server is named: it must start from a checkout in a private directory (mode
 * 700, e.g. under /root), also as root, where PostgreSQL runs as another user;
 * and a binary that cannot run is a rejected promise that says what to do,
 * not a crash.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "../../scripts/dev-postgres.js";
import { packagedInstall } from "../../scripts/embedded-postgres.js";

const root = process.getuid?.() === 0;

describe("the embedded PostgreSQL of the tests and benchmarks", () => {
	const made: string[] = [];
	const tempDir = (mode: number) => {
		const dir = mkdtempSync(join(tmpdir(), "session-tree-embedded-test-"));
		chmodSync(dir, mode);
		made.push(dir);
		return dir;
	};
	afterEach(() => {
		for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it("starts from an installation inside a private (mode 700) directory", async () => {
		// As a checkout under /root: only its owner may pass through.
		const checkout = tempDir(0o700);
		const dir = join(checkout, "native");
		symlinkSync(packagedInstall().dir, dir);
		const copyDir = join(tempDir(0o755), "postgres");
		const server = await startEmbeddedPostgres({ install: { dir, copyDir } });
		const sql = postgres(server.url, { max: 1, onnotice: () => {} });
		try {
			const [row] = await sql<{ answer: number }[]>`select 6 * 7 as answer`;
			expect(row?.answer).toBe(42);
		} finally {
			await sql.end({ timeout: 1 });
			await server.stop();
		}
	});

	it("rejects, saying what to do, when a binary cannot be run", async () => {
		const dir = tempDir(0o755);
		for (const part of ["bin", "lib", "share"]) mkdirSync(join(dir, part), { mode: 0o755 });
		for (const binary of ["initdb", "postgres"])
			writeFileSync(join(dir, "bin", binary), "#!/bin/sh\n", { mode: 0o644 });
		const started = startEmbeddedPostgres({ install: { dir, copyDir: join(tempDir(0o755), "postgres") } });
		await expect(started).rejects.toThrow(/could not run \S+initdb.* \(EACCES\).*set TEST_DATABASE_URL/);
	});

	it.runIf(root)("as root, runs no copy of the binaries that another user could have changed", async () => {
		const copyDir = join(tempDir(0o755), "postgres");
		mkdirSync(copyDir, { mode: 0o755 });
		chownSync(copyDir, 65534, 65534);
		const started = startEmbeddedPostgres({ install: { dir: packagedInstall().dir, copyDir } });
		await expect(started).rejects.toThrow(/is not root's own copy of the PostgreSQL binaries/);
	});
});
