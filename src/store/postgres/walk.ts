/**
 * The path walk: one recursive statement from an entry (default: the
 * session's leaf) to the root, so a path costs one statement however deep
 * (design/tree-rules.md). The query builder has no recursive CTE; the
 * statement is raw SQL over the schema's columns. Inside the CTE the walk's
 * own columns (`walk.id`, `stop_at`, …) are its, not the table's.
 */

import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { AgentMessage, Entry, StoredEntry } from "../../session/entry.js";
import { SETTING_TYPES } from "../../session/kinds.js";
import { type JsonText, rawObject } from "../../session/raw-json.js";
import { boundByCompaction, pathToRoot } from "../../session/tree.js";
import { isStorableText } from "../../session/validate.js";
import { checkPathStart } from "../records.js";
import type { EntryOmissions } from "../store.js";
import type { Db } from "./db.js";
import { storedJsonText } from "./json-text.js";
import { type BriefEntryRow, isoText, selectList, toStored } from "./rows.js";
import { entries, sessions } from "./schema.js";
import { statement, statementFamily } from "./statements.js";

/**
 * `full`: the whole path. `bounded`: pi's path, stopped at the latest
 * compaction's first kept entry. `context`: the whole path, entries older
 * than that kept entry reduced to what settings need.
 */
export type WalkMode = "full" | "bounded" | "context";

/** Settings entries (session/kinds.ts): read from the whole path even past the compaction bound; literal SQL, fixed in code. */
const SETTINGS_TYPES = sql.raw(`(${SETTING_TYPES.map((type) => `'${type}'`).join(", ")})`);

const keptFrom = sql`case when ${entries.type} = 'compaction' then ${entries.payload}->>'firstKeptEntryId' end`;

/**
 * The path from `fromId` (default: the session's leaf), root first. A
 * `fromId` that is not a node of the session is NOT_FOUND (on `field`), a leaf
 * record INVALID_INPUT; an empty result is told apart by `requireSession`
 * (which throws for a missing session), so a found path costs one statement.
 */
export async function walkPath(
	db: Db,
	ws: string,
	sessionId: string,
	fromId: string | null | undefined,
	mode: WalkMode,
	field: string,
	requireSession: () => Promise<unknown>,
	read: WalkRead = {},
): Promise<StoredEntry[]> {
	const toEntry = (row: WalkRow) => walkEntry(row, sessionId);
	if (fromId === undefined || fromId === null) {
		const path = (await walkRows(db, ws, sessionId, null, mode, read)).map(toEntry);
		if (path.length === 0) await requireSession();
		return path;
	}
	// Postgres cannot compare with an id it cannot hold: no entry has it.
	const path = isStorableText(fromId)
		? (await walkRows(db, ws, sessionId, fromId, mode, read)).map(toEntry)
		: [];
	const start = path[path.length - 1];
	const found = start?.entry.id === fromId ? start : null;
	// A missing session is reported before a missing entry.
	if (!found) await requireSession();
	checkPathStart(sessionId, fromId, found, field);
	return path;
}

/** What a walk may leave out, and whether a context's messages may stay JSON text. */
export interface WalkRead {
	omit?: EntryOmissions;
	/** `context` mode: each message as RawJson (session/raw-json.ts) with its role and model fields. */
	rawMessages?: boolean;
}

/**
 * A walk's row: an entry row, or in a raw context a message's text and the
 * fields the projection reads (see projectedFields). A context's rows have
 * no seq or author, and no timestamp for a message: its entries carry NaN,
 * undefined and "" there, which only the projection ever reads. A scan's rows (see
 * walkStatement) carry `scan` (which marks the start) and each compaction's kept
 * entry for the bound.
 */
type WalkRow = BriefEntryRow & {
	/** A scan's row: 1 for the start, 0 for the others; null (one cheap null per row) for a walk's. */
	scan?: number | null;
	keptFrom?: string | null;
	messageText?: JsonText | null;
	messageRole?: string | null;
	messageProvider?: string | null;
	messageModel?: string | null;
};

