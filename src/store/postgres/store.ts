/**
 * PgStore: the SessionStore on Postgres and PGlite (./schema.ts). Each method
 * decides which statements a call runs, in which transaction, and what it
 * announces after the commit; the statements are ./queries.ts (reads),
 * ./walk.ts (paths and contexts), ./tree.ts (tree views), ./writes.ts (tree
 * writes), ./inserts.ts (imports and forks), ./analytics/session-stats.ts and
 * ./analytics/metrics.ts (analytics), ./search.ts.
 *
 * One file: the interface's one implementation for both backends, a method
 * per SessionStore method, each a few lines choosing statements.
 */
import { and, eq, sql } from "drizzle-orm";
import { checkMetricsQuery, type MetricsQuery, type MetricsResult } from "../../session/analytics/metrics.js";
import type { SessionStats } from "../../session/analytics/session-stats.js";
import { projectContext } from "../../session/context.js";
import type {
	DraftEntry,
	EntryTypeOrOther,
	LabelEntry,
	SessionContext,
	StoredEntry,
} from "../../session/entry.js";
import { isSessionError } from "../../session/errors.js";
import { exportSessionFile } from "../../session/export.js";
import { checkForkSize, planFork } from "../../session/fork.js";
import { type ParsedSessionFile, parseSessionFile } from "../../session/jsonl.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "../../session/limits.js";
import type { Comparison } from "../../session/tree-view.js";
import { isStorableText } from "../../session/validate.js";
import { activityCursor, afterTransaction, parseActivityCursor } from "../activity-cursor.js";
import type { CommitAnnouncer } from "../commits.js";
import { continued, readContinuation } from "../continuation.js";
import { sessionWindow, toPage } from "../paging.js";
import {
	exportFormat,
	forkedSessionRecord,
	forkTargetId,
	importedSessionRecord,
	newSessionRecord,
	reimported,
	sessionIdTaken,
} from "../records.js";
import type { SearchPage, SearchQuery } from "../search.js";
import {
	type ActivityQuery,
	type ActivityRecord,
	type AppendOptions,
	type AppendResult,
	type AuthorOptions,
	type ContextQuery,
	type ContinuedSession,
	type ContinueInput,
	type CreateSessionInput,
	type EntryLogQuery,
	type ExportOptions,
	type ForkInput,
	headerOf,
	type ImportedSession,
	type ImportOptions,
	type MoveLeafInput,
	type MoveLeafResult,
	type Page,
	type PathQuery,
	type RebuildRollupsOptions,
	type SessionPageArgs,
	type SessionQuery,
	type SessionRecord,
	type SessionStore,
	type SessionWithEntries,
	type TreePage,
	type TreeQuery,
} from "../store.js";
import {
	appendResult,
	appendWrite,
	authorOf,
	createdNotice,
	deletedNotice,
	labelWrite,
	moveResult,
	moveWrite,
	notFoundSession,
	renameWrite,
	systemClock,
} from "../write.js";
import { dirtyWorkspaces, FoldSchedule, foldWorkspace, removeSessionRollups } from "./analytics/fold.js";
import { rollupMetrics } from "./analytics/metrics.js";
import { rebuildSessionRollups, sessionStatsOf } from "./analytics/session-stats.js";
import type { Db } from "./db.js";
import { insertEntryBatches, logActivity, statementTimeout } from "./inserts.js";
import {
	activityRows,
	childRows,
	countByType,
	countSessions,
	entryDepth,
	entryLogRows,
	entryRows,
	insertSession,
	latestLabelRows,
	sessionKeyOf,
	sessionRow,
	sessionRowPrepared,
	sessionRows,
	sessionWindowRows,
	sessionWithLogRows,
	tipRows,
} from "./queries.js";
import { sessionColumns, setLabels, toRecord, toStored } from "./rows.js";
import { activityLog, assistantTurns, entries, sessions } from "./schema.js";
import { searchEntries } from "./search.js";
import { findSessions } from "./session-query.js";
import { statement } from "./statements.js";

/** The oldest transaction still running (the next one when none is): xid8 as decimal text. */
const oldestRunningTransaction = statement<{ xmin: string }>(
	"oldest_running_transaction",
	sql`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`,
);

