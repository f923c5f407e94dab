/**
 * The fixed set of error codes every layer speaks. The GraphQL layer copies
 * `code` into `extensions.code`; anything that is not a SessionError is an
 * internal error and gets masked.
 */
export const ERROR_CODES = [
	"NOT_FOUND",
	"LEAF_CONFLICT",
	"ALREADY_EXISTS",
	"INVALID_INPUT",
	"UNAUTHENTICATED",
	"FORBIDDEN",
	"LIMIT_EXCEEDED",
	// A write to an archived session: it is read-only until unarchived (unarchiveSession).
	"ARCHIVED",
	// Retryable: the database went away mid-call, and nothing or everything of a write was committed
	// (one transaction). Retrying with the same entryId is safe: a re-sent identical entry is a no-op.
	"UNAVAILABLE",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class SessionError extends Error {
	readonly code: ErrorCode;
	/** For INVALID_INPUT: the offending field, as a dotted path. */
	readonly field: string | undefined;

	constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
		super(message, options.cause === undefined ? undefined : { cause: options.cause });
		this.name = "SessionError";
		this.code = code;
		this.field = options.field;
	}
}

export function invalidInput(field: string, problem: string): SessionError {
	return new SessionError("INVALID_INPUT", `${field}: ${problem}`, { field });
}

export function isSessionError(error: unknown, code?: ErrorCode): error is SessionError {
	return error instanceof SessionError && (code === undefined || error.code === code);
}
