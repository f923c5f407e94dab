/**
 * The statements of the Postgres backend, one function each (./store.ts
 * decides when they run). Columns are the schema's (./schema.ts): the query
 * builder where it expresses the statement, else `${table.column}` inside
 * `sql`. Every function sends exactly one statement; the GraphQL suite counts
 * them per request.
 *
 * One file: every statement a read sends, one function each, so a reader
 * finds the SQL of a call in one place (the tree views' are ./tree.ts, the
 * metrics' ./analytics/metrics.ts, the writes' ./writes.ts and ./inserts.ts).
 */
import { and, count, eq, isNull, notExists, type Placeholder, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { ENTRY_TYPES, OTHER_TYPE } from "../../session/entry.js";
import { type JsonText, parseJsonText } from "../../session/raw-json.js";
import { isStorableText } from "../../session/validate.js";
import type { SessionWindow } from "../paging.js";
import { sessionIdTaken } from "../records.js";
import type { EntryOmissions, SessionRecord } from "../store.js";
import type { Db } from "./db.js";
import {
	type BriefEntryRow,
	type EntryRow,
	entryColumns,
	entrySelection,
	type SessionRow,
	selectList,
	sessionColumns,
	sessionInsert,
} from "./rows.js";
import * as schema from "./schema.js";
import { executeRows, statement, statementFamily } from "./statements.js";

const { entries, sessions } = schema;

/**
 * `x in ${list(values)}`: the values as one JSON parameter, so a list has no
 * size limit (one parameter per value stops at 65,535) and one statement text.
 */
export const list = (values: readonly string[]) =>
	sql`(select jsonb_array_elements_text(${JSON.stringify(values.filter(isStorableText))}::jsonb))`;

/**
 * A LIMIT that is always sent: `.limit(n)` drops a negative n, which Postgres
 * refuses (a caller's error that must surface, not turn into no limit).
 */
const LIMIT = sql.placeholder("limit");

export async function sessionRow(
	db: Db,
	ws: string,
	sessionId: string,
	lock: "update" | "share" | null,
): Promise<SessionRow | undefined> {
	const query = db
		.select(sessionColumns)
		.from(sessions)
		.where(and(eq(sessions.id, sessionId), eq(sessions.workspaceId, ws)));
	const [row] = await (lock ? query.for(lock) : query);
	return row;
}

export function sessionRows(db: Db, ws: string, sessionIds: readonly string[]): Promise<SessionRow[]> {
	return db
		.select(sessionColumns)
		.from(sessions)
		.where(and(eq(sessions.workspaceId, ws), sql`${sessions.id} in ${list(sessionIds)}`));
}

/** One window of the workspace's sessions by activity (plus one row, which tells whether more follow). */
export function sessionWindowRows(db: Db, ws: string, window: SessionWindow): Promise<SessionRow[]> {
	const key = sql`(${sessions.updatedAt}, ${sessions.id})`;
	return db
		.select(sessionColumns)
		.from(sessions)
		.where(
			and(
				eq(sessions.workspaceId, ws),
				// The unfiltered list is the active sessions (an archived one is asked for by a filter).
				isNull(sessions.archivedAt),
				window.after
					? sql`${key} < (${window.after.updatedAt}::timestamptz, ${window.after.sessionId})`
					: undefined,
				window.before
					? sql`${key} > (${window.before.updatedAt}::timestamptz, ${window.before.sessionId})`
					: undefined,
			),
		)
		.orderBy(
			...(window.backward
				? [sql`${sessions.updatedAt} asc`, sql`${sessions.id} asc`]
				: [sql`${sessions.updatedAt} desc`, sql`${sessions.id} desc`]),
		)
		.limit(LIMIT)
		.execute({ limit: window.limit + 1 });
}

export async function countSessions(db: Db, ws: string): Promise<number> {
	const [row] = await db
		.select({ n: count() })
		.from(sessions)
		.where(and(eq(sessions.workspaceId, ws), isNull(sessions.archivedAt)));
	return Number(row?.n ?? 0);
}

/** The session row of a new session, answering its key; ALREADY_EXISTS when the workspace has that id. */
export async function insertSession(db: Db, record: SessionRecord): Promise<number> {
	const [inserted] = await db
		.insert(sessions)
		.values(sessionInsert(record))
		.onConflictDoNothing()
		.returning({ key: sessions.key });
	if (!inserted) throw sessionIdTaken(record.sessionId);
	return inserted.key;
}

/**
 * The key of the workspace's session (sessions.key), looked up inside the
 * statement that needs it: still one statement, and an unknown session
 * matches no entry. Values or placeholders.
 */
export const sessionKeyOf = (ws: unknown, sessionId: unknown) =>
	sql`(select ${sessions.key} from ${sessions} where ${sessions.workspaceId} = ${ws} and ${sessions.id} = ${sessionId})`;

const inSession = (ws: string, sessionId: string) =>
	sql`${entries.sessionKey} = ${sessionKeyOf(ws, sessionId)}`;

export function entryRows(
	db: Db,
	ws: string,
	sessionId: string,
	entryIds: readonly string[],
): Promise<EntryRow[]> {
	return db
		.select(entryColumns)
		.from(entries)
		.where(and(inSession(ws, sessionId), sql`${entries.id} in ${list(entryIds)}`));
}

export interface EntryLogFilter {
	afterSeq: number;
	beforeSeq: number | undefined;
	types: readonly string[] | undefined;
	limit: number | undefined;
	fromEnd: boolean;
}

/** The known entry types (session/entry.ts) as an SQL list: literal, fixed in code. */
const KNOWN_TYPES = sql.raw(`(${ENTRY_TYPES.map((type) => `'${type}'`).join(", ")})`);

/** An entry is of one of `types` ("other": of any type the service does not know); `types` is JSON text. */
const ofTypes = (types: SQL | Placeholder) =>
	sql`(${entries.type} in (select jsonb_array_elements_text(${types}::jsonb))
		or (jsonb_exists(${types}::jsonb, ${sql.raw(`'${OTHER_TYPE}'`)}) and ${entries.type} not in ${KNOWN_TYPES}))`;

export async function countByType(
	db: Db,
	ws: string,
	sessionId: string,
	types: readonly string[],
): Promise<number> {
	const [row] = await db
		.select({ n: count() })
		.from(entries)
		.where(and(inSession(ws, sessionId), ofTypes(sql`${JSON.stringify(types.filter(isStorableText))}`)));
	return Number(row?.n ?? 0);
}

/** The tree nodes (leaf records excluded) whose parent is one of `parentIds`, in seq order. */
export function childRows(
	db: Db,
	ws: string,
	sessionId: string,
	parentIds: readonly string[],
): Promise<EntryRow[]> {
	return db
		.select(entryColumns)
		.from(entries)
		.where(
			and(
				inSession(ws, sessionId),
				sql`${entries.parentId} in ${list(parentIds)}`,
				sql`${entries.type} <> 'leaf'`,
			),
		)
		.orderBy(entries.seq);
}

/**
 * The latest label entry per target (null targets: every target). `type =
 * 'label'` stays a literal so that the partial index on label targets applies
 * to a prepared statement too.
 */
export function latestLabelRows(
	db: Db,
	ws: string,
	sessionId: string,
	targets: readonly string[] | null,
): Promise<EntryRow[]> {
	const target = sql`${entries.payload}->>'targetId'`;
	return db
		.selectDistinctOn([target], entryColumns)
		.from(entries)
		.where(
			and(
				inSession(ws, sessionId),
				sql`${entries.type} = 'label'`,
				targets ? sql`${target} in ${list(targets)}` : undefined,
			),
		)
		.orderBy(target, sql`${entries.seq} desc`);
}

const child = alias(entries, "child");

/** Tree nodes without a child node, in seq order. */
export function tipRows(db: Db, ws: string, sessionId: string): Promise<EntryRow[]> {
	return db
		.select(entryColumns)
		.from(entries)
		.where(
			and(
				inSession(ws, sessionId),
				sql`${entries.type} <> 'leaf'`,
				notExists(
					db
						.select({ one: sql`1` })
						.from(child)
						.where(
							and(
								eq(child.sessionKey, entries.sessionKey),
								eq(child.parentId, entries.id),
								sql`${child.type} <> 'leaf'`,
							),
						),
				),
			),
		)
		.orderBy(entries.seq);
}

/** The stored depth of one entry; null when the session has no such entry. */
export async function entryDepth(
	db: Db,
	ws: string,
	sessionId: string,
	entryId: string,
): Promise<number | null> {
	if (!isStorableText(entryId)) return null;
	const [row] = await db
		.select({ depth: entries.depth })
		.from(entries)
		.where(and(inSession(ws, sessionId), eq(entries.id, entryId)));
	return row ? row.depth : null;
}

// ---- Prepared reads (./statements.ts): the statements every read request sends

const p = sql.placeholder;

/** `${entries}` columns of one session, with the session as parameters. */
const inSessionParams = sql`${entries.sessionKey} = ${sessionKeyOf(p("ws"), p("sessionId"))}`;

const sessionById = statement<SessionRow>(
	"session_by_id",
	sql`select ${selectList(sessionColumns)} from ${sessions}
		where ${sessions.workspaceId} = ${p("ws")} and ${sessions.id} = ${p("sessionId")}`,
);

/** The session row (no lock), as a prepared statement. */
export async function sessionRowPrepared(
	db: Db,
	ws: string,
	sessionId: string,
): Promise<SessionRow | undefined> {
	const [row] = await sessionById.run(db, { ws, sessionId });
	return row;
}

/** The choices that make one statement of the log differ from another. */
function logShape(filter: EntryLogFilter, omit: EntryOmissions): string {
	return [
		filter.beforeSeq === undefined ? "" : "before",
		filter.types ? "types" : "",
		filter.limit === undefined ? "" : "limit",
		filter.fromEnd ? "desc" : "asc",
		omit.payload ? "brief" : "",
		omit.timestamp ? "untimed" : "",
	].join(":");
}

/** The conditions and order of a window of the log (placeholders afterSeq, beforeSeq, types, limit). */
function logWindow(shape: string): SQL {
	const has = (choice: string) => shape.split(":").includes(choice);
	return sql`${inSessionParams} and ${entries.seq} > ${p("afterSeq")}
		${has("before") ? sql`and ${entries.seq} < ${p("beforeSeq")}` : sql``}
		${has("types") ? sql`and ${ofTypes(p("types"))}` : sql``}
		order by ${entries.seq} ${has("desc") ? sql`desc` : sql`asc`}
		${has("limit") ? sql`limit ${p("limit")}` : sql``}`;
}

const omissionsOf = (shape: string): EntryOmissions => ({
	payload: shape.split(":").includes("brief"),
	timestamp: shape.split(":").includes("untimed"),
});

const logStatement = statementFamily((shape: string) =>
	statement<BriefEntryRow>(
		"entry_log",
		sql`select ${selectList(entrySelection(omissionsOf(shape)))} from ${entries} where ${logWindow(shape)}`,
	),
);

const logValues = (ws: string, sessionId: string, filter: EntryLogFilter) => ({
	ws,
	sessionId,
	afterSeq: filter.afterSeq,
	beforeSeq: filter.beforeSeq,
	types: filter.types ? JSON.stringify(filter.types.filter(isStorableText)) : undefined,
	limit: filter.limit,
});

/** The log in seq order (from the end: descending), less what `omit` leaves out. */
export function entryLogRows(
	db: Db,
	ws: string,
	sessionId: string,
	filter: EntryLogFilter,
	omit: EntryOmissions = {},
): Promise<BriefEntryRow[]> {
	return logStatement(logShape(filter, omit)).run(db, logValues(ws, sessionId, filter));
}

/**
 * The session row and one window of its log in one statement: the session's
 * row first, as one JSON object (`session`, json text: ./json-text.ts; null
 * in the other rows), then the window's rows (their columns null in the
 * session's); nothing when the session does not exist (entries cannot
 * outlive their session: foreign key).
 */
const sessionLogStatement = statementFamily((shape: string) => {
	const entryFields = Object.entries(entrySelection(omissionsOf(shape)));
	// Keys are the select list's own names, fixed in code (rows.ts).
	const sessionObject = sql`json_build_object(${sql.join(
		Object.entries(sessionColumns).map(([name, value]) => sql`${sql.raw(`'${name}'`)}, ${value}`),
		sql`, `,
	)})`;
	return statement<BriefEntryRow & { session: JsonText | null }>(
		"session_with_entries",
		sql`select ${sessionObject} as session, ${sql.join(
			entryFields.map(([name]) => sql`null as ${sql.identifier(name)}`),
			sql`, `,
		)}
			from ${sessions} where ${sessions.workspaceId} = ${p("ws")} and ${sessions.id} = ${p("sessionId")}
			union all
			(select null, ${selectList(Object.fromEntries(entryFields))} from ${entries} where ${logWindow(shape)})`,
	);
});

/** The session row and the window's rows in seq order; undefined when there is no such session. */
export async function sessionWithLogRows(
	db: Db,
	ws: string,
	sessionId: string,
	filter: EntryLogFilter,
	omit: EntryOmissions = {},
): Promise<{ session: SessionRow; rows: BriefEntryRow[] } | undefined> {
	const result = await sessionLogStatement(logShape(filter, omit)).run(db, logValues(ws, sessionId, filter));
	let session: SessionRow | undefined;
	const rows: BriefEntryRow[] = [];
	for (const row of result) {
		if (row.session) session = parseJsonText(row.session) as SessionRow;
		else rows.push(row);
	}
	if (!session) return undefined;
	// UNION ALL promises no order between or within its parts: the window's order is restored here.
	rows.sort((a, b) => a.seq - b.seq);
	return { session, rows };
}

/** A row of the activity log with its session's id (SessionStore.activity). */
export interface ActivityRow {
	sessionId: string;
	xid: string;
	key: number;
	fromSeq: number;
	toSeq: number;
	created: boolean;
}

/**
 * The workspace's log rows after a position, in the log's order, of
 * transactions older than every one still running: a row not returned now
 * because an older transaction is still open can only come after what is
 * returned (./schema.ts activityLog).
 */
export async function activityRows(
	db: Db,
	ws: string,
	after: { xid: string; key: number; toSeq: number } | null,
	limit: number,
	latest = false,
): Promise<ActivityRow[]> {
	const { activityLog } = schema;
	const order = sql`(${activityLog.xid}, ${activityLog.sessionKey}, ${activityLog.toSeq})`;
	// The latest: the same records read from the log's readable end backwards, given back in log order.
	const direction = latest ? sql`desc` : sql``;
	const rows = await executeRows<ActivityRow>(
		db,
		sql`select ${sessions.id} as "sessionId", ${activityLog.xid}::text as xid, ${activityLog.sessionKey} as key,
				${activityLog.fromSeq} as "fromSeq", ${activityLog.toSeq} as "toSeq", ${activityLog.created} as created
			from ${activityLog} join ${sessions} on ${sessions.key} = ${activityLog.sessionKey}
			where ${sessions.workspaceId} = ${ws}
				and ${activityLog.xid} < pg_snapshot_xmin(pg_current_snapshot())
				${after ? sql`and ${order} > (${after.xid}::xid8, ${after.key}::integer, ${after.toSeq}::integer)` : sql``}
			order by ${activityLog.xid} ${direction}, ${activityLog.sessionKey} ${direction}, ${activityLog.toSeq} ${direction}
			limit ${limit}`,
	);
	return latest ? rows.reverse() : rows;
}
