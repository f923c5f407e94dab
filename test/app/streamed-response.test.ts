/**
 * Large results leave in pieces (src/app/streamed-response.ts): the client
 * gets the same JSON, byte for byte, however the pieces fall; small ones are
 * sent whole as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pieces } from "../../src/app/streamed-response.js";
import { startTestServer, type TestServer } from "../support/server.js";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("pieces of an encoding", () => {
	it("are the encoding's UTF-8, stored bytes copied in as they stand, and never split a string's character", () => {
		// Parts of every length around the piece size: pairs at both parities, 2- and 3-byte characters, bytes.
		for (const shift of [0, 1]) {
			const strings = [
				"x".repeat(shift),
				"😀".repeat(40_000),
				"é",
				"𝄞".repeat(33_000),
				"a".repeat(70_001),
				"€".repeat(30_000),
			];
			const stored = utf8(`{"text":"${"ü".repeat(50_000)}${"b".repeat(shift)}"}`);
			const parts = [...strings.slice(0, 3), stored, ...strings.slice(3), utf8("[]")];
			const out = [...pieces(parts)];
			const text = [...strings.slice(0, 3), new TextDecoder().decode(stored), ...strings.slice(3), "[]"].join(
				"",
			);
			expect(Buffer.concat(out).toString("utf8")).toBe(text);
			expect(out.length).toBeGreaterThan(5);
			for (const piece of out) expect(piece.length).toBeLessThanOrEqual(64 * 1024);
			// A piece may begin or end inside the stored bytes; every other piece decodes on its own.
			const storedFrom = utf8(strings.slice(0, 3).join("")).length;
			const storedTo = storedFrom + stored.length;
			let offset = 0;
			for (const piece of out) {
				const end = offset + piece.length;
				if (end <= storedFrom || offset >= storedTo)
					expect(new TextDecoder().decode(piece)).not.toContain("\uFFFD");
				offset = end;
			}
		}
	});
});

// On Postgres a context's stored messages come as bytes and are copied into the response undecoded
// (PGlite's come as strings, like memory's; its large context is test/store/pglite-worker.test.ts's).
describe.each(["memory", "postgres"] as const)("a large response over HTTP (%s)", (backend) => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer(backend);
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

		// A small context is sent whole, its stored messages written in as they stand.
		await server.request(`mutation { createSession(input: { sessionId: "small" }) { sessionId } }`);
		const message = {
			role: "user",
			content: [{ type: "text", text: 'é😀 "quoted" \\ \u2028' }],
			timestamp: 1,
		};
		await server.request(
			`mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`,
			{ input: { sessionId: "small", entry: { message } } },
		);
		const context = await post(`query($s: String!) { session(sessionId: $s) { context { messages } } }`, {
			s: "small",
		});
		expect(context.headers.get("transfer-encoding")).toBeNull();
		expect(await context.json()).toEqual({ data: { session: { context: { messages: [message] } } } });
	});
});
