/**
 * The DateTime scalar reads timestamps by the same strict rule as stored
 * entries; the JSON scalar reads inline literals, and refuses an enum anywhere in one
 * (graphql-scalars 2.0 drops a nested one: `{ x: FOO, y: 1 }` would be
 * stored as `{ y: 1 }`, which is why the scalar is the project's own).
 */
import type { GraphQLScalarType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/schema.js";
import { startTestServer, type TestServer } from "../support/server.js";

const dateTime = schema.getType("DateTime") as GraphQLScalarType;

describe("DateTime", () => {
	it("normalises an ISO-8601 date-time with an offset to UTC", () => {
		expect(dateTime.parseValue("2026-01-31T13:00:00+01:00")).toBe("2026-01-31T12:00:00.000Z");
	});

	it("refuses what Date.parse would guess at (free text, bare numbers, impossible dates) with INVALID_INPUT", () => {
		for (const text of ["March 7 2026", "1", "2026-02-30T00:00:00Z", ""]) {
			let caught: unknown;
			try {
				dateTime.parseValue(text);
			} catch (error) {
				caught = error;
			}
			expect((caught as { extensions?: { code?: string } })?.extensions?.code, text).toBe("INVALID_INPUT");
		}
	});
});

describe("JSON", () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer("memory");
		await server.request('mutation { createSession(input: { sessionId: "json" }) { sessionId } }');
	});
	afterAll(async () => {
		await server?.close();
	});

	const append = (content: string, variables?: Record<string, unknown>) =>
		server.request(
			`mutation ($text: String) { appendEntry(input: { sessionId: "json", entry: { message: { role: "user", timestamp: 1, content: ${content} } } }) { entry { seq } } }`,
			variables,
		);

	it("reads an inline literal as its value, a variable inside it included", async () => {
		const answer = await append('[{ type: "text", text: $text }]', { text: "from a variable" });
		expect(answer.errors).toBeUndefined();
		const read = await server.request<{ session: { context: { messages: unknown[] } } }>(
			'{ session(sessionId: "json") { context { messages } } }',
		);
		expect(read.data?.session.context.messages).toMatchObject([
			{ role: "user", content: [{ type: "text", text: "from a variable" }] },
		]);
	});

	it("refuses an enum anywhere inside a literal with INVALID_INPUT, writing nothing", async () => {
		for (const literal of ["TEXT", "[{ type: TEXT }]"]) {
			const answer = await append(literal);
			expect(answer.errors?.[0]?.extensions?.code, literal).toBe("INVALID_INPUT");
		}
		const custom = await server.request(
			'mutation { appendEntry(input: { sessionId: "json", entry: { custom: { customType: "x", data: { x: FOO, y: 1 } } } }) { entry { seq } } }',
		);
		expect(custom.errors?.[0]?.extensions?.code).toBe("INVALID_INPUT");
		const read = await server.request<{ session: { lastSeq: number } }>(
			'{ session(sessionId: "json") { lastSeq } }',
		);
		expect(read.data?.session.lastSeq).toBe(1);
	});
});
