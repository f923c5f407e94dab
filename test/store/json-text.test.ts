/**
 * JSON text comes back from the store's statements under the types `json`
 * and `varchar` (src/store/postgres/json-text.ts): no column of the schema
 * may be of either, or its values would arrive as undecoded bytes.
 */
import { getTableColumns, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/store/postgres/schema.js";

describe("the types that mark JSON text", () => {
	it("are the type of no column of the schema", () => {
		const tables = Object.values(schema).filter((value) => is(value, PgTable));
		expect(tables.length).toBeGreaterThan(3);
		const marked = tables.flatMap((table) =>
			Object.values(getTableColumns(table))
				.filter((column) => /^(json|varchar|character varying)\b/.test(column.getSQLType()))
				.map((column) => column.name),
		);
		expect(marked).toEqual([]);
	});
});
