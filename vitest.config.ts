import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

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
	},
});