import { compareNodes, PathCache, treePageRows } from "./tree.js";
import { AnalyzeSchedule, type Upkeep } from "./upkeep.js";
import { type WalkMode, type WalkRead, walkPath } from "./walk.js";
import { PgWrites } from "./writes.js";

export type { Db } from "./db.js";
export type { Upkeep } from "./upkeep.js";

export interface PgStoreOptions {
	backend: "pglite" | "postgres";
	/** The input limits writes are held to (default DEFAULT_INPUT_LIMITS). */
	limits?: InputLimits;
	/** The statement timeout inside an import's or a fork's transaction (Postgres; longer than the connection's). */
	bulkStatementTimeoutMs?: number;
	upkeep: Upkeep;
	/** How commits are announced to live subscribers; none when absent. */
	announce?: CommitAnnouncer;
	/** Closes the underlying client. */
	close: () => Promise<void>;
	/** Conditional commits a tree write may lose before it takes the row lock (./writes.ts; default 3). */
	optimisticAttempts?: number;
	/** How long after a write its workspace's rollups are folded (./analytics/fold.ts; default FOLD_DELAY_MS). */
	foldDelayMs?: number;
	/**
	 * Where upkeep runs (folds, rollup rebuilds): outside the statement log,
	 * and on Postgres on a connection of its own under the bulk statement
	 * timeout, as it is no request's work (default: `db`).
	 */
	upkeepDb?: Db;
}

export class PgStore implements SessionStore {
	readonly backend: "pglite" | "postgres";
	readonly db: Db;
	private readonly closeClient: () => Promise<void>;

	private readonly writes: PgWrites;
	/** Active paths of recently paged trees (./tree.ts#PathCache). */
	private readonly paths = new PathCache();

	private readonly statistics: AnalyzeSchedule;
	/** Workspace rollups folded in the background after writes (./analytics/fold.ts). */
	private readonly folds: FoldSchedule;
	private readonly upkeepDb: Db;

	private readonly bulkStatementTimeoutMs: number | undefined;
	/** The input limits this store holds writes to (the server's configured ones, or the defaults). */
	private readonly limits: InputLimits;

	constructor(db: Db, options: PgStoreOptions) {
		this.limits = options.limits ?? DEFAULT_INPUT_LIMITS;
		this.bulkStatementTimeoutMs = options.bulkStatementTimeoutMs;
		this.db = db;
		this.statistics = new AnalyzeSchedule(options.upkeep);
		this.upkeepDb = options.upkeepDb ?? db;
		this.folds = new FoldSchedule(
			async (ws) => (await foldWorkspace(this.upkeepDb, ws)).finished,
			options.foldDelayMs,
		);
		this.backend = options.backend;
		this.closeClient = options.close;
		this.writes = new PgWrites(db, {
			announce: options.announce,
			onWritten: (notice) => {
				this.statistics.countWrites(notice.toSeq - notice.fromSeq + 1);
				this.folds.touched(notice.workspaceId);
			},
			...(options.optimisticAttempts === undefined ? {} : { optimisticAttempts: options.optimisticAttempts }),
		});
	}

	/** Bulk work (import, fork) may run longer than a request's statement: for this transaction only. */
	private async bulkTimeout(tx: Db): Promise<void> {
		if (this.bulkStatementTimeoutMs !== undefined)
			await tx.execute(statementTimeout(this.bulkStatementTimeoutMs));
	}

	/** Runs on the raw client, outside the statement log (it is upkeep, not a query of a request). */
	analyze(): Promise<void> {
		return this.statistics.analyze();
	}

	/** An id Postgres cannot hold names no session: NOT_FOUND before any statement (which would fail on it). */
	private storable(sessionId: string): void {
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
	}

	/** Empty results are ambiguous; this tells a missing session apart. */
	private async requireSession(ws: string, sessionId: string, db: Db = this.db): Promise<SessionRecord> {
		const found = await this.getSessionWith(db, ws, sessionId, null);
		if (!found) throw notFoundSession(sessionId);
		return found;
	}

	private async getSessionWith(db: Db, ws: string, sessionId: string, lock: "update" | "share" | null) {
		// Postgres cannot even compare with such an id (U+0000 fails, a lone surrogate becomes U+FFFD): no session has it.
		if (!isStorableText(sessionId)) return null;
		const row = lock
			? await sessionRow(db, ws, sessionId, lock)
			: await sessionRowPrepared(db, ws, sessionId);
		return row ? toRecord(row) : null;
	}

