/**
 * Checks of JSON values and their fields, shared by the entry validators
 * (validate.ts, kinds.ts) and the store. Errors are INVALID_INPUT naming the
 * field as a dotted path under `at`.
 */
import { invalidInput } from "./errors.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "./limits.js";

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function field(at: string, name: string): string {
	return at ? `${at}.${name}` : name;
}

export function requireString(obj: Json, name: string, at: string, { nonEmpty = false } = {}): void {
	const value = obj[name];
	if (typeof value !== "string") throw invalidInput(field(at, name), "must be a string");
	if (nonEmpty && value.length === 0) throw invalidInput(field(at, name), "must not be empty");
}

export function optionalString(obj: Json, name: string, at: string): void {
	if (obj[name] !== undefined && typeof obj[name] !== "string") {
		throw invalidInput(field(at, name), "must be a string when present");
	}
}

export function requireObject(obj: Json, name: string, at: string): void {
	if (!isObject(obj[name])) throw invalidInput(field(at, name), "must be an object");
}

export function optionalObject(obj: Json, name: string, at: string): void {
	if (obj[name] !== undefined && !isObject(obj[name])) {
		throw invalidInput(field(at, name), "must be an object when present");
	}
}

export function optionalBoolean(obj: Json, name: string, at: string): void {
	if (obj[name] !== undefined && typeof obj[name] !== "boolean") {
		throw invalidInput(field(at, name), "must be a boolean when present");
	}
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text every backend can hold and look up: no U+0000, no lone surrogate (Postgres text cannot hold them). */
export function isStorableText(value: string): boolean {
	return !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

/** UTF-8 bytes of a JSON scalar as it is written (close enough for a limit: quotes and escapes aside). */
function scalarBytes(value: unknown): number {
	return typeof value === "string" ? Buffer.byteLength(value) + 2 : String(value).length;
}

/**
 * Every value a backend stores as JSON or text passes here, walked without
 * recursion so that no input can overflow the stack:
 * - Postgres `jsonb` and `text` cannot hold U+0000 or a lone UTF-16
 *   surrogate, so no backend accepts them (the memory backend must reject
 *   exactly what Postgres rejects);
 * - nesting deeper than `limits.jsonDepth` and a size over `maxBytes`
 *   are refused, so that a stored value can always be encoded again.
 */
export function checkJsonValue(
	value: unknown,
	at: string,
	limits: InputLimits = DEFAULT_INPUT_LIMITS,
	maxBytes = limits.entryBytes,
): void {
	const name = at || "entry";
	const stack: Array<{ value: unknown; at: string; depth: number }> = [{ value, at, depth: 0 }];
	let bytes = 0;
	while (stack.length > 0) {
		const frame = stack.pop() as { value: unknown; at: string; depth: number };
		const v = frame.value;
		if (typeof v === "string") {
			if (v.includes("\u0000")) throw invalidInput(frame.at, "must not contain the character U+0000");
			if (LONE_SURROGATE.test(v))
				throw invalidInput(frame.at, "must be well-formed Unicode (it has a lone surrogate)");
			bytes += scalarBytes(v);
		} else if (typeof v === "number") {
			if (!Number.isFinite(v)) throw invalidInput(frame.at, "must be a finite number");
			bytes += scalarBytes(v);
		} else if (Array.isArray(v) || isObject(v)) {
			if (frame.depth >= limits.jsonDepth) {
				throw invalidInput(
					name,
					`JSON nests deeper than ${limits.jsonDepth} levels (at ${frame.at || "the top"})`,
				);
			}
			bytes += 2;
			if (Array.isArray(v)) {
				v.forEach((item, i) => {
					stack.push({ value: item, at: `${frame.at}[${i}]`, depth: frame.depth + 1 });
				});
			} else {
				for (const [key, item] of Object.entries(v)) {
					if (key.includes("\u0000") || LONE_SURROGATE.test(key)) {
						throw invalidInput(frame.at || "entry", "keys must be well-formed Unicode without U+0000");
					}
					bytes += scalarBytes(key) + 2;
					stack.push({ value: item, at: field(frame.at, key), depth: frame.depth + 1 });
				}
			}
		} else {
			bytes += 5;
		}
		if (bytes > maxBytes) throw invalidInput(name, `is larger than ${maxBytes} bytes`);
	}
}

/** A name, cwd or session reference: text with the same character rules and a length cap. */
export function checkText(value: string, at: string, limits: InputLimits = DEFAULT_INPUT_LIMITS): void {
	if (value.length > limits.textLength) {
		throw invalidInput(at, `must be at most ${limits.textLength} characters`);
	}
	checkJsonValue(value, at, limits);
}
