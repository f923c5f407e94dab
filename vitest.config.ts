import { statfsSync } from "node:fs";
import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

/**
 * The run's temporary files (PGlite directories, the embedded Postgres, the browser's profile)
 * in memory when the machine has room for them: a run copies and removes a 39 MB PGlite
 * directory dozens of times, 0.7 s each on this machine's disk against 0.08 s on tmpfs. Set
 * before the global setup and the workers start, which inherit it; a TMPDIR given is kept.
 */
const MEMORY_TMP = "/dev/shm";
if (!process.env.TMPDIR && freeBytes(MEMORY_TMP) >= 4 * 2 ** 30) process.env.TMPDIR = MEMORY_TMP;

function freeBytes(dir: string): number {
	try {
		const { bavail, bsize } = statfsSync(dir);
		return bavail * bsize;
	} catch {
		return 0;
	}
}

export default defineConfig({
	resolve: {
		// One graphql for everything, as under Node: Vite would give the project's own code the ESM
		// build while graphql-yoga, Pothos and graphql-ws load the CommonJS one, and graphql's
		// `instanceof` checks fail across the two copies.
		alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
	},
	test: {
		include: ["test/**/*.test.ts"],
		// Starts an embedded PostgreSQL unless TEST_DATABASE_URL names a server; migrates the PGlite template.
		globalSetup: ["test/support/global-setup.ts"],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: "forks",
		// Both cores: the suite is mostly waiting on databases, servers and child processes.
		maxWorkers: 2,
		// Each worker process runs file after file on the modules it has loaded, instead of a new
		// process loading the server, the stores and their dependencies again for every file (45 of
		// a run's ~190 s at loadavg 4). What a file works on stays its own: its databases,
		// PGlite directories and servers. The process-wide settings a test changes (
		// the OpenTelemetry tracer provider) it restores; no test mocks modules.
		isolate: false,
	},
});
