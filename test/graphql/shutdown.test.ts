/**
 * Graceful shutdown through real HTTP: close() while a request is running
 * lets that request finish (and its write commit), then the port is closed.
 * A connection no request has arrived on does not hold close() open.
 */
import { once } from "node:events";
import { type IncomingMessage, request } from "node:http";
import { connect } from "node:net";
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

	it("ends a connection no request arrived on at once, and lets a request still arriving finish", async () => {
		const server = await startTestServer("memory");
		// A client's spare connection (Node's fetch opens such sockets): connected, nothing sent.
		const silent = connect(Number(new URL(server.url).port), "127.0.0.1");
		// A request whose headers arrive before close() and whose body is still on its way.
		const body = JSON.stringify({ query: "{ __typename }" });
		const inFlight = request(server.url, {
			method: "POST",
			agent: false,
			headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
		});
		// A failed request shows as its missing response, below.
		inFlight.on("error", () => {});
		try {
			await within(3_000, "the silent connection", once(silent, "connect"));
			const silentClosed = once(silent, "close");
			const arrived = once(server.running.server, "request");
			inFlight.write(body.slice(0, 5));
			await within(3_000, "the in-flight request's headers", arrived);

			// The default grace period: a close() that waited for the silent connection would take it all.
			const closing = server.running.close(10_000);
			await within(3_000, "the server to end the connection no request arrived on", silentClosed);

			const responded = once(inFlight, "response");
			inFlight.end(body.slice(5));
			const [response] = (await within(3_000, "the in-flight request's response", responded)) as [
				IncomingMessage,
			];
			let text = "";
			for await (const chunk of response) text += chunk;
			expect(response.statusCode).toBe(200);
			expect(JSON.parse(text)).toEqual({ data: { __typename: "Query" } });
			await within(3_000, "close() after the in-flight request", closing);
		} finally {
			silent.destroy();
			inFlight.destroy();
			await server.close();
		}
	});
});