/**
 * A projected field's JSON text as its value. Most are plain strings (a
 * role, a model name), read without JSON.parse; this runs for every message
 * of a context, and a closure per row cost as much again (tsx names each).
 */
function projected(text: string): unknown {
	const plain = text.length >= 2 && text.charCodeAt(0) === 0x22 && text.indexOf("\\") < 0;
	return plain ? text.slice(1, -1) : JSON.parse(text);
}

function walkEntry(row: WalkRow, sessionId: string): StoredEntry {
	const stored = toStored(row, sessionId);
	if (row.messageText === undefined || row.messageText === null) return stored;
	const entry = stored.entry as Extract<Entry, { type: "message" }>;
	const fields: Record<string, unknown> = {};
	if (row.messageRole != null) fields.role = projected(row.messageRole);
	if (row.messageProvider != null) fields.provider = projected(row.messageProvider);
	if (row.messageModel != null) fields.model = projected(row.messageModel);
	entry.message = rawObject(row.messageText, fields as AgentMessage);
	return stored;
}

/**
 * The statement's rows as the path, root first. A walk's rows are the path,
 * sorted here by depth (they arrive leaf first, so the sort is a reversal;
 * one order for both kinds of answer, which a UNION could not give without
 * sorting the scan's rows too); a scan's are the session's rows up to the
 * start's depth, and the path is found here: a chain's rows checked link by
 * link, any others walked through the session's own rules (session/tree.ts).
 */
function pathRows(rows: WalkRow[], mode: WalkMode): WalkRow[] {
	if (rows[0]?.scan == null) return rows.sort((a, b) => Number(a.depth) - Number(b.depth));
	const start = rows.find((row) => Number(row.scan) === 1);
	const path = (start && chainOf(rows, start)) ?? walkedPath(rows, start);
	if (mode !== "bounded") return path;
	const bounds = path.map((entry) => ({
		row: entry,
		entry: { type: entry.type, id: entry.id, firstKeptEntryId: entry.keptFrom ?? undefined } as Entry,
	}));
	return boundByCompaction(bounds).map(({ row }) => row);
}

/** The path to `start` through the session's rules (session/tree.ts). */
function walkedPath(rows: readonly WalkRow[], start: WalkRow | undefined): WalkRow[] {
	const byId = new Map<string, { entry: WalkRow }>();
	for (const row of rows) byId.set(row.id, { entry: row });
	return pathToRoot(start?.id ?? null, (id) => byId.get(id)).map(({ entry }) => entry);
}

/**
 * The same path when the scan's rows are one chain, root first by depth,
 * each row the next one's parent and `start` the last (a linear session's
 * scan): every link is checked, so it is the path pathToRoot walks, found
 * without a map of the rows. Null when they are not.
 */
function chainOf(rows: readonly WalkRow[], start: WalkRow): WalkRow[] | null {
	const last = Number(start.depth);
	if (rows.length !== last + 1) return null;
	const chain: Array<WalkRow | undefined> = new Array(rows.length);
	for (let index = 0; index < rows.length; index++) {
		const row = rows[index] as WalkRow;
		const depth = Number(row.depth);
		if (!(depth >= 0 && depth <= last) || chain[depth] !== undefined) return null;
		chain[depth] = row;
	}
	for (let depth = 0; depth <= last; depth++) {
		const parentId = depth === 0 ? null : (chain[depth - 1] as WalkRow).id;
		if ((chain[depth] as WalkRow).parentId !== parentId) return null;
	}
	return chain[last] === start ? (chain as WalkRow[]) : null;
}

/** The path's rows, root first; none when the start entry is missing. */
async function walkRows(
	db: Db,
	ws: string,
	sessionId: string,
	start: string | null,
	mode: WalkMode,
	{ omit = {}, rawMessages = false }: WalkRead,
): Promise<WalkRow[]> {
	// The context reads payloads (the projection needs them); the other modes may go without.
	const brief = mode !== "context" && omit.payload === true;
	const timed = !(brief && omit.timestamp === true);
	const raw = mode === "context" && rawMessages;
	const rows = await walkStatement(
		`${mode}:${brief ? "brief" : ""}:${timed ? "" : "untimed"}:${raw ? "raw" : ""}`,
	).run(db, { ws, sessionId, start });
	return pathRows(rows, mode);
}

