/**
 * The Postgres backend, on Drizzle; one class serves embedded PGlite and
 * postgres.js. Writes run the shared write procedure (../write.ts) in one
 * transaction that locks the session row. Path and context reads are one
 * recursive CTE each (bounded number of statements, not one per entry).
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { projectContext } from "../../session/context.js";
import type { LabelEntry } from "../../session/entry.js";
import {
	assembleEntry,
	type DraftEntry,
	type EntryType,
	ownFields,
	type SessionContext,
	type StoredEntry,
} from "../../session/entry.js";
import { invalidInput, SessionError } from "../../session/errors.js";
import { checkForkSize, planFork } from "../../session/fork.js";
import { formatSessionFile, parseSessionFile } from "../../session/jsonl.js";
import { isStorableText } from "../../session/validate.js";
import { type CommitAnnouncer, type CommitNotice, encodeNotice } from "../commits.js";
import { sessionWindow, toPage } from "../paging.js";
import {
	forkedSessionRecord,
	forkTargetId,
	importedSessionRecord,
	newSessionRecord,
	sessionExists,
} from "../records.js";
import {
	type AppendOptions,
	type CreateSessionInput,
	type EntryLogQuery,
	type ForkInput,
	headerOf,
	type ImportOptions,
	type Page,
	type PathQuery,
	type SessionPageArgs,
	type SessionRecord,
	type SessionStore,
} from "../store.js";
import {
	authorOf,
	createdNotice,
	notFoundSession,
	systemClock,
	TreeWrites,
	type WriteOutcome,
	writeDrafts,
	writeNotice,
} from "../write.js";
import * as schema from "./schema.js";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Fresh planner statistics after this many new rows, or this share of the table if more. */
const ANALYZE_MIN_ROWS = 500;
const ANALYZE_SHARE = 0.1;

/** Rows inserted per statement on import and fork (progress is reported per batch). */
const IMPORT_BATCH = 1000;

/** Settings entries: read from the whole path even past the compaction bound. */
const SETTINGS_TYPES = sql.raw(`('thinking_level_change', 'model_change', 'active_tools_change')`);

/** A timestamp column as `toISOString()` text, the form pi writes (both drivers, no Date parsing). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const ENTRY_COLUMNS = sql.raw(
	`e.session_id, e.seq, e.id, e.parent_id, e.type, e.depth, e.author, e.payload, ${iso("e.timestamp")} as ts`,
);

const SESSION_COLUMNS = sql.raw(
	`s.id, s.workspace_id, s.cwd, s.parent_session_id, s.name, s.leaf_id, s.leaf_depth, s.last_seq, s.entry_count, s.header,
	 ${iso("s.created_at")} as created, ${iso("s.updated_at")} as updated`,
);

interface EntryRow {
	session_id: string;
	seq: number;
	id: string;
	parent_id: string | null;
	type: EntryType;
	depth: number;
	author: string | null;
	payload: Record<string, unknown> | string;
	ts: string;
}

interface SessionRow {
	id: string;
	workspace_id: string;
	cwd: string | null;
	parent_session_id: string | null;
	name: string | null;
	leaf_id: string | null;
	leaf_depth: number | null;
	last_seq: number;
	entry_count: number;
	header: Record<string, unknown> | string;
	created: string;
	updated: string;
}

/** jsonb arrives parsed from both drivers, except inside some raw results; accept both. */
const json = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

function toStored(row: EntryRow): StoredEntry {
	return {
		sessionId: row.session_id,
		seq: Number(row.seq),
		depth: Number(row.depth),
		author: row.author,
		entry: assembleEntry(row.type, row.id, row.parent_id, row.ts, json(row.payload)),
	};
}

function toRecord(row: SessionRow): SessionRecord {
	return {
		workspaceId: row.workspace_id,
		sessionId: row.id,
		name: row.name,
		cwd: row.cwd,
		createdAt: row.created,
		updatedAt: row.updated,
		parentSessionId: row.parent_session_id,
		leafId: row.leaf_id,
		leafDepth: row.leaf_depth === null ? null : Number(row.leaf_depth),
		lastSeq: Number(row.last_seq),
		entryCount: Number(row.entry_count),
		headerExtra: json(row.header),
	};
}

