/**
 * Graceful shutdown through real HTTP: close() while a request is running
 * lets that request finish (and its write commit), then the port is closed.
 */
import { describe, expect, it } from "vitest";
import { within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { chainJsonl, dataOf, uniqueId } from "./http.js";

const IMPORT = `mutation($input: ImportSessionInput!) {
	importSession(input: $input) { sessionId entryCount lastSeq leafId }
}`;

describe("graceful shutdown", () => {
	it("finishes an in-flight import, then refuses new connections", async () => {
		const sessionId = uniqueId("shutdown");
		const jsonl = chainJsonl(sessionId, 1000);
		let inFlight = false;
		let closing: Promise<void> | undefined;
		// The first SQL statement of the import proves the request is being served: close right then.
		const server: TestServer = await startTestServer("postgres", {
			onQuery: () => {
				if (inFlight && !closing) closing = server.running.close();
			},
		});
		try {
			inFlight = true;
			const response = await within(
				30_000,
				"the in-flight import",
				server.request(IMPORT, { input: { jsonl } }),
			);
			expect(closing, "close() was called while the import ran").toBeDefined();
			expect(dataOf(response).importSession).toEqual({
				sessionId,
				entryCount: 1000,
				lastSeq: 1000,
				leafId: "m999",
			});
			await within(5_000, "close() after the last request", closing as Promise<void>);

			await expect(
				fetch(server.url, {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({ query: "{ __typename }" }),
				}),
			).rejects.toMatchObject({ cause: { code: "ECONNREFUSED" } });

			// The import committed: a new instance on the same database sees all of it.
			const again = await startTestServer("postgres", { databaseUrl: server.databaseUrl as string });
			try {
				const { session } = dataOf(
					await again.request<{ session: { entryCount: number; leafId: string } }>(
						`query($id: String!) { session(sessionId: $id) { entryCount leafId } }`,
						{ id: sessionId },
					),
				);
				expect(session).toEqual({ entryCount: 1000, leafId: "m999" });
			} finally {
				await again.close();
			}
		} finally {
			await server.close();
		}
	});
});
