/**
 * Large results leave in pieces (src/app/streamed-response.ts): the client
 * gets the same JSON, byte for byte, however the pieces fall; small ones are
 * sent whole as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pieces } from "../../src/app/streamed-response.js";
import { startTestServer, type TestServer } from "../support/server.js";

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

describe("pieces of an encoding", () => {
	it("join to the encoding and never end between the halves of a surrogate pair", () => {
		// Parts of every length around the piece size, made of pairs at both parities.
		for (const shift of [0, 1]) {
			const parts = ["x".repeat(shift), "😀".repeat(40_000), "é", "𝄞".repeat(33_000), "a".repeat(70_001)];
			const out = [...pieces(parts)];
			expect(out.join("")).toBe(parts.join(""));
			expect(out.length).toBeGreaterThan(3);
			for (const piece of out) {
				expect(isHighSurrogate(piece.charCodeAt(piece.length - 1))).toBe(false);
				expect(piece.length).toBeLessThan(2 * 64 * 1024);
			}
		}
	});
});

describe("a large response over HTTP", () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer("memory");
	});
	afterAll(() => server.close());

	const post = (query: string, variables: Record<string, unknown>) =>
		fetch(server.url, {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
			body: JSON.stringify({ query, variables }),
		});

	it("is streamed in pieces and arrives intact, non-BMP characters included; a small one is sent whole", async () => {
		await server.request(`mutation { createSession(input: { sessionId: "big" }) { sessionId } }`);
		const texts = Array.from({ length: 8 }, (_, i) => `${"é".repeat(i)}${"😀".repeat(25_000 + i)}${i}`);
		for (const text of texts) {
			const appended = await server.request(
				`mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`,
				{
					input: {
						sessionId: "big",
						entry: { message: { role: "user", content: [{ type: "text", text }], timestamp: 1 } },
					},
				},
			);
			expect(appended.errors).toBeUndefined();
		}
		const response = await post(`query($s: String!) { session(sessionId: $s) { context { messages } } }`, {
			s: "big",
		});
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toBe("application/graphql-response+json; charset=utf-8");
		expect(response.headers.get("transfer-encoding")).toBe("chunked");
		expect(response.headers.get("content-length")).toBeNull();
		const body = (await response.json()) as {
			data: { session: { context: { messages: Array<{ content: Array<{ text: string }> }> } } };
		};
		expect(body.data.session.context.messages.map((m) => m.content[0]?.text)).toEqual(texts);

		const small = await post(`query($s: String!) { session(sessionId: $s) { lastSeq } }`, { s: "big" });
		expect(small.headers.get("transfer-encoding")).toBeNull();
		expect(await small.json()).toEqual({ data: { session: { lastSeq: 8 } } });
	});
});
