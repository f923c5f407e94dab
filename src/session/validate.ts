/**
 * Validation of entries: placement fields here, each type's own fields by its
 * row in the kinds table (kinds.ts); unknown extra fields are kept. Errors are
 * INVALID_INPUT naming the field as a dotted path under `at` (e.g.
 * `entry.compaction.tokensBefore`, or `line 7: message.role` for a file).
 */
import { type DraftEntry, type Entry, PLACEMENT_FIELDS } from "./entry.js";
import { invalidInput } from "./errors.js";
import { checkJsonValue, field, isObject } from "./json-checks.js";
import { kindOf } from "./kinds.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "./limits.js";

// The checks the store and the file reader use beside entry validation.
export { checkJsonValue, checkText, isObject, isStorableText } from "./json-checks.js";

export const MAX_ID_LENGTH = 256;

export function validateEntryId(value: unknown, at: string): string {
	if (typeof value !== "string" || value.length === 0) throw invalidInput(at, "must be a non-empty string");
	if (value.length > MAX_ID_LENGTH) throw invalidInput(at, `must be at most ${MAX_ID_LENGTH} characters`);
	// Ids are stored in text columns too: the same characters as any stored string.
	checkJsonValue(value, at);
	return value;
}

/**
 * Any type pi could write: a known one (kinds.ts), or one the service does
 * not know, kept as it is. "session" is the header's, never an entry's.
 */
function validateType(value: unknown, at: string): string {
	if (typeof value !== "string" || value.length === 0)
		throw invalidInput(field(at, "type"), "must be a non-empty string");
	if (value === "session")
		throw invalidInput(field(at, "type"), "\"session\" is the header line's type, not an entry's");
	if (value.length > MAX_ID_LENGTH)
		throw invalidInput(field(at, "type"), `must be at most ${MAX_ID_LENGTH} characters`);
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
export function validateEntry(value: unknown, at = "", limits: InputLimits = DEFAULT_INPUT_LIMITS): Entry {
	if (!isObject(value)) throw invalidInput(at || "entry", "must be a JSON object");
	const type = validateType(value.type, at);
	validateEntryId(value.id, field(at, "id"));
	if (value.parentId !== null && (typeof value.parentId !== "string" || value.parentId.length === 0)) {
		throw invalidInput(field(at, "parentId"), "must be a non-empty string or null");
	}
	const timestamp = normalizeTimestamp(value.timestamp, field(at, "timestamp"));
	kindOf(type).validate(value, at, limits);
	checkJsonValue(value, at, limits);
	return { ...value, timestamp } as Entry;
}

/** An entry to append: own fields, optional id; placement is the store's job. */
export function validateDraft(
	value: unknown,
	at = "",
	limits: InputLimits = DEFAULT_INPUT_LIMITS,
): DraftEntry {
	if (!isObject(value)) throw invalidInput(at || "entry", "must be a JSON object");
	const type = validateType(value.type, at);
	for (const name of PLACEMENT_FIELDS) {
		if (name !== "type" && name !== "id" && value[name] !== undefined) {
			throw invalidInput(field(at, name), "is assigned by the store and must not be given");
		}
	}
	if (value.id !== undefined) validateEntryId(value.id, field(at, "id"));
	kindOf(type).validate(value, at, limits);
	checkJsonValue(value, at, limits);
	return value as DraftEntry;
}