	async createSession(ws: string, input: CreateSessionInput = {}): Promise<SessionRecord> {
		const record = newSessionRecord(ws, input, systemClock.now(), this.limits);
		await this.db.transaction(async (tx) => {
			const key = await insertSession(tx, record);
			await tx.execute(logActivity(sql`${key}::integer`, sql`1`, sql`0`, true));
			await this.writes.notifyIn(tx, createdNotice(record));
		});
		this.writes.announced(createdNotice(record));
		return record;
	}

	async getSession(ws: string, sessionId: string): Promise<SessionRecord | null> {
		return this.getSessionWith(this.db, ws, sessionId, null);
	}

	async getSessions(ws: string, sessionIds: readonly string[]): Promise<Map<string, SessionRecord>> {
		if (sessionIds.length === 0) return new Map();
		const ids = [...new Set(sessionIds)];
		// One id (a `session(sessionId:)` query) is the common case: the prepared statement.
		if (ids.length === 1) {
			const found = await this.getSessionWith(this.db, ws, ids[0] as string, null);
			return new Map(found ? [[found.sessionId, found]] : []);
		}
		const rows = await sessionRows(this.db, ws, ids);
		return new Map(rows.map((r) => [r.id, toRecord(r)]));
	}

	async listSessions(ws: string, args: SessionPageArgs): Promise<Page<SessionRecord>> {
		const window = sessionWindow(args);
		const rows = await sessionWindowRows(this.db, ws, window);
		const total = await countSessions(this.db, ws);
		return toPage(rows.map(toRecord), window, total);
	}

	async appendEntry(
		ws: string,
		sessionId: string,
		draft: DraftEntry,
		options: AppendOptions = {},
	): Promise<AppendResult> {
		return appendResult(await this.writes.write(ws, appendWrite(sessionId, draft, options, this.limits)));
	}

	async moveLeaf(ws: string, sessionId: string, input: MoveLeafInput): Promise<MoveLeafResult> {
		return moveResult(await this.writes.write(ws, moveWrite(sessionId, input, this.limits)));
	}

	async setLabel(
		ws: string,
		sessionId: string,
		targetId: string,
		label?: string | null,
		options: AuthorOptions = {},
	): Promise<AppendResult> {
		const write = labelWrite(sessionId, targetId, label, options, this.limits);
		return appendResult(await this.writes.write(ws, write));
	}

	async renameSession(
		ws: string,
		sessionId: string,
		name: string,
		options: AuthorOptions = {},
	): Promise<AppendResult> {
		return appendResult(await this.writes.write(ws, renameWrite(sessionId, name, options, this.limits)));
	}

	async setArchived(ws: string, sessionId: string, archived: boolean): Promise<SessionRecord> {
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
		const [row] = await this.db
			.update(sessions)
			.set({ archivedAt: archived ? sql`coalesce(${sessions.archivedAt}, now())` : null })
			.where(and(eq(sessions.workspaceId, ws), eq(sessions.id, sessionId)))
			.returning(sessionColumns);
		if (!row) throw notFoundSession(sessionId);
		return toRecord(row);
	}

	async deleteSession(ws: string, sessionId: string): Promise<SessionRecord> {
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
		const deleted = await this.db.transaction(async (tx) => {
			await this.bulkTimeout(tx);
			// The row lock: a write to the session waits, then finds no session (NOT_FOUND).
			const [row] = await tx
				.select({ key: sessions.key, session: sessionColumns })
				.from(sessions)
				.where(and(eq(sessions.workspaceId, ws), eq(sessions.id, sessionId)))
				.for("update");
			if (!row) throw notFoundSession(sessionId);
			const { key } = row;
			// The entries trigger lets this transaction delete this session's entries, and nothing else.
			await tx.execute(sql`select set_config('session_tree.deleting_session', ${String(key)}, true)`);
			await removeSessionRollups(tx, ws, key);
			await tx.delete(assistantTurns).where(eq(assistantTurns.sessionKey, key));
			await tx.delete(activityLog).where(eq(activityLog.sessionKey, key));
			await tx.delete(entries).where(eq(entries.sessionKey, key));
			await tx.delete(sessions).where(eq(sessions.key, key));
			return toRecord(row.session);
		});
		this.writes.forget(ws, sessionId);
		this.writes.announceAfterCommit(deletedNotice(deleted));
		return deleted;
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
		const rows = ids.length === 0 ? [] : await entryRows(this.db, ws, sessionId, ids);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		return new Map(rows.map((r) => [r.id, toStored(r, sessionId)]));
	}

