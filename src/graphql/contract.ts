/**
 * The public contract (design/contract.graphql, a copy of the product's
 * shared design file) against the served schema: the served schema may add,
 * never break.
 */
import { readFileSync } from "node:fs";
import {
	type BreakingChange,
	buildSchema,
	findBreakingChanges,
	type GraphQLSchema,
	printSchema,
} from "graphql";
import { sortedSchema } from "./schema.js";

export const CONTRACT_PATH = new URL("../../design/contract.graphql", import.meta.url);
export const SCHEMA_PATH = new URL("../../schema.graphql", import.meta.url);

export function contractBreaks(served: GraphQLSchema = sortedSchema()): BreakingChange[] {
	const contract = buildSchema(readFileSync(CONTRACT_PATH, "utf8"));
	return findBreakingChanges(contract, served);
}

/** The text committed as schema.graphql. */
export function printedSchema(): string {
	return `${printSchema(sortedSchema())}\n`;
}
