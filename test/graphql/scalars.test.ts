/** The DateTime scalar reads timestamps by the same strict rule as stored entries. */
import type { GraphQLScalarType } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/schema.js";

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