function sessionInsert(record: SessionRecord): typeof schema.sessions.$inferInsert {
	return {
		id: record.sessionId,
		workspaceId: record.workspaceId,
		createdAt: record.createdAt,
		updatedAt: record.updatedAt,
		cwd: record.cwd,
		parentSessionId: record.parentSessionId,
		name: record.name,
		leafId: record.leafId,
		leafDepth: record.leafDepth,
		lastSeq: record.lastSeq,
		entryCount: record.entryCount,
		header: record.headerExtra,
	};
}

/**
 * INSERT of entry rows as one JSON parameter expanded by the server: cheap to
 * build for a thousand rows (an import) as for one (an append).
 */
function insertEntries(ws: string, rows: readonly StoredEntry[]): SQL {
	const records = rows.map((r) => ({
		session_id: r.sessionId,
		seq: r.seq,
		id: r.entry.id,
		parent_id: r.entry.parentId,
		type: r.entry.type,
		ts: r.entry.timestamp,
		depth: r.depth,
		author: r.author,
		payload: ownFields(r.entry),
	}));
	return sql`insert into entries (workspace_id, session_id, seq, id, parent_id, type, timestamp, depth, author, payload)
		select ${ws}, r.session_id, r.seq, r.id, r.parent_id, r.type, r.ts::timestamptz, r.depth, r.author, r.payload
		from jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
			as r(session_id text, seq int, id text, parent_id text, type text, ts text, depth int, author text, payload jsonb)`;
}

/** The session row of a new session; ALREADY_EXISTS when the workspace has that id. */
async function insertSession(db: Db, record: SessionRecord): Promise<void> {
	const inserted = await db
		.insert(schema.sessions)
		.values(sessionInsert(record))
		.onConflictDoNothing()
		.returning({ id: schema.sessions.id });
	if (inserted.length === 0) throw sessionExists(record.sessionId);
}

/**
 * `x in ${list(values)}`: the values as one JSON parameter, so a list has no
 * size limit (one parameter per value stops at 65,535) and one statement text.
 */
const list = (values: readonly string[]) =>
	sql`(select jsonb_array_elements_text(${JSON.stringify(values.filter(isStorableText))}::jsonb))`;

async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
	const result = (await db.execute(query)) as unknown;
	return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The stored depth of one entry; null when the session has no such entry. */
async function entryDepth(db: Db, ws: string, sessionId: string, entryId: string): Promise<number | null> {
	if (!isStorableText(entryId)) return null;
	const { entries } = schema;
	const [row] = await db
		.select({ depth: entries.depth })
		.from(entries)
		.where(and(eq(entries.workspaceId, ws), eq(entries.sessionId, sessionId), eq(entries.id, entryId)));
	return row ? row.depth : null;
}

/** Maintenance the store runs on the raw driver, outside the statement log. */
export interface Upkeep {
	/** ANALYZE the tables; resolves with the number of entry rows the statistics now count. */
	analyze(): Promise<number>;
}

export interface PgStoreOptions {
	backend: "pglite" | "postgres";
	/** The statement timeout inside an import's or a fork's transaction (Postgres; longer than the connection's). */
	bulkStatementTimeoutMs?: number;
	upkeep: Upkeep;
	/** How commits are announced to live subscribers; none when absent. */
	announce?: CommitAnnouncer;
	/** Closes the underlying client. */
	close: () => Promise<void>;
}

export class PgStore extends TreeWrites implements SessionStore {
	readonly backend: "pglite" | "postgres";
	readonly db: Db;
	private readonly closeClient: () => Promise<void>;

	private readonly announcer: CommitAnnouncer | undefined;

	private readonly upkeep: Upkeep;

	private readonly bulkStatementTimeoutMs: number | undefined;

	constructor(db: Db, options: PgStoreOptions) {
		super();
		this.bulkStatementTimeoutMs = options.bulkStatementTimeoutMs;
		this.db = db;
		this.upkeep = options.upkeep;
		this.backend = options.backend;
		this.closeClient = options.close;
		this.announcer = options.announce;
	}

	/** Bulk work (import, fork) may run longer than a request's statement: for this transaction only. */
	private async bulkTimeout(tx: Db): Promise<void> {
		if (this.bulkStatementTimeoutMs !== undefined) {
			await tx.execute(
				sql`select set_config('statement_timeout', ${String(this.bulkStatementTimeoutMs)}, true)`,
			);
		}
	}

	/** NOTIFY inside the transaction: delivered only if it commits, and only then. */
	private async notifyIn(tx: Db, notice: CommitNotice | null): Promise<void> {
		if (notice && this.announcer?.kind === "notify") {
			await tx.execute(sql`select pg_notify(${this.announcer.channel}, ${encodeNotice(notice)})`);
		}
	}

