/**
 * The cost check's verdicts are remembered per document and per the values
 * of the variables a cost depends on (page sizes), so an append's message,
 * different every time, costs no fresh check, while a page size still
 * decides each time whether a read is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.js";
import { DEFAULT_LIMITS } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { openServices, type Services } from "../../src/services.js";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import { chainJsonl, userMessage } from "../graphql/http.js";

let services: Services;
let app: App;

async function post(query: string, variables: Record<string, unknown>) {
	const response = await app.fetch("http://localhost/graphql", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ query, variables }),
	});
	return (await response.json()) as { data?: unknown; errors?: Array<{ extensions?: { limit?: string } }> };
}

beforeAll(async () => {
	services = await openServices({ backend: "memory" }, silentLogger);
	await services.store.importSession(DEFAULT_WORKSPACE, chainJsonl("chain", 3), { sessionId: "chain" });
	app = createApp({ services, logger: silentLogger, limits: { ...DEFAULT_LIMITS, cost: 500 } });
});
afterAll(() => services?.close());

describe("the cost check, remembered", () => {
	it("decides by the page size a variable gives, each time it changes", async () => {
		const page = `query($n: Int, $s: String!) { session(sessionId: $s) { entries(first: $n) { edges { node { entryId } } } } }`;
		for (const [n, refused] of [
			[2, false],
			[1000, true],
			[2, false],
			[1000, true],
		] as const) {
			const result = await post(page, { n, s: "chain" });
			expect(result.errors?.[0]?.extensions?.limit === "cost", `first: ${n}`).toBe(refused);
		}
	});

	it("refuses an operation over the limit whatever its other variables hold", async () => {
		const exports = `query($s: String!) { session(sessionId: $s) { a: jsonl b: jsonl } }`;
		for (const s of ["chain", "other", "chain"])
			expect((await post(exports, { s })).errors?.[0]?.extensions?.limit).toBe("cost");
		const append = `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`;
		for (let i = 0; i < 3; i++) {
			const input = {
				sessionId: "chain",
				entry: { message: userMessage(`message ${i} ${"x".repeat(2000)}`) },
			};
			expect((await post(append, { input })).errors).toBeUndefined();
		}
	});
});
