/**
 * `npm run test:unit`: the tests that need no database, no server and no
 * network, in a few seconds. The main config's global setup (an embedded
 * PostgreSQL, or a reachability check of TEST_DATABASE_URL) is left out, so
 * these run on a machine with nothing installed and nothing listening.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig({
	...base,
	test: {
		...base.test,
		include: [
			"test/session/**/*.test.ts",
			"test/auth/**/*.test.ts",
			"test/app/logger.test.ts",
			"test/events/live.test.ts",
			"test/events/safety-read.test.ts",
			"test/events/metrics-updates.test.ts",
			"test/app/shared-results.test.ts",
			"test/store/memory.test.ts",
			"test/store/paging.test.ts",
			"test/pi-fixtures.test.ts",
			"test/web/tree.test.ts",
			"test/web/web-app.test.ts",
			"test/web/highlight.test.ts",
			"test/web/avatars.test.ts",
		],
		globalSetup: [],
	},
});