	/** The in-process announcement, after the commit. */
	private announced(notice: CommitNotice | null): void {
		if (notice && this.announcer?.kind === "callback") this.announcer.onCommit(notice);
		if (notice) this.countWrites(notice.toSeq - notice.fromSeq + 1);
	}

	private rowsSinceAnalyze = 0;
	private rowsAtAnalyze = 0;
	private analyzing: Promise<void> | undefined;

	/**
	 * Fresh planner statistics after many new rows. Without them the planner
	 * walks a path by scanning the session's entries at every step (quadratic)
	 * and an append looks its leaf up through the wrong index. PGlite has no
	 * autovacuum at all, and Postgres' autovacuum may be off or lag a bulk
	 * import; the threshold follows autovacuum's (a share of the table).
	 */
	private countWrites(rows: number): void {
		this.rowsSinceAnalyze += rows;
		if (this.rowsSinceAnalyze >= Math.max(ANALYZE_MIN_ROWS, this.rowsAtAnalyze * ANALYZE_SHARE))
			void this.analyze();
	}

	/** Runs on the raw client, outside the statement log (it is upkeep, not a query of a request). */
	analyze(): Promise<void> {
		this.rowsSinceAnalyze = 0;
		this.analyzing ??= this.upkeep
			.analyze()
			.then((rows) => {
				this.rowsAtAnalyze = rows;
			})
			.catch(() => {})
			.finally(() => {
				this.analyzing = undefined;
			});
		return this.analyzing;
	}

	/** An id Postgres cannot hold names no session: NOT_FOUND before any statement (which would fail on it). */
	private storable(sessionId: string): void {
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
	}

	/** Empty results are ambiguous; this tells a missing session apart. */
	private async requireSession(ws: string, sessionId: string, db: Db = this.db): Promise<SessionRecord> {
		const found = await this.getSessionWith(db, ws, sessionId, "");
		if (!found) throw notFoundSession(sessionId);
		return found;
	}

	private async getSessionWith(db: Db, ws: string, sessionId: string, lock: "" | "for update" | "for share") {
		// Postgres cannot even compare with such an id (U+0000 fails, a lone surrogate becomes U+FFFD): no session has it.
		if (!isStorableText(sessionId)) return null;
		const [row] = await rowsOf<SessionRow>(
			db,
			sql`select ${SESSION_COLUMNS} from sessions s where s.id = ${sessionId} and s.workspace_id = ${ws} ${sql.raw(lock)}`,
		);
		return row ? toRecord(row) : null;
	}

	async createSession(ws: string, input: CreateSessionInput = {}): Promise<SessionRecord> {
		const record = newSessionRecord(ws, input, systemClock.now());
		await this.db.transaction(async (tx) => {
			await insertSession(tx, record);
			await this.notifyIn(tx, createdNotice(record));
		});
		this.announced(createdNotice(record));
		return record;
	}

	async getSession(ws: string, sessionId: string): Promise<SessionRecord | null> {
		return this.getSessionWith(this.db, ws, sessionId, "");
	}

	async getSessions(ws: string, sessionIds: readonly string[]): Promise<Map<string, SessionRecord>> {
		if (sessionIds.length === 0) return new Map();
		const rows = await rowsOf<SessionRow>(
			this.db,
			sql`select ${SESSION_COLUMNS} from sessions s where s.workspace_id = ${ws} and s.id in ${list([...new Set(sessionIds)])}`,
		);
		return new Map(rows.map((r) => [r.id, toRecord(r)]));
	}

	async listSessions(ws: string, args: SessionPageArgs): Promise<Page<SessionRecord>> {
		const window = sessionWindow(args);
		const after = window.after
			? sql`and (s.updated_at, s.id) < (${window.after.updatedAt}::timestamptz, ${window.after.sessionId})`
			: sql``;
		const before = window.before
			? sql`and (s.updated_at, s.id) > (${window.before.updatedAt}::timestamptz, ${window.before.sessionId})`
			: sql``;
		const order = window.backward
			? sql`order by s.updated_at asc, s.id asc`
			: sql`order by s.updated_at desc, s.id desc`;
		const rows = await rowsOf<SessionRow>(
			this.db,
			sql`select ${SESSION_COLUMNS} from sessions s where s.workspace_id = ${ws} ${after} ${before} ${order} limit ${window.limit + 1}`,
		);
		const [count] = await rowsOf<{ n: number }>(
			this.db,
			sql`select count(*)::int as n from sessions where workspace_id = ${ws}`,
		);
		return toPage(rows.map(toRecord), window, Number(count?.n ?? 0));
	}

