/**
 * Database failures a client can act on get a code instead of a masked
 * internal error. Losing the database connection is a retryable one:
 * UNAVAILABLE. Every write is one transaction, so nothing or everything
 * of it was committed, even when the connection dropped during COMMIT; a
 * client that retries with the same entryId either writes the entry now or
 * gets the stored one back (`created: false`).
 *
 * The error carries no cause: Drizzle's wrapper has the SQL text and the
 * parameters in its message (and postgres.js keeps them on its errors), and
 * logs must never carry payloads. Only the driver's code is kept.
 */
import { SessionError } from "../../session/errors.js";

/**
 * Seconds before postgres.js reopens a lost connection after `retries`
 * failed attempts (a count its pool shares): its own jittered curve, but at
 * most about a second instead of 20 s. A restarting server refuses every
 * connection a few times, and with the default the pool (and the listening
 * connection) would then wait up to 20 s after the server is back.
 */
export const reconnectDelay = (retries: number): number =>
	(0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 1);

/**
 * postgres.js' own codes for a connection that closed, was ended or
 * destroyed, or never opened; Node's socket errors; and the SQLSTATEs of a
 * server that is shutting down or starting up (admin_shutdown is also what
 * pg_terminate_backend sends).
 */
const CONNECTION_CODES = new Set([
	"CONNECTION_CLOSED",
	"CONNECTION_ENDED",
	"CONNECTION_DESTROYED",
	"CONNECT_TIMEOUT",
	"ECONNREFUSED",
	"ECONNRESET",
	"EPIPE",
	"ETIMEDOUT",
	"57P01",
	"57P02",
	"57P03",
]);

/** SQLSTATE class 08: connection exception. */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/** Wrappers (Drizzle's DrizzleQueryError) keep the driver's error as `cause`; a few levels suffice. */
const MAX_CAUSES = 4;

function connectionLossCode(error: unknown): string | undefined {
	let current = error;
	for (let depth = 0; depth <= MAX_CAUSES && current instanceof Error; depth++) {
		if (current instanceof SessionError) return undefined;
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string" && (CONNECTION_CODES.has(code) || CONNECTION_EXCEPTION.test(code)))
			return code;
		current = current.cause;
	}
	return undefined;
}

/** The connection to the database failed, not the statement: the same call may succeed later. */
export function isConnectionLoss(error: unknown): boolean {
	return connectionLossCode(error) !== undefined;
}

/** The SQLSTATE of a database error, through wrappers. */
function sqlState(error: unknown): string | undefined {
	let current = error;
	for (let depth = 0; depth <= MAX_CAUSES && current instanceof Error; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
		current = current.cause;
	}
	return undefined;
}

/**
 * UNAVAILABLE for a connection loss or a server out of resources (class 53:
 * disk full, out of memory, too many connections); LIMIT_EXCEEDED for a
 * statement cancelled by the statement timeout; any other error unchanged.
 */
export function codedDatabaseError(error: unknown): unknown {
	if (error instanceof SessionError) return error;
	const code = connectionLossCode(error);
	if (code !== undefined)
		return new SessionError("UNAVAILABLE", `The database is unavailable (${code}); retry`);
	const state = sqlState(error);
	if (state?.startsWith("53")) {
		return new SessionError(
			"UNAVAILABLE",
			`The database is out of resources (${state}, e.g. disk full); retry later`,
		);
	}
	if (state === "57014") {
		return new SessionError(
			"LIMIT_EXCEEDED",
			"A statement ran longer than the statement timeout (the server's STATEMENT_TIMEOUT_MS) and was cancelled; nothing was written",
		);
	}
	return error;
}

/**
 * The store with connection loss raised as UNAVAILABLE from every method.
 * A Proxy keeps the store's own type and prototype (`instanceof`, `backend`,
 * `db`); methods run on the store itself, so its internal calls are not
 * wrapped twice.
 */
export function codingDatabaseErrors<T extends object>(store: T): T {
	const wrappers = new Map<PropertyKey, { method: unknown; wrapper: unknown }>();
	return new Proxy(store, {
		get(target, property) {
			const value: unknown = Reflect.get(target, property, target);
			if (typeof value !== "function" || property === "constructor") return value;
			const known = wrappers.get(property);
			if (known?.method === value) return known.wrapper;
			const method = value as (...args: unknown[]) => unknown;
			const wrapper = (...args: unknown[]) => {
				let result: unknown;
				try {
					result = method.apply(target, args);
				} catch (error) {
					throw codedDatabaseError(error);
				}
				return result instanceof Promise
					? result.catch((error: unknown) => {
							throw codedDatabaseError(error);
						})
					: result;
			};
			wrappers.set(property, { method: value, wrapper });
			return wrapper;
		},
	});
}
