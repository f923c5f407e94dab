/**
 * Validation of entries, type by type. Each entry type checks only its own
 * fields; unknown extra fields are kept. Errors are INVALID_INPUT naming the
 * field as a dotted path under `at` (e.g. `entry.compaction.tokensBefore`, or
 * `line 7: message.role` for a file).
 */
import {
	type DraftEntry,
	ENTRY_TYPES,
	type Entry,
	type EntryType,
	isEntryType,
	PLACEMENT_FIELDS,
} from "./entry.js";
import { invalidInput } from "./errors.js";
import { inputLimits } from "./limits.js";

export const MAX_ID_LENGTH = 256;

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function field(at: string, name: string): string {
	return at ? `${at}.${name}` : name;
}

function requireString(obj: Json, name: string, at: string, { nonEmpty = false } = {}): void {
	const value = obj[name];
	if (typeof value !== "string") throw invalidInput(field(at, name), "must be a string");
	if (nonEmpty && value.length === 0) throw invalidInput(field(at, name), "must not be empty");
}

function optionalString(obj: Json, name: string, at: string): void {
	if (obj[name] !== undefined && typeof obj[name] !== "string") {
		throw invalidInput(field(at, name), "must be a string when present");
	}
}

function optionalBoolean(obj: Json, name: string, at: string): void {
	if (obj[name] !== undefined && typeof obj[name] !== "boolean") {
		throw invalidInput(field(at, name), "must be a boolean when present");
	}
}

