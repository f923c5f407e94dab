/**
 * The default of a switch that handles every member of a union: the call
 * compiles only while `value` has type `never`, so a new member without a
 * case is a compile error. At run time it means a value outside the union
 * got past validation, a defect.
 */
export function assertNever(value: never, what = "value"): never {
	throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
