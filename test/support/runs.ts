/**
 * How many random cases a property tries on a backend that pays a database
 * round trip for every step. `npm test` tries the quick count, which keeps
 * the whole run within its three minutes; `npm run test:properties` (which
 * `.ci/run` runs too) tries the full count on the same properties. The memory
 * backend, where a case costs microseconds, always tries its full count.
 */
export function propertyRuns(full: number, quick: number): number {
	return process.env.PROPERTY_RUNS === "full" ? full : quick;
}