	async listEntries(ws: string, sessionId: string, query: EntryLogQuery = {}): Promise<StoredEntry[]> {
		this.storable(sessionId);
		const { afterSeq = 0, beforeSeq, limit, types, fromEnd = false, omit } = query;
		if (types && types.length === 0) {
			await this.requireSession(ws, sessionId);
			return [];
		}
		const filter = { afterSeq, beforeSeq, limit, types, fromEnd };
		const rows = await entryLogRows(this.db, ws, sessionId, filter, omit);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		const entries = rows.map((r) => toStored(r, sessionId));
		return fromEnd ? entries.reverse() : entries;
	}

	async sessionWithEntries(
		ws: string,
		sessionId: string,
		query: EntryLogQuery = {},
	): Promise<SessionWithEntries | null> {
		if (!isStorableText(sessionId)) return null;
		const { afterSeq = 0, beforeSeq, limit, types, fromEnd = false, omit } = query;
		// No type at all selects nothing: the window is empty (a LIMIT 0 answers that without reading).
		const filter = { afterSeq, beforeSeq, types, fromEnd, limit: types?.length === 0 ? 0 : limit };
		const found = await sessionWithLogRows(this.db, ws, sessionId, filter, omit);
		return found
			? { session: toRecord(found.session), entries: found.rows.map((r) => toStored(r, sessionId)) }
			: null;
	}

	async countEntries(ws: string, sessionId: string, types?: readonly EntryTypeOrOther[]): Promise<number> {
		this.storable(sessionId);
		if (!types) return (await this.requireSession(ws, sessionId)).entryCount;
		if (types.length === 0) return 0;
		const n = await countByType(this.db, ws, sessionId, types);
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
		const rows = await childRows(this.db, ws, sessionId, [...new Set(entryIds)]);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		for (const row of rows) result.get(row.parentId as string)?.push(toStored(row, sessionId));
		return result;
	}

	/** Latest label entry per target; null targets means every labelled entry. */
	private async labelEntries(db: Db, ws: string, sessionId: string, targets: readonly string[] | null) {
		if (targets?.length === 0) return { labels: new Map<string, LabelEntry>(), empty: true };
		const rows = await latestLabelRows(db, ws, sessionId, targets);
		return { labels: setLabels(rows, sessionId), empty: rows.length === 0 };
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
		const rows = await tipRows(this.db, ws, sessionId);
		if (rows.length === 0) await this.requireSession(ws, sessionId);
		return rows.map((r) => toStored(r, sessionId));
	}

	/** The path from `fromId` (default: the session's leaf) to the root (./walk.ts). */
	private walk(
		db: Db,
		ws: string,
		sessionId: string,
		fromId: string | null | undefined,
		mode: WalkMode,
		field = "fromId",
		read: WalkRead = {},
	) {
		this.storable(sessionId);
		return walkPath(
			db,
			ws,
			sessionId,
			fromId,
			mode,
			field,
			() => this.requireSession(ws, sessionId, db),
			read,
		);
	}

	async activePath(ws: string, sessionId: string, query: PathQuery = {}): Promise<StoredEntry[]> {
		return this.walk(this.db, ws, sessionId, query.fromId, query.full ? "full" : "bounded", "fromId", {
			omit: query.omit ?? {},
		});
	}