export function validateEntryId(value: unknown, at: string): string {
	if (typeof value !== "string" || value.length === 0) throw invalidInput(at, "must be a non-empty string");
	if (value.length > MAX_ID_LENGTH) throw invalidInput(at, `must be at most ${MAX_ID_LENGTH} characters`);
	// Ids are stored in text columns too: the same characters as any stored string.
	checkJsonValue(value, at);
	return value;
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
 * - nesting deeper than `inputLimits.jsonDepth` and a size over `maxBytes`
 *   are refused, so that a stored value can always be encoded again.
 */
export function checkJsonValue(value: unknown, at: string, maxBytes = inputLimits.entryBytes): void {
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
			if (frame.depth >= inputLimits.jsonDepth) {
				throw invalidInput(
					name,
					`JSON nests deeper than ${inputLimits.jsonDepth} levels (at ${frame.at || "the top"})`,
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
export function checkText(value: string, at: string): void {
	if (value.length > inputLimits.textLength) {
		throw invalidInput(at, `must be at most ${inputLimits.textLength} characters`);
	}
	checkJsonValue(value, at);
}

/** Checks the own fields of one entry type. */
function validateOwnFields(type: EntryType, obj: Json, at: string): void {
	switch (type) {
		case "message": {
			const message = obj.message;
			if (!isObject(message)) throw invalidInput(field(at, "message"), "must be an object with a role");
			requireString(message, "role", field(at, "message"), { nonEmpty: true });
			return;
		}
		case "thinking_level_change":
			requireString(obj, "thinkingLevel", at, { nonEmpty: true });
			return;
		case "model_change":
			requireString(obj, "provider", at, { nonEmpty: true });
			requireString(obj, "modelId", at, { nonEmpty: true });
			return;
		case "active_tools_change": {
			const names = obj.activeToolNames;
			if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
				throw invalidInput(field(at, "activeToolNames"), "must be an array of strings");
			}
			return;
		}
		case "compaction": {
			requireString(obj, "summary", at);
			optionalString(obj, "firstKeptEntryId", at);
			const tokens = obj.tokensBefore;
			if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < 0) {
				throw invalidInput(field(at, "tokensBefore"), "must be a non-negative integer");
			}
			optionalBoolean(obj, "fromHook", at);
			return;
		}
		case "branch_summary":
			requireString(obj, "fromId", at, { nonEmpty: true });
			requireString(obj, "summary", at);
			optionalBoolean(obj, "fromHook", at);
			return;
		case "custom":
			requireString(obj, "customType", at, { nonEmpty: true });
			return;
		case "custom_message": {
			requireString(obj, "customType", at, { nonEmpty: true });
			const content = obj.content;
			if (typeof content !== "string" && !Array.isArray(content)) {
				throw invalidInput(field(at, "content"), "must be a string or an array of content blocks");
			}
			if (typeof obj.display !== "boolean") throw invalidInput(field(at, "display"), "must be a boolean");
			return;
		}
		case "label":
			requireString(obj, "targetId", at, { nonEmpty: true });
			optionalString(obj, "label", at);
			if (typeof obj.label === "string") checkText(obj.label, field(at, "label"));
			return;
		case "session_info":
			optionalString(obj, "name", at);
			if (typeof obj.name === "string") checkText(obj.name, field(at, "name"));
			return;
		case "leaf":
			if (obj.targetId !== null && (typeof obj.targetId !== "string" || obj.targetId.length === 0)) {
				throw invalidInput(field(at, "targetId"), "must be a non-empty string or null");
			}
			return;
	}
}

function validateType(value: unknown, at: string): EntryType {
	if (!isEntryType(value)) throw invalidInput(field(at, "type"), `must be one of ${ENTRY_TYPES.join(", ")}`);
	return value;
}

/** ISO-8601 date-time with a zone: 2025-12-08T22:41:05.306Z, 2025-12-08T23:41:05+01:00. */
const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * Normalise an ISO-8601 timestamp to `toISOString()` form (what pi writes).
 * Strict: `Date.parse` alone would accept "1" or "March 7" and roll
 * 2026-02-30 over to March, silently storing another time.
 */
export function normalizeTimestamp(value: unknown, at: string): string {
	const match = typeof value === "string" ? ISO_DATE_TIME.exec(value) : null;
	const millis = match ? Date.parse(value as string) : Number.NaN;
	const [, year, month, day, hour, minute, second] = match ?? [];
	const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
	if (
		!match ||
		Number.isNaN(millis) ||
		calendar.getUTCMonth() !== Number(month) - 1 ||
		calendar.getUTCDate() !== Number(day) ||
		Number(hour) > 23 ||
		Number(minute) > 59 ||
		Number(second ?? 0) > 59
	) {
		throw invalidInput(
			at,
			"must be an ISO-8601 date-time string with a time zone, e.g. 2026-01-31T12:00:00.000Z",
		);
	}
	const normalized = new Date(millis).toISOString();
	// Postgres timestamps have no year 0; years past 9999 do not round-trip through toISOString.
	if (!/^\d{4}-/.test(normalized) || normalized.startsWith("0000")) {
		throw invalidInput(at, "must be a date-time between the years 0001 and 9999");
	}
	return normalized;
}

/** A complete entry read from a file: placement fields plus own fields. */
export function validateEntry(value: unknown, at = ""): Entry {
	if (!isObject(value)) throw invalidInput(at || "entry", "must be a JSON object");
	const type = validateType(value.type, at);
	validateEntryId(value.id, field(at, "id"));
	if (value.parentId !== null && (typeof value.parentId !== "string" || value.parentId.length === 0)) {
		throw invalidInput(field(at, "parentId"), "must be a non-empty string or null");
	}
	const timestamp = normalizeTimestamp(value.timestamp, field(at, "timestamp"));
	validateOwnFields(type, value, at);
	checkJsonValue(value, at);
	return { ...value, timestamp } as Entry;
}

/** An entry to append: own fields, optional id; placement is the store's job. */
export function validateDraft(value: unknown, at = ""): DraftEntry {
	if (!isObject(value)) throw invalidInput(at || "entry", "must be a JSON object");
	const type = validateType(value.type, at);
	for (const name of PLACEMENT_FIELDS) {
		if (name !== "type" && name !== "id" && value[name] !== undefined) {
			throw invalidInput(field(at, name), "is assigned by the store and must not be given");
		}
	}
	if (value.id !== undefined) validateEntryId(value.id, field(at, "id"));
	validateOwnFields(type, value, at);
	checkJsonValue(value, at);
	return value as DraftEntry;
}
