import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Starts an embedded PostgreSQL unless TEST_DATABASE_URL names a server.
		globalSetup: ["test/support/postgres-server.ts"],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: "forks",
	},
});