	protected async write(
		ws: string,
		sessionId: string,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome> {
		const outcome = await this.db.transaction(async (tx) =>
			writeDrafts(
				{
					lockSession: () => this.getSessionWith(tx, ws, sessionId, "for update"),
					findEntries: async (ids) => {
						if (ids.length === 0) return new Map();
						const rows = await rowsOf<EntryRow>(
							tx,
							sql`select ${ENTRY_COLUMNS} from entries e where e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.id in ${list(ids)}`,
						);
						return new Map(rows.map((r) => [r.id, toStored(r)]));
					},
					commit: async (rows, next) => {
						const notice = writeNotice({ rows: [...rows], session: next });
						const notify =
							notice && this.announcer?.kind === "notify"
								? sql`returning pg_notify(${this.announcer.channel}, ${encodeNotice(notice)})`
								: sql``;
						// One statement inserts the rows, moves the pointer and sends the notice.
						await tx.execute(
							sql`with appended as (${insertEntries(ws, rows)})
								update sessions set leaf_id = ${next.leafId}, leaf_depth = ${next.leafDepth}, last_seq = ${next.lastSeq},
									entry_count = ${next.entryCount}, name = ${next.name}, updated_at = ${next.updatedAt}::timestamptz
								where workspace_id = ${ws} and id = ${sessionId} ${notify}`,
						);
					},
				},
				sessionId,
				drafts,
				options,
			),
		);
		this.announced(writeNotice(outcome));
		return outcome;
	}

	async getEntry(ws: string, sessionId: string, entryId: string): Promise<StoredEntry | null> {
		return (await this.getEntries(ws, sessionId, [entryId])).get(entryId) ?? null;
	}

	async getEntries(
		ws: string,
		sessionId: string,
		entryIds: readonly string[],
	): Promise<Map<string, StoredEntry>> {
		this.storable(sessionId);
		const ids = [...new Set(entryIds)];
		const rows =
			ids.length === 0
				? []
				: await rowsOf<EntryRow>(
						this.db,
						sql`select ${ENTRY_COLUMNS} from entries e where e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.id in ${list(ids)}`,
					);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		return new Map(rows.map((r) => [r.id, toStored(r)]));
	}

	async listEntries(ws: string, sessionId: string, query: EntryLogQuery = {}): Promise<StoredEntry[]> {
		this.storable(sessionId);
		const { afterSeq = 0, beforeSeq, limit, types, fromEnd = false } = query;
		if (types && types.length === 0) {
			await this.requireSession(ws, sessionId);
			return [];
		}
		const conditions = [
			sql`e.workspace_id = ${ws} and e.session_id = ${sessionId}`,
			sql`e.seq > ${afterSeq}`,
			...(beforeSeq === undefined ? [] : [sql`e.seq < ${beforeSeq}`]),
			...(types ? [sql`e.type in ${list(types)}`] : []),
		];
		const order = fromEnd ? sql`order by e.seq desc` : sql`order by e.seq asc`;
		const rows = await rowsOf<EntryRow>(
			this.db,
			sql`select ${ENTRY_COLUMNS} from entries e where ${sql.join(conditions, sql` and `)} ${order} ${limit === undefined ? sql`` : sql`limit ${limit}`}`,
		);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		const entries = rows.map(toStored);
		return fromEnd ? entries.reverse() : entries;
	}

	async countEntries(ws: string, sessionId: string, types?: readonly EntryType[]): Promise<number> {
		this.storable(sessionId);
		if (!types) return (await this.requireSession(ws, sessionId)).entryCount;
		if (types.length === 0) return 0;
		const [row] = await rowsOf<{ n: number }>(
			this.db,
			sql`select count(*)::int as n from entries e where e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.type in ${list(types)}`,
		);
		const n = Number(row?.n ?? 0);
		if (n === 0) await this.requireSession(ws, sessionId);
		return n;
	}

	async children(
		ws: string,
		sessionId: string,
		entryIds: readonly string[],
	): Promise<Map<string, StoredEntry[]>> {
		this.storable(sessionId);
		const result = new Map<string, StoredEntry[]>(entryIds.map((id) => [id, []]));
		if (entryIds.length === 0) return result;
		const rows = await rowsOf<EntryRow>(
			this.db,
			sql`select ${ENTRY_COLUMNS} from entries e
				where e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.parent_id in ${list([...new Set(entryIds)])} and e.type <> 'leaf' order by e.seq`,
		);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		for (const row of rows) result.get(row.parent_id as string)?.push(toStored(row));
		return result;
	}

	/** Latest label entry per target; null targets means every labelled entry. */
	private async labelEntries(db: Db, ws: string, sessionId: string, targets: readonly string[] | null) {
		if (targets?.length === 0) return { labels: new Map<string, LabelEntry>(), empty: true };
		const rows = await rowsOf<EntryRow>(
			db,
			sql`select distinct on (e.payload->>'targetId') ${ENTRY_COLUMNS} from entries e
				where e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.type = 'label'
				${targets ? sql`and e.payload->>'targetId' in ${list(targets)}` : sql``}
				order by e.payload->>'targetId', e.seq desc`,
		);
		const labels = new Map<string, LabelEntry>();
		for (const row of rows) {
			const entry = toStored(row).entry as LabelEntry;
			if (entry.label) labels.set(entry.targetId, entry);
		}
		return { labels, empty: rows.length === 0 };
	}

	async labels(ws: string, sessionId: string, entryIds: readonly string[]): Promise<Map<string, string>> {
		this.storable(sessionId);
		if (entryIds.length === 0) return new Map();
		const { labels, empty } = await this.labelEntries(this.db, ws, sessionId, [...new Set(entryIds)]);
		if (empty) await this.requireSession(ws, sessionId);
		return new Map([...labels].map(([id, entry]) => [id, entry.label as string]));
	}

	async tips(ws: string, sessionId: string): Promise<StoredEntry[]> {
		this.storable(sessionId);
		const rows = await rowsOf<EntryRow>(
			this.db,
			sql`select ${ENTRY_COLUMNS} from entries e
				where e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.type <> 'leaf'
				and not exists (select 1 from entries c where c.workspace_id = e.workspace_id and c.session_id = e.session_id and c.parent_id = e.id and c.type <> 'leaf')
				order by e.seq`,
		);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		return rows.map(toStored);
	}

	/**
	 * One recursive walk from `fromId` (default: the session's leaf) to the
	 * root. `mode` picks the rows: the whole path; pi's compaction-bounded
	 * path; or, for the context, the whole path with entries older than the
	 * latest compaction's first kept entry reduced to what settings need.
	 */
	private async walk(
		db: Db,
		ws: string,
		sessionId: string,
		fromId: string | null | undefined,
		mode: "full" | "bounded" | "context",
	) {
		this.storable(sessionId);
		if (fromId !== undefined && fromId !== null && !isStorableText(fromId)) {
			await this.requireSession(ws, sessionId, db);
			throw new SessionError("NOT_FOUND", `Entry ${fromId} not found in session ${sessionId}`, {
				field: "fromId",
			});
		}
		const start = fromId ?? null;
		const rows = await rowsOf<EntryRow & { beyond: boolean }>(
			db,
			sql`with recursive start as (
				select coalesce(${start}::text, s.leaf_id) as id from sessions s where s.id = ${sessionId} and s.workspace_id = ${ws}
			), walk as (
				select e.id, e.parent_id, e.type, e.seq,
					case when e.type = 'compaction' then e.payload->>'firstKeptEntryId' end as stop_at,
					false as done,
					case when e.type = 'compaction' then e.payload->>'firstKeptEntryId' end as kept_from,
					false as beyond
				from entries e join start on e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.id = start.id
				union all
				select p.id, p.parent_id, p.type, p.seq,
					case when p.type = 'compaction' then p.payload->>'firstKeptEntryId' else w.stop_at end,
					w.stop_at is not null and p.id = w.stop_at,
					coalesce(w.kept_from, case when p.type = 'compaction' then p.payload->>'firstKeptEntryId' end),
					w.beyond or (w.kept_from is not null and w.id = w.kept_from)
				from walk w join entries p on p.workspace_id = ${ws} and p.session_id = ${sessionId} and p.id = w.parent_id
				${mode === "bounded" ? sql`where not w.done` : sql``}
			)
			select e.session_id, e.seq, e.id, e.parent_id, e.type, e.depth, e.author, walk.beyond,
				${sql.raw(iso("e.timestamp"))} as ts,
				${
					mode === "context"
						? sql`case when not walk.beyond or e.type in ${SETTINGS_TYPES} then e.payload
							else jsonb_build_object('message', jsonb_build_object('role', 'assistant',
								'provider', e.payload->'message'->'provider', 'model', e.payload->'message'->'model'))
							end`
						: sql`e.payload`
				} as payload
			from walk join entries e on e.workspace_id = ${ws} and e.session_id = ${sessionId} and e.id = walk.id
			${
				mode === "context"
					? sql`where not walk.beyond or e.type in ${SETTINGS_TYPES}
						or (e.type = 'message' and e.payload->'message'->>'role' = 'assistant')`
					: sql``
			}
			order by e.depth`,
		);
		const path = rows.map(toStored);
		if (fromId !== undefined && fromId !== null) {
			const first = path[path.length - 1];
			if (!first || first.entry.id !== fromId) {
				await this.requireSession(ws, sessionId, db);
				throw new SessionError("NOT_FOUND", `Entry ${fromId} not found in session ${sessionId}`, {
					field: "fromId",
				});
			}
			if (first.entry.type === "leaf")
				throw invalidInput("fromId", `entry ${fromId} is a leaf record, not a tree node`);
		} else if (path.length === 0) {
			await this.requireSession(ws, sessionId, db);
		}
		return path;
	}

	async activePath(ws: string, sessionId: string, query: PathQuery = {}): Promise<StoredEntry[]> {
		return this.walk(this.db, ws, sessionId, query.fromId, query.full ? "full" : "bounded");
	}

	async context(
		ws: string,
		sessionId: string,
		query: { fromId?: string | null } = {},
	): Promise<SessionContext> {
		const path = await this.walk(this.db, ws, sessionId, query.fromId, "context");
		return projectContext(path.map((e) => e.entry));
	}

	async importSession(ws: string, jsonl: string, options: ImportOptions = {}): Promise<SessionRecord> {
		const file = parseSessionFile(jsonl, {
			...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
			author: authorOf(options),
		});
		const record = importedSessionRecord(ws, file);
		await this.db.transaction(async (tx) => {
			await this.bulkTimeout(tx);
			await insertSession(tx, record);
			for (let i = 0; i < file.rows.length; i += IMPORT_BATCH) {
				const batch = file.rows.slice(i, i + IMPORT_BATCH);
				await tx.execute(insertEntries(ws, batch));
				options.onProgress?.(i + batch.length, file.rows.length);
			}
			await this.notifyIn(tx, createdNotice(record));
		});
		this.announced(createdNotice(record));
		return record;
	}

	async exportSession(ws: string, sessionId: string): Promise<string> {
		const session = await this.requireSession(ws, sessionId);
		const entries = await this.listEntries(ws, sessionId);
		return formatSessionFile(
			headerOf(session),
			entries.map((e) => e.entry),
		);
	}

	async forkSession(ws: string, sessionId: string, input: ForkInput = {}): Promise<SessionRecord> {
		const newId = forkTargetId(input.newSessionId);
		const author = authorOf(input);
		const forked = await this.db.transaction(async (tx) => {
			await this.bulkTimeout(tx);
			const source = await this.getSessionWith(tx, ws, sessionId, "for share");
			if (!source) throw notFoundSession(sessionId);
			// Refuse an over-long fork from the start entry's depth, before walking its path.
			const startDepth =
				input.entryId === undefined ? source.leafDepth : await entryDepth(tx, ws, sessionId, input.entryId);
			if (startDepth !== null) checkForkSize(startDepth + 1);
			let path: StoredEntry[];
			try {
				path = await this.walk(tx, ws, sessionId, input.entryId, "full");
			} catch (error) {
				if (error instanceof SessionError && error.field === "fromId") {
					throw new SessionError(error.code, error.message, { field: "entryId" });
				}
				throw error;
			}
			const { labels } = await this.labelEntries(
				tx,
				ws,
				sessionId,
				path.map((e) => e.entry.id),
			);
			const plan = planFork(newId, path, labels, systemClock, author);
			const record = forkedSessionRecord(source, newId, plan, systemClock.now());
			await insertSession(tx, record);
			for (let i = 0; i < plan.rows.length; i += IMPORT_BATCH) {
				await tx.execute(insertEntries(ws, plan.rows.slice(i, i + IMPORT_BATCH)));
			}
			await this.notifyIn(tx, createdNotice(record));
			return record;
		});
		this.announced(createdNotice(forked));
		return forked;
	}

	async close(): Promise<void> {
		await this.analyzing?.catch(() => {});
		await this.closeClient();
	}
}