	/**
	 * The page's nodes (one statement; each row names the session's leaf),
	 * marked on the active path by the leaf's path ids: walked once per leaf
	 * (brief), then kept (PathCache), so paging a large tree walks it once.
	 */
	async sessionTree(ws: string, sessionId: string, query: TreeQuery): Promise<TreePage> {
		this.storable(sessionId);
		const rows = await treePageRows(this.db, ws, sessionId, query.afterSeq, query.first + 1);
		if (rows.length === 0) {
			await this.requireSession(ws, sessionId);
			return { nodes: [], hasNextPage: false };
		}
		const leafId = rows[0]?.leafId ?? null;
		const sessionKey = String(rows[0]?.sessionKey);
		const onPath =
			leafId === null
				? new Set<string>()
				: await this.paths.pathOf([sessionKey, leafId], async () =>
						(
							await this.walk(this.db, ws, sessionId, leafId, "full", "fromId", {
								omit: { payload: true, timestamp: true },
							})
						).map((e) => e.entry.id),
					);
		return {
			nodes: rows.slice(0, query.first).map((row) => ({
				node: toStored(row, sessionId),
				childCount: Number(row.childCount),
				label: row.label,
				onActivePath: onPath.has(row.id),
			})),
			hasNextPage: rows.length > query.first,
		};
	}

	findSessions(ws: string, query: SessionQuery): Promise<Page<SessionRecord>> {
		return findSessions(this.db, ws, query);
	}

	async compareNodes(ws: string, sessionId: string, a: string, b: string): Promise<Comparison<StoredEntry>> {
		this.storable(sessionId);
		return compareNodes(this.db, ws, sessionId, a, b, () => this.requireSession(ws, sessionId));
	}

	search(ws: string, query: SearchQuery): Promise<SearchPage> {
		return searchEntries(this.db, ws, query);
	}

	async context(ws: string, sessionId: string, query: ContextQuery = {}): Promise<SessionContext> {
		const path = await this.walk(this.db, ws, sessionId, query.fromId, "context", "fromId", {
			rawMessages: query.rawMessages === true,
		});
		return projectContext(path.map((e) => e.entry));
	}

	/** Rollups and turn rows recomputed from the logs (./analytics/session-stats.ts), then folded. */
	async rebuildRollups(options: RebuildRollupsOptions = {}): Promise<number> {
		const rebuilt = await rebuildSessionRollups(this.upkeepDb, options);
		if (rebuilt > 0) await this.foldRollups();
		return rebuilt;
	}

	/** A session's stats without reading its log (./analytics/session-stats.ts); the path's from the path walk. */
	async sessionStats(ws: string, sessionId: string): Promise<SessionStats> {
		// First: a missing session is NOT_FOUND here.
		const path = await this.activePath(ws, sessionId, { full: true });
		return sessionStatsOf(this.db, sessionKeyOf(ws, sessionId), path);
	}

	async metrics(ws: string, query: MetricsQuery): Promise<MetricsResult> {
		return rollupMetrics(this.db, ws, checkMetricsQuery(query));
	}

	async activity(ws: string, query: ActivityQuery): Promise<ActivityRecord[]> {
		const after = query.after == null ? null : parseActivityCursor(query.after);
		const rows = await activityRows(
			this.db,
			ws,
			query.latest ? null : after,
			query.limit,
			query.latest === true,
		);
		return rows.map(({ sessionId, xid, key, fromSeq, toSeq, created }) => ({
			cursor: activityCursor({ xid, key: Number(key), toSeq: Number(toSeq) }),
			sessionId,
			fromSeq: Number(fromSeq),
			toSeq: Number(toSeq),
			created: created === true || (created as unknown) === "t",
		}));
	}

	async activityNow(): Promise<string> {
		// `activity` reads only transactions older than every running one (queries.ts activityRows): the
		// boundary is the oldest running transaction. No row is read.
		const [row] = await oldestRunningTransaction.run(this.db, {});
		return afterTransaction((BigInt(row?.xmin ?? "1") - 1n).toString());
	}

	async importSession(ws: string, jsonl: string, options: ImportOptions = {}): Promise<ImportedSession> {
		const file = parseSessionFile(jsonl, {
			...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
			author: authorOf(options, this.limits),
			limits: this.limits,
		});
		return this.importFile(ws, file, options);
	}

	/** A parsed file stored as a new session, or the stored one when it is the file's (`created: false`). */
	private async importFile(
		ws: string,
		file: ParsedSessionFile,
		options: ImportOptions,
	): Promise<ImportedSession> {
		const record = await this.insertFile(ws, file, options);
		if (record) return { ...record, created: true };
		const stored = await this.sessionWithEntries(ws, file.header.id);
		if (!stored) throw sessionIdTaken(file.header.id);
		return reimported(file, stored.session, stored.entries);
	}