const p = sql.placeholder;

/**
 * The message fields projectContext reads (its role; an assistant's provider
 * and model), each as JSON text: SQL null when the message has no such
 * field, `null` when it holds null.
 */
const projectedFields = (message: SQL, when: SQL) => ({
	messageRole: sql`case when ${when} then (${message}->'role')::text end`,
	messageProvider: sql`case when ${when} then (${message}->'provider')::text end`,
	messageModel: sql`case when ${when} then (${message}->'model')::text end`,
});

/**
 * One statement per mode, each with and without payloads (and timestamps),
 * answering in one of two ways, chosen inside the statement:
 *
 * - **Scan**, when the start's path holds at least half of the session's
 *   entries (its depth against the session's count: a mostly linear
 *   session, as agents' sessions are): the session's rows up to the start's
 *   depth, one range read of the session's key, and the path is walked in
 *   ./walk.ts#pathRows. Each step of a recursive walk is an index lookup;
 *   on a 2,000-entry chain the scan answered in half the time. A scan that
 *   would carry payloads the answer does not need (a bounded or context
 *   walk of a session with a compaction: older entries are cut or reduced)
 *   walks instead.
 * - **Walk**: the recursion carries only what the walk needs (the parent
 *   link, the compaction bounds) and, for a brief walk, the few narrow
 *   columns of the answer; a walk with payloads reads them once at the end,
 *   by primary key, for the rows it returns. Carrying payloads through the
 *   recursion copied each one at every step's work table and again into the
 *   sort: measured on a 2,000-entry chain, 26 ms against 15 ms.
 */
