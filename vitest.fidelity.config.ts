/**
 * `npm run test:fidelity`: the thousand-session runs against pi's own
 * session stores (test/fidelity), on every backend; `npm test` runs a few
 * dozen of each inside the conformance suite.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig({
	...base,
	test: {
		...base.test,
		include: ["test/fidelity/**/*.fidelity.ts"],
		// A thousand sessions per pi and backend: minutes, not seconds.
		testTimeout: 30 * 60_000,
	},
});