	/** A parsed file stored as a new session; null when its id is taken (then nothing was written). */
	private async insertFile(
		ws: string,
		file: ParsedSessionFile,
		options: ImportOptions,
	): Promise<SessionRecord | null> {
		const record = importedSessionRecord(ws, file);
		try {
			await this.db.transaction(async (tx) => {
				await this.bulkTimeout(tx);
				const key = await insertSession(tx, record);
				await insertEntryBatches(tx, key, file.rows, (n) => options.onProgress?.(n, file.rows.length));
				await tx.execute(logActivity(sql`${key}::integer`, sql`1`, sql`${record.lastSeq}::integer`, true));
				await this.writes.notifyIn(tx, createdNotice(record));
			});
		} catch (error) {
			if (isSessionError(error, "ALREADY_EXISTS")) return null;
			throw error;
		}
		this.writes.announced(createdNotice(record));
		return record;
	}

	async continueSession(
		ws: string,
		input: ContinueInput,
		options: AuthorOptions = {},
	): Promise<ContinuedSession> {
		const author = authorOf(options, this.limits);
		const request = readContinuation(input, author, this.limits);
		if (request.kind === "file" && !(await this.getSession(ws, request.sessionId))) {
			const inserted = await this.insertFile(ws, request.file, {});
			// Another writer may have stored it (or a part of it) first: then it is continued like any other.
			if (inserted) return { ...inserted, created: true, appended: request.file.rows.length, held: 0 };
		}
		const outcome = await this.writes.continuation(ws, request, author);
		return continued(outcome);
	}

	async exportSession(ws: string, sessionId: string, options: ExportOptions = {}): Promise<string> {
		const format = exportFormat(options);
		const session = await this.requireSession(ws, sessionId);
		const entries = await this.listEntries(ws, sessionId);
		return exportSessionFile(
			headerOf(session),
			entries.map((e) => e.entry),
			format,
		);
	}

	async forkSession(ws: string, sessionId: string, input: ForkInput = {}): Promise<SessionRecord> {
		const newId = forkTargetId(input.newSessionId);
		const author = authorOf(input, this.limits);
		const forked = await this.db.transaction(async (tx) => {
			await this.bulkTimeout(tx);
			const source = await this.getSessionWith(tx, ws, sessionId, "share");
			if (!source) throw notFoundSession(sessionId);
			// Refuse an over-long fork from the start entry's depth, before walking its path.
			const startDepth =
				input.entryId === undefined ? source.leafDepth : await entryDepth(tx, ws, sessionId, input.entryId);
			if (startDepth !== null) checkForkSize(startDepth + 1, this.limits);
			const path = await this.walk(tx, ws, sessionId, input.entryId, "full", "entryId");
			const { labels } = await this.labelEntries(
				tx,
				ws,
				sessionId,
				path.map((e) => e.entry.id),
			);
			const plan = planFork(newId, path, labels, systemClock, author, this.limits);
			const record = forkedSessionRecord(source, newId, plan, systemClock.now());
			const key = await insertSession(tx, record);
			await insertEntryBatches(tx, key, plan.rows);
			await tx.execute(logActivity(sql`${key}::integer`, sql`1`, sql`${record.lastSeq}::integer`, true));
			await this.writes.notifyIn(tx, createdNotice(record));
			return record;
		});
		this.writes.announced(createdNotice(forked));
		return forked;
	}

	/** Folds every workspace's dirty rollups now (./analytics/fold.ts): after a rebuild, or to catch up another instance's. */
	async foldRollups(): Promise<number> {
		let cleared = 0;
		for (const ws of await dirtyWorkspaces(this.upkeepDb))
			cleared += (await foldWorkspace(this.upkeepDb, ws)).cleared;
		return cleared;
	}

	/** Folds, in the background, the workspaces with dirty rollups (at open: another instance's, or a migration's). */
	foldLater(): void {
		this.folds.touchAll(() => dirtyWorkspaces(this.upkeepDb));
	}

	async close(): Promise<void> {
		await this.folds.close();
		await this.statistics.settled();
		await this.writes.close();
		await this.closeClient();
	}
}