const walkStatement = statementFamily((shape: string) => {
	const [mode, brief, untimed, raw] = shape.split(":") as [WalkMode, string, string, string];
	const answerColumns = (row: (column: PgColumn) => SQL, fromWalk: boolean) => {
		const message = sql`(${row(entries.payload)}->'message')`;
		const type = fromWalk ? sql`walk.type` : row(entries.type);
		// Beyond the compaction bound (a walk's rows only; a scan of a context has no bound).
		const beyond = fromWalk ? sql`walk.beyond` : sql`false`;
		// In a raw context a message before the compaction bound is passed as JSON text (json-text.ts), with
		// the fields the projection reads; one without content is not, as the projection gives it one.
		const rawMessage = sql`${type} = 'message' and not ${beyond}
			and coalesce(jsonb_typeof(${message}->'content'), 'null') <> 'null'`;
		const payload =
			mode === "context"
				? sql`case ${raw ? sql`when ${rawMessage} then null` : sql``}
					when not ${beyond} or ${type} in ${SETTINGS_TYPES} then ${row(entries.payload)}
					else jsonb_build_object('message', jsonb_build_object('role', 'assistant',
						'provider', ${message}->'provider', 'model', ${message}->'model'))
					end`
				: row(entries.payload);
		// A brief walk carries its answer's narrow columns; other rows are read from the entry.
		const narrow = (column: PgColumn) =>
			fromWalk && brief ? sql`walk.${sql.identifier(column.name)}` : row(column);
		// The projection reads no seq, no author and no message's timestamp (session/context.ts): a
		// context's rows leave them out, each a column less per entry to format, send and decode.
		const context = mode === "context";
		const timestamp = isoText(narrow(entries.timestamp));
		return {
			...(context ? {} : { seq: narrow(entries.seq), author: narrow(entries.author) }),
			id: fromWalk ? sql`walk.id` : row(entries.id),
			parentId: fromWalk ? sql`walk.parent_id` : row(entries.parentId),
			type,
			depth: fromWalk ? sql`walk.depth` : row(entries.depth),
			...(untimed
				? {}
				: {
						timestamp: context ? sql`case when ${type} = 'message' then '' else ${timestamp} end` : timestamp,
					}),
			...(brief ? {} : { payload }),
			...(raw
				? {
						messageText: sql`case when ${rawMessage} then ${storedJsonText(message)} end`,
						...projectedFields(message, rawMessage),
					}
				: {}),
		};
	};
	const own = (column: PgColumn) => sql`answer.${sql.identifier(column.name)}`;
	const scanned = (column: PgColumn) => sql`scan.${sql.identifier(column.name)}`;
	const marks = (scan: boolean) => ({
		scan: scan
			? sql`case when ${scanned(entries.id)} = (select id from start) then 1 else 0 end`
			: sql`null::integer`,
		keptFrom: scan
			? sql`case when ${scanned(entries.type)} = 'compaction' then ${scanned(entries.payload)}->>'firstKeptEntryId' end`
			: sql`null`,
	});
	// A scan is worth it when the path is most of the session; see above for when payloads forbid it.
	const carriesUnneeded = !brief && mode !== "full";
	const scanWorthIt = sql`(select start.depth is not null and (start.depth + 1) * 2 >= start.entry_count
		${
			carriesUnneeded
				? sql`and not exists (select 1 from ${entries} as compaction
					where compaction.${sql.identifier(entries.sessionKey.name)} = start.key
					and compaction.${sql.identifier(entries.type.name)} = 'compaction')`
				: sql``
		} from start)`;
	const walkSelect = sql`select ${selectList({ ...answerColumns(own, true), ...marks(false) })} from walk
		${brief ? sql`` : sql`join ${entries} as answer on ${own(entries.sessionKey)} = (select key from start) and ${own(entries.id)} = walk.id`}
		where not ${scanWorthIt}
		${
			mode === "context"
				? sql`and (not walk.beyond or walk.type in ${SETTINGS_TYPES}
					or (walk.type = 'message' and ${own(entries.payload)}->'message'->>'role' = 'assistant'))`
				: sql``
		}`;
	const scanSelect = sql`select ${selectList({ ...answerColumns(scanned, false), ...marks(true) })}
		from ${entries} as scan
		where ${scanned(entries.sessionKey)} = (select key from start)
			and (${scanned(entries.depth)} < (select depth from start) or ${scanned(entries.id)} = (select id from start))
			and ${scanWorthIt}`;
	// A brief walk carries its answer's narrow columns under their own names.
	const carry = (column: PgColumn) => sql`, ${column} as ${sql.identifier(column.name)}`;
	const carried = sql`, ${entries.depth} as depth${brief ? sql`${carry(entries.seq)}${carry(entries.author)}${untimed ? sql`` : carry(entries.timestamp)}` : sql``}`;
	return statement<WalkRow>(
		`walk_${mode}`,
		sql`with recursive start as (
			select coalesce(${p("start")}::text, ${sessions.leafId}) as id, ${sessions.key} as key,
				${sessions.entryCount} as entry_count,
				case when ${p("start")}::text is null then ${sessions.leafDepth}
					else (select ${entries.depth} from ${entries}
						where ${entries.sessionKey} = ${sessions.key} and ${entries.id} = ${p("start")}::text) end as depth
			from ${sessions}
			where ${sessions.id} = ${p("sessionId")} and ${sessions.workspaceId} = ${p("ws")}
		), walk as (
			select ${entries.id} as id, ${entries.parentId} as parent_id, ${entries.type} as type,
				${keptFrom} as stop_at,
				false as done,
				${keptFrom} as kept_from,
				false as beyond
				${carried}
			from ${entries} join start on ${entries.sessionKey} = start.key and ${entries.id} = start.id
			where not ${scanWorthIt}
			union all
			select ${entries.id}, ${entries.parentId}, ${entries.type},
				case when ${entries.type} = 'compaction' then ${entries.payload}->>'firstKeptEntryId' else walk.stop_at end,
				walk.stop_at is not null and ${entries.id} = walk.stop_at,
				coalesce(walk.kept_from, ${keptFrom}),
				walk.beyond or (walk.kept_from is not null and walk.id = walk.kept_from)
				${carried}
			from walk join ${entries} on ${entries.sessionKey} = (select key from start) and ${entries.id} = walk.parent_id
			${mode === "bounded" ? sql`where not walk.done` : sql``}
		)
		${walkSelect}
		union all
		${scanSelect}`,
	);
});
