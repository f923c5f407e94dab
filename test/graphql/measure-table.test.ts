/**
 * One table of measures (src/session/analytics/measures.ts SUM_MEASURES,
 * with the group and turn measures of ./metrics.ts): the rollup's columns,
 * the metrics API's `Measure` enum and both GraphQL measure types are
 * derived from it, so a measure added there is everywhere with its unit,
 * and one that is not there is nowhere.
 */
import { GraphQLEnumType, GraphQLObjectType, getNamedType, getNullableType } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/schema.js";
import { ROLLUP_FIGURES, SUM_MEASURES, SUMS } from "../../src/session/analytics/measures.js";
import { MEASURES, measureSpec, TURN_MEASURES } from "../../src/session/analytics/metrics.js";
import { usageRollups } from "../../src/store/postgres/schema.js";

const objectType = (name: string) => {
	const type = schema.getType(name);
	if (!(type instanceof GraphQLObjectType)) throw new Error(`${name} is not an object type`);
	return type;
};
const scalarOf = (type: GraphQLObjectType, field: string) => {
	const found = type.getFields()[field];
	return found ? getNamedType(getNullableType(found.type)).name : undefined;
};

describe("the measure table", () => {
	it("gives the metrics API's Measure enum, in the table's order", () => {
		const measure = schema.getType("Measure");
		if (!(measure instanceof GraphQLEnumType)) throw new Error("Measure is not an enum");
		expect(new Set(measure.getValues().map((v) => v.value))).toEqual(new Set(MEASURES));
		expect(MEASURES.slice(0, SUMS.length)).toEqual(Object.keys(SUM_MEASURES));
	});

	it("gives every measure a field of MeasureValues, Int for a count and Float otherwise, with its description", () => {
		const values = objectType("MeasureValues");
		expect(Object.keys(values.getFields()).sort()).toEqual([...MEASURES].sort());
		for (const measure of MEASURES) {
			const { unit, description } = measureSpec(measure);
			expect(scalarOf(values, measure), measure).toBe(unit === "count" ? "Int" : "Float");
			expect(values.getFields()[measure]?.description ?? undefined, measure).toBe(description);
		}
	});

	it("gives a session's Measures every sum and turn statistic, and messages by role", () => {
		const measures = objectType("Measures");
		const expected = [...SUMS, ...Object.keys(TURN_MEASURES), "messagesByRole"];
		expect(Object.keys(measures.getFields()).sort()).toEqual(expected.sort());
		for (const measure of SUMS)
			expect(scalarOf(measures, measure), measure).toBe(
				SUM_MEASURES[measure].unit === "count" ? "Int" : "Float",
			);
	});

	it("gives the rollup rows their columns: the measures marked rollup, each a column of usage_rollups", () => {
		expect(ROLLUP_FIGURES).toEqual(SUMS.filter((m) => SUM_MEASURES[m].rollup));
		for (const figure of ROLLUP_FIGURES) expect(usageRollups[figure], figure).toBeDefined();
		expect(ROLLUP_FIGURES).toContain("cost");
		expect(ROLLUP_FIGURES).not.toContain("messages");
	});
});
