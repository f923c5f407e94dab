/**
 * Positions in a workspace's activity log (SessionStore.activity), handed to
 * clients as opaque cursors. A position names one committed write: on
 * Postgres and PGlite its transaction id, session key and last seq (the log's
 * order, postgres/schema.ts activityLog); in memory the write's place in the
 * database's commit order. A cursor is only meaningful to the backend that
 * issued it; anything else is INVALID_INPUT.
 */
import { invalidInput } from "../session/errors.js";
import { decodeOpaque, encodeOpaque } from "./opaque.js";

export interface LogPosition {
	/** Postgres: the xid8 as decimal text; memory: the commit's number. */
	xid: string;
	key: number;
	toSeq: number;
}

const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;
/** xid8 is unsigned 64-bit; key and seq are Postgres integers. */
const MAX_XID = 2n ** 64n - 1n;
const MAX_INTEGER = 2_147_483_647;

export function activityCursor(position: LogPosition): string {
	return encodeOpaque(["a", position.xid, position.key, position.toSeq], "base64url");
}

/**
 * After every record of transaction `xid` and of every earlier one, before
 * every record of a later one: a position between records, where reading
 * the log after it starts with the next transaction's.
 */
export function afterTransaction(xid: string): string {
	return activityCursor({ xid, key: MAX_INTEGER, toSeq: MAX_INTEGER });
}

export function parseActivityCursor(token: string, field = "afterCursor"): LogPosition {
	const parts = typeof token === "string" ? decodeOpaque(token, "base64url") : undefined;
	const [tag, xid, key, toSeq] = parts ?? [];
	if (
		parts?.length !== 4 ||
		tag !== "a" ||
		typeof xid !== "string" ||
		!DECIMAL.test(xid) ||
		BigInt(xid) > MAX_XID ||
		!Number.isSafeInteger(key) ||
		!Number.isSafeInteger(toSeq) ||
		(key as number) < 0 ||
		(toSeq as number) < 0 ||
		(key as number) > MAX_INTEGER ||
		(toSeq as number) > MAX_INTEGER ||
		activityCursor({ xid, key: key as number, toSeq: toSeq as number }) !== token
	) {
		throw invalidInput(field, "is not a cursor of this feed");
	}
	return { xid, key: key as number, toSeq: toSeq as number };
}
