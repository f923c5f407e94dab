/**
 * The sessions list in another order or filtered (`sessions(orderBy:,
 * filter:)`): what a query asks for, its cursors, and the reference answer
 * (the memory backend). Cost and tokens are a session's sums over its whole
 * tree (session/analytics/measures.ts), which Postgres reads from the session's
 * rollups, never from its entries. A session "used" a model when any of its
 * assistant messages names it (the rollups' model dimension).
 */

import { measureEntries } from "../session/analytics/measures.js";
import { compareCodePoints } from "../session/analytics/metrics.js";
import { rollupRows } from "../session/analytics/rollup.js";
import type { StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import { decodeOpaque, encodeOpaque } from "./opaque.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./paging.js";
import type {
	Page,
	SessionFilter,
	SessionOrderField,
	SessionPosition,
	SessionQuery,
	SessionRecord,
} from "./store.js";

/** A session's sums the orders read. */
export interface SessionTotals {
	cost: number;
	tokens: number;
}

const MAX_NAME_FILTER = 200;

function cursorOf(query: SessionQuery, position: SessionPosition): string {
	const { field, descending } = query.order;
	return encodeOpaque(["sessions", field, descending, position.value, position.sessionId], "base64url");
}

/** The orders by a time: their values are ISO 8601 texts; the others' are numbers. */
const TIMED: ReadonlySet<SessionOrderField> = new Set(["activity", "created"]);

function decodeCursor(cursor: string, order: SessionQuery["order"]): SessionPosition {
	const [kind, field, descending, value, sessionId] = decodeOpaque(cursor, "base64url") ?? [];
	const valid = TIMED.has(order.field)
		? typeof value === "string" && Number.isFinite(Date.parse(value))
		: typeof value === "number" && Number.isFinite(value);
	if (
		kind !== "sessions" ||
		field !== order.field ||
		descending !== order.descending ||
		!valid ||
		typeof sessionId !== "string"
	)
		throw invalidInput("after", "is not a cursor of this order");
	return { value: value as number | string, sessionId };
}

function timestamp(value: string | null | undefined, field: string): string | null {
	if (value == null) return null;
	const ms = Date.parse(value);
	if (!Number.isFinite(ms)) throw invalidInput(field, "must be an ISO 8601 date-time");
	return new Date(ms).toISOString();
}

/** The query from the API's arguments, checked (forward paging only). */
export function sessionQuery(args: {
	orderBy?: { field: SessionOrderField; direction?: "ASC" | "DESC" | null | undefined } | null | undefined;
	filter?: SessionFilter | null | undefined;
	first?: number | null | undefined;
	after?: string | null | undefined;
}): SessionQuery {
	const order = {
		field: args.orderBy?.field ?? "activity",
		descending: (args.orderBy?.direction ?? "DESC") === "DESC",
	};
	const first = args.first ?? DEFAULT_PAGE_SIZE;
	if (!Number.isInteger(first) || first < 0) throw invalidInput("first", "must be a non-negative integer");
	if (first > MAX_PAGE_SIZE)
		throw new SessionError("LIMIT_EXCEEDED", `first: at most ${MAX_PAGE_SIZE} items per page`, {
			field: "first",
		});
	const filter = args.filter ?? {};
	if ((filter.nameContains?.length ?? 0) > MAX_NAME_FILTER)
		throw invalidInput("filter.nameContains", `at most ${MAX_NAME_FILTER} characters`);
	return {
		order,
		filter: {
			updatedAfter: timestamp(filter.updatedAfter, "filter.updatedAfter"),
			updatedBefore: timestamp(filter.updatedBefore, "filter.updatedBefore"),
			model: filter.model ?? null,
			// An empty text is contained in every name, and in no missing one: no filter at all.
			nameContains: filter.nameContains || null,
			parentSessionId: filter.parentSessionId ?? null,
			archived: filter.archived === true,
		},
		first,
		after: args.after == null ? null : decodeCursor(args.after, order),
	};
}

/** The value a session is ordered by. */
export function sortValue(
	record: SessionRecord,
	totals: SessionTotals,
	field: SessionOrderField,
): number | string {
	switch (field) {
		case "activity":
			return record.updatedAt;
		case "created":
			return record.createdAt;
		case "entries":
			return record.entryCount;
		case "cost":
			return totals.cost;
		case "tokens":
			return totals.tokens;
	}
}

/** Compares positions in the query's order (ties by session id, in the same direction). */
export function comparePositions(query: SessionQuery, a: SessionPosition, b: SessionPosition): number {
	// Ids by code point, as Postgres orders them under the C collation (the statement asks for it).
	const by = (x: number | string, y: number | string) => (x < y ? -1 : x > y ? 1 : 0);
	const order = by(a.value, b.value) || compareCodePoints(a.sessionId, b.sessionId);
	return query.order.descending ? -order : order;
}

/** The page of positioned sessions (sorted here), with cursors. */
export function sessionPage(
	query: SessionQuery,
	positioned: ReadonlyArray<{ record: SessionRecord; position: SessionPosition }>,
	totalCount: number,
): Page<SessionRecord> {
	const after = query.after;
	const sorted = positioned
		.filter(({ position }) => !after || comparePositions(query, position, after) > 0)
		.sort((a, b) => comparePositions(query, a.position, b.position));
	return {
		items: sorted.slice(0, query.first).map(({ record, position }) => ({
			cursor: cursorOf(query, position),
			node: record,
		})),
		hasNextPage: sorted.length > query.first,
		hasPreviousPage: after !== null,
		totalCount,
	};
}

/** The filter's verdict on a session, from its record and log (the reference rule). */
function matches(filter: SessionFilter, record: SessionRecord, log: readonly StoredEntry[]): boolean {
	// Archived sessions only when asked for, and then only they.
	if ((record.archivedAt !== null) !== (filter.archived === true)) return false;
	if (filter.updatedAfter && record.updatedAt < filter.updatedAfter) return false;
	if (filter.updatedBefore && record.updatedAt >= filter.updatedBefore) return false;
	if (filter.parentSessionId != null && record.parentSessionId !== filter.parentSessionId) return false;
	if (
		filter.nameContains != null &&
		!(record.name ?? "").toLowerCase().includes(filter.nameContains.toLowerCase())
	)
		return false;
	if (filter.model != null && !rollupRows(log).some((row) => row.model === filter.model)) return false;
	return true;
}

/** The reference answer over a workspace's sessions and their logs. */
export function findSessionsIn(
	sessions: ReadonlyArray<{ record: SessionRecord; log: readonly StoredEntry[] }>,
	query: SessionQuery,
): Page<SessionRecord> {
	const found = sessions.filter(({ record, log }) => matches(query.filter, record, log));
	const positioned = found.map(({ record, log }) => {
		const measures = measureEntries(log.map((e) => e.entry));
		const totals = { cost: measures.cost, tokens: measures.totalTokens };
		return {
			record,
			position: { value: sortValue(record, totals, query.order.field), sessionId: record.sessionId },
		};
	});
	return sessionPage(query, positioned, found.length);
}
