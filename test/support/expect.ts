import { expect } from "vitest";
import type { ErrorCode } from "../../src/session/errors.js";

/** The promise rejects with a SessionError of this code (and field, when given). */
export async function rejectsWithCode(
	promise: Promise<unknown>,
	code: ErrorCode,
	field?: string,
): Promise<Error> {
	let caught: unknown;
	try {
		await promise;
	} catch (error) {
		caught = error;
	}
	expect(caught, `expected a ${code} error`).toBeInstanceOf(Error);
	expect((caught as { code?: string }).code).toBe(code);
	if (field !== undefined) expect((caught as { field?: string }).field).toBe(field);
	return caught as Error;
}

/** Await `promise`, failing after `ms` with `what` instead of hanging. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}
