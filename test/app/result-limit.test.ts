/**
 * An operation's data is encoded once, measured on that text, and the same
 * text is what the response carries (src/app/result-limit.ts): the response
 * is the JSON of the result, byte for byte, with or without errors and
 * extensions; over the limit, it is one LIMIT_EXCEEDED error and nothing of
 * the data.
 */
import fc from "fast-check";
import { GraphQLError } from "graphql";
import { createSchema, createYoga } from "graphql-yoga";
import { describe, expect, it } from "vitest";
import { encodeWithData, useResultLimit } from "../../src/app/result-limit.js";

describe("encodeWithData", () => {
	it("writes what JSON.stringify writes, given the data's text", () => {
		const result = fc.record(
			{
				errors: fc.array(
					fc.record({ message: fc.string(), path: fc.array(fc.oneof(fc.string(), fc.nat())) }),
				),
				data: fc.oneof(fc.constant(null), fc.dictionary(fc.string(), fc.jsonValue())),
				extensions: fc.dictionary(fc.string(), fc.jsonValue()),
				stringify: fc.constant(() => "never called"),
			},
			{ requiredKeys: [] },
		);
		fc.assert(
			fc.property(result, (r) => {
				expect(encodeWithData(r as never, JSON.stringify(r.data))).toBe(JSON.stringify(r));
			}),
		);
	});
});

function server(maxBytes: number) {
	return createYoga({
		schema: createSchema({
			typeDefs: "type Query { text(size: Int!): String, failing: String }",
			resolvers: {
				Query: {
					text: (_: unknown, { size }: { size: number }) => "x".repeat(size),
					failing: () => {
						throw new GraphQLError("no", { extensions: { code: "NOPE" } });
					},
				},
			},
		}),
		plugins: [useResultLimit(maxBytes)],
	});
}

async function post(yoga: ReturnType<typeof server>, query: string) {
	const response = await yoga.fetch("http://localhost/graphql", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ query }),
	});
	return response.text();
}

describe("the response limit", () => {
	it("sends the result as JSON, errors and all", async () => {
		const yoga = server(1_000);
		expect(await post(yoga, "{ text(size: 3) }")).toBe('{"data":{"text":"xxx"}}');
		const partial = JSON.parse(await post(yoga, "{ text(size: 3) failing }"));
		expect(partial).toEqual({
			data: { text: "xxx", failing: null },
			errors: [
				{
					message: "no",
					locations: [{ line: 1, column: 17 }],
					path: ["failing"],
					extensions: { code: "NOPE" },
				},
			],
		});
	});

	it("sends one LIMIT_EXCEEDED error instead of a larger result, and nothing of it", async () => {
		const yoga = server(1_000);
		expect(JSON.parse(await post(yoga, "{ text(size: 980) }")).data.text).toHaveLength(980);
		const refused = await post(yoga, "{ text(size: 1000) }");
		expect(refused).not.toContain("xxx");
		expect(JSON.parse(refused)).toMatchObject({
			errors: [{ extensions: { code: "LIMIT_EXCEEDED", limit: "response" } }],
		});
		expect(JSON.parse(refused).data).toBeUndefined();
	});
});
