/**
 * The long suites, each an npm script of its own (and run by .ci/run):
 * `npm run test:fidelity`, a thousand sessions per pi against pi's own
 * session stores on every backend (`npm test` runs a few dozen of each in
 * the conformance suite); `npm run test:follow`, the follower as a process
 * killed with -9 and a service down for 10 s, on PGlite and Postgres.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig({
	...base,
	test: {
		...base.test,
		include: ["test/**/*.long.ts"],
		// Minutes, not seconds: a thousand sessions per pi and backend, outages of 10 s.
		testTimeout: 30 * 60_000,
	},
});
