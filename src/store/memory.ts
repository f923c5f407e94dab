/**
 * The reference backend: the append log of each session in an array, with an
 * id index. Every read returns copies, so callers cannot change stored state.
 * Several MemoryStore instances may share one MemoryDatabase (as two servers
 * share one Postgres).
 *
 * One file: the reference backend is read beside the interface it
 * implements, a method per SessionStore method, each a few lines over the
 * arrays; the rules are the session layer's and the writes ./write.ts's.
 */

import {
	checkMetricsQuery,
	type MetricsQuery,
	type MetricsResult,
	metricsOfRollups,
	type SessionRollups,
} from "../session/analytics/metrics.js";
import { rollupRows, turnRows } from "../session/analytics/rollup.js";
import { referencedIds } from "../session/append.js";
import { projectContext } from "../session/context.js";
import {
	type DraftEntry,
	type EntryTypeOrOther,
	type SessionContext,
	type StoredEntry,
	typeOrOther,
} from "../session/entry.js";
import { exportSessionFile } from "../session/export.js";
import { planFork } from "../session/fork.js";
import { parseSessionFile } from "../session/jsonl.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "../session/limits.js";
import { boundByCompaction, childrenOf, labelsOf, pathToRoot, tipsOf } from "../session/tree.js";
import type { Comparison } from "../session/tree-view.js";
import { activityCursor, afterTransaction, parseActivityCursor } from "./activity-cursor.js";
import type { CommitNotice } from "./commits.js";
import {
	type ContinuationRequest,
	type ContinuationSnapshot,
	continuationAfter,
	continuationLookups,
	continued,
	decideContinuation,
	readContinuation,
} from "./continuation.js";
import { KeyedMutex } from "./mutex.js";
import { compareActivity, sessionWindow, toPage } from "./paging.js";
import {
	exportFormat,
	forkedSessionRecord,
	forkTargetId,
	importedSessionRecord,
	newSessionRecord,
	pathStart,
	reimported,
	sessionIdTaken,
} from "./records.js";
import { type SearchPage, type SearchQuery, searchLogs } from "./search.js";
import { findSessionsIn } from "./session-query.js";
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
	type SessionPageArgs,
	type SessionQuery,
	type SessionRecord,
	type SessionStore,
	type SessionWithEntries,
	type TreePage,
	type TreeQuery,
} from "./store.js";
import { compareOf, treePageOf } from "./tree-view.js";
import {
	appendResult,
	appendWrite,
	authorOf,
	createdNotice,
	decideWrite,
	deletedNotice,
	labelWrite,
	moveResult,
	moveWrite,
	notFoundSession,
	renameWrite,
	systemClock,
	type TreeWrite,
	type WriteOutcome,
	type WriteSnapshot,
	writeNotice,
} from "./write.js";

interface MemorySession {
	/** Like Postgres' sessions.key: the session's number in the activity log. */
	key: number;
	record: SessionRecord;
	log: StoredEntry[];
	byId: Map<string, StoredEntry>;
}

/** The shared state several MemoryStore instances can open; keyed by workspace and session id. */
export class MemoryDatabase {
	readonly sessions = new Map<string, MemorySession>();
	readonly locks = new KeyedMutex();
	/** Every committed write in commit order (a write commits at once here: commit order is the log's order). */
	readonly activity: Array<{
		ws: string;
		sessionId: string;
		key: number;
		fromSeq: number;
		toSeq: number;
		created: boolean;
		/** Its session was deleted: read by no one (kept, so that every later record keeps its position). */
		removed?: boolean;
	}> = [];

	private lastKey = 0;

	/** A new session's key: never reused, a deleted session's included (as Postgres' identity column). */
	nextKey(): number {
		this.lastKey += 1;
		return this.lastKey;
	}

	/** Log a committed write; its place in `activity` (1-based) is its position. */
	logActivity(ws: string, session: MemorySession, fromSeq: number, toSeq: number, created: boolean): void {
		this.activity.push({
			ws,
			sessionId: session.record.sessionId,
			key: session.key,
			fromSeq,
			toSeq,
			created,
		});
	}
}

const key = (ws: string, sessionId: string) => JSON.stringify([ws, sessionId]);

const copy = <T>(value: T): T => structuredClone(value);

export class MemoryStore implements SessionStore {
	readonly backend = "memory" as const;
	private readonly db: MemoryDatabase;

	private readonly onCommit: ((notice: CommitNotice) => void) | undefined;
	/** The input limits this store holds writes to (the server's configured ones, or the defaults). */
	private readonly limits: InputLimits;

	constructor(
		db: MemoryDatabase = new MemoryDatabase(),
		options: { onCommit?: (notice: CommitNotice) => void; limits?: InputLimits } = {},
	) {
		this.db = db;
		this.onCommit = options.onCommit;
		this.limits = options.limits ?? DEFAULT_INPUT_LIMITS;
	}

	private announce(notice: CommitNotice | null): void {
		if (notice) this.onCommit?.(notice);
	}

	private find(ws: string, sessionId: string): MemorySession | undefined {
		return this.db.sessions.get(key(ws, sessionId));
	}

	private require(ws: string, sessionId: string): MemorySession {
		const session = this.find(ws, sessionId);
		if (!session) throw notFoundSession(sessionId);
		return session;
	}

	private insert(record: SessionRecord, rows: readonly StoredEntry[]): SessionRecord {
		const id = key(record.workspaceId, record.sessionId);
		if (this.db.sessions.has(id)) throw sessionIdTaken(record.sessionId);
		const log = copy([...rows]);
		const session = {
			key: this.db.nextKey(),
			record: copy(record),
			log,
			byId: new Map(log.map((e) => [e.entry.id, e])),
		};
		this.db.sessions.set(id, session);
		this.db.logActivity(record.workspaceId, session, 1, record.lastSeq, true);
		this.announce(createdNotice(record));
		return copy(record);
	}

	async createSession(ws: string, input: CreateSessionInput = {}): Promise<SessionRecord> {
		return this.insert(newSessionRecord(ws, input, systemClock.now(), this.limits), []);
	}

	async getSession(ws: string, sessionId: string): Promise<SessionRecord | null> {
		const session = this.find(ws, sessionId);
		return session ? copy(session.record) : null;
	}

	async getSessions(ws: string, sessionIds: readonly string[]): Promise<Map<string, SessionRecord>> {
		const found = new Map<string, SessionRecord>();
		for (const id of sessionIds) {
			const session = this.find(ws, id);
			if (session) found.set(id, copy(session.record));
		}
		return found;
	}

	async listSessions(ws: string, args: SessionPageArgs): Promise<Page<SessionRecord>> {
		const window = sessionWindow(args);
		const all = [...this.db.sessions.values()]
			.map((s) => s.record)
			.filter((r) => r.workspaceId === ws && r.archivedAt === null);
		const sorted = all
			.filter((r) => !window.after || compareActivity(r, window.after) > 0)
			.filter((r) => !window.before || compareActivity(r, window.before) < 0)
			.sort(compareActivity);
		if (window.backward) sorted.reverse();
		return toPage(copy(sorted.slice(0, window.limit + 1)), window, all.length);
	}

	async findSessions(ws: string, query: SessionQuery): Promise<Page<SessionRecord>> {
		const sessions = [...this.db.sessions.values()].filter(({ record }) => record.workspaceId === ws);
		return copy(findSessionsIn(sessions, query));
	}

	async appendEntry(
		ws: string,
		sessionId: string,
		draft: DraftEntry,
		options: AppendOptions = {},
	): Promise<AppendResult> {
		return appendResult(await this.write(ws, appendWrite(sessionId, draft, options, this.limits)));
	}

	async moveLeaf(ws: string, sessionId: string, input: MoveLeafInput): Promise<MoveLeafResult> {
		return moveResult(await this.write(ws, moveWrite(sessionId, input, this.limits)));
	}

	async setLabel(
		ws: string,
		sessionId: string,
		targetId: string,
		label?: string | null,
		options: AuthorOptions = {},
	): Promise<AppendResult> {
		return appendResult(await this.write(ws, labelWrite(sessionId, targetId, label, options, this.limits)));
	}

	async renameSession(
		ws: string,
		sessionId: string,
		name: string,
		options: AuthorOptions = {},
	): Promise<AppendResult> {
		return appendResult(await this.write(ws, renameWrite(sessionId, name, options, this.limits)));
	}

	async setArchived(ws: string, sessionId: string, archived: boolean): Promise<SessionRecord> {
		return this.db.locks.run(key(ws, sessionId), async () => {
			const session = this.require(ws, sessionId);
			const { archivedAt } = session.record;
			session.record = { ...session.record, archivedAt: archived ? (archivedAt ?? systemClock.now()) : null };
			return copy(session.record);
		});
	}

	async deleteSession(ws: string, sessionId: string): Promise<SessionRecord> {
		return this.db.locks.run(key(ws, sessionId), async () => {
			const session = this.require(ws, sessionId);
			this.db.sessions.delete(key(ws, sessionId));
			for (const write of this.db.activity) if (write.key === session.key) write.removed = true;
			this.announce(deletedNotice(session.record));
			return copy(session.record);
		});
	}

	/** A tree write under the session's lock: the snapshot, the decision, the commit. */
	private async write(ws: string, write: TreeWrite): Promise<WriteOutcome> {
		const outcome = await this.db.locks.run(key(ws, write.sessionId), async () => {
			const decided = decideWrite(await this.snapshot(ws, write), write);
			if (!decided.replayed) await this.commit(ws, write.sessionId, decided);
			return decided;
		});
		this.announce(writeNotice(outcome));
		return outcome;
	}

	/**
	 * A tree write's snapshot (./write.ts WriteSnapshot); the caller holds
	 * the session's lock. Asynchronous like every backend's read, so that
	 * concurrent writers and live readers take turns here as they do on a
	 * database (written synchronously, 8 writers in a loop starved a live
	 * subscriber of the event loop until it fell 1,000 events behind).
	 */
	private async snapshot(ws: string, write: TreeWrite): Promise<WriteSnapshot | null> {
		const session = this.find(ws, write.sessionId);
		if (!session) return null;
		return { session: copy(session.record), found: this.entriesOf(session, referencedIds(write.drafts)) };
	}

	/** Stored entries of `session` with these ids, copied. */
	private entriesOf(session: MemorySession, ids: readonly string[]): Map<string, StoredEntry> {
		const found = new Map<string, StoredEntry>();
		for (const id of ids) {
			const entry = session.byId.get(id);
			if (entry) found.set(id, copy(entry));
		}
		return found;
	}

	/** A continuation's snapshot of the session (./continuation.ts); the caller holds its lock. */
	private continuationSnapshot(ws: string, request: ContinuationRequest): ContinuationSnapshot | null {
		const session = this.find(ws, request.sessionId);
		if (!session) return null;
		const afterId = continuationAfter(request);
		const after = afterId === null ? null : session.byId.get(afterId);
		const tail = after === undefined ? [] : copy(session.log.slice(after ? after.seq : 0));
		const found = this.entriesOf(session, continuationLookups(request, after, tail));
		return { session: copy(session.record), after: after && copy(after), tail, found };
	}

	/** Appends a decided write's rows and moves the session record; the caller holds its lock. */
	private async commit(ws: string, sessionId: string, outcome: WriteOutcome): Promise<void> {
		const session = this.require(ws, sessionId);
		for (const row of copy(outcome.rows)) {
			session.log.push(row);
			session.byId.set(row.entry.id, row);
		}
		session.record = copy(outcome.session);
		const first = outcome.rows[0];
		if (first) this.db.logActivity(ws, session, first.seq, outcome.session.lastSeq, false);
	}

	async getEntry(ws: string, sessionId: string, entryId: string): Promise<StoredEntry | null> {
		const entry = this.require(ws, sessionId).byId.get(entryId);
		return entry ? copy(entry) : null;
	}

	async getEntries(
		ws: string,
		sessionId: string,
		entryIds: readonly string[],
	): Promise<Map<string, StoredEntry>> {
		return this.entriesOf(this.require(ws, sessionId), entryIds);
	}

	async listEntries(ws: string, sessionId: string, query: EntryLogQuery = {}): Promise<StoredEntry[]> {
		const { afterSeq = 0, beforeSeq = Number.POSITIVE_INFINITY, limit, types, fromEnd = false } = query;
		const matching = this.require(ws, sessionId).log.filter(
			(e) => e.seq > afterSeq && e.seq < beforeSeq && (!types || types.includes(typeOrOther(e.entry.type))),
		);
		const window =
			limit === undefined
				? matching
				: fromEnd
					? matching.slice(Math.max(0, matching.length - limit))
					: matching.slice(0, limit);
		return copy(window);
	}

	/** Omissions are allowed, not required: memory returns whole entries. */
	async sessionWithEntries(
		ws: string,
		sessionId: string,
		query: EntryLogQuery = {},
	): Promise<SessionWithEntries | null> {
		const session = this.find(ws, sessionId);
		return session
			? { session: copy(session.record), entries: await this.listEntries(ws, sessionId, query) }
			: null;
	}

	async countEntries(ws: string, sessionId: string, types?: readonly EntryTypeOrOther[]): Promise<number> {
		const { log } = this.require(ws, sessionId);
		return types ? log.filter((e) => types.includes(typeOrOther(e.entry.type))).length : log.length;
	}

	async children(
		ws: string,
		sessionId: string,
		entryIds: readonly string[],
	): Promise<Map<string, StoredEntry[]>> {
		return copy(childrenOf(this.require(ws, sessionId).log, entryIds));
	}

	async labels(ws: string, sessionId: string, entryIds: readonly string[]): Promise<Map<string, string>> {
		const all = labelsOf(this.require(ws, sessionId).log);
		const result = new Map<string, string>();
		for (const id of entryIds) {
			const label = all.get(id)?.label;
			if (label) result.set(id, label);
		}
		return result;
	}

	async tips(ws: string, sessionId: string): Promise<StoredEntry[]> {
		return copy(tipsOf(this.require(ws, sessionId).log));
	}

	private fullPath(session: MemorySession, fromId: string | null | undefined): StoredEntry[] {
		const start = pathStart(session.record, fromId, fromId ? session.byId.get(fromId) : undefined);
		return pathToRoot(start, (id) => session.byId.get(id));
	}

	async activePath(ws: string, sessionId: string, query: PathQuery = {}): Promise<StoredEntry[]> {
		const path = this.fullPath(this.require(ws, sessionId), query.fromId);
		return copy(query.full ? path : boundByCompaction(path));
	}

	async context(ws: string, sessionId: string, query: ContextQuery = {}): Promise<SessionContext> {
		const path = this.fullPath(this.require(ws, sessionId), query.fromId);
		return copy(projectContext(path.map((e) => e.entry)));
	}

	async sessionTree(ws: string, sessionId: string, query: TreeQuery): Promise<TreePage> {
		const { log, record } = this.require(ws, sessionId);
		return copy(treePageOf(log, record.leafId, query));
	}

	async compareNodes(ws: string, sessionId: string, a: string, b: string): Promise<Comparison<StoredEntry>> {
		const { byId } = this.require(ws, sessionId);
		return copy(compareOf(sessionId, a, b, (id) => byId.get(id)));
	}

	async search(ws: string, query: SearchQuery): Promise<SearchPage> {
		const logs = [...this.db.sessions.values()]
			.filter(({ record }) => record.workspaceId === ws)
			.map((s) => s.log);
		return copy(searchLogs(logs, query));
	}

	async metrics(ws: string, query: MetricsQuery): Promise<MetricsResult> {
		const checked = checkMetricsQuery(query);
		const rollups: SessionRollups[] = [];
		for (const { record, log } of this.db.sessions.values()) {
			if (record.workspaceId !== ws) continue;
			rollups.push({
				sessionId: record.sessionId,
				cwd: record.cwd,
				createdAt: record.createdAt,
				parentSessionId: record.parentSessionId,
				rows: rollupRows(log),
				turns: turnRows(log),
			});
		}
		return copy(metricsOfRollups(checked, rollups));
	}

	async activity(ws: string, query: ActivityQuery): Promise<ActivityRecord[]> {
		const record = (i: number): ActivityRecord | null => {
			const write = this.db.activity[i];
			if (write?.ws !== ws || write.removed) return null;
			const { sessionId, key, fromSeq, toSeq, created } = write;
			return {
				cursor: activityCursor({ xid: String(i + 1), key, toSeq }),
				sessionId,
				fromSeq,
				toSeq,
				created,
			};
		};
		const found: ActivityRecord[] = [];
		if (query.latest) {
			for (let i = this.db.activity.length - 1; i >= 0 && found.length < query.limit; i--) {
				const r = record(i);
				if (r) found.unshift(r);
			}
			return found;
		}
		const after = query.after == null ? 0 : Number(parseActivityCursor(query.after).xid);
		for (let i = after; i < this.db.activity.length && found.length < query.limit; i++) {
			const r = record(i);
			if (r) found.push(r);
		}
		return found;
	}

	async activityNow(): Promise<string> {
		// Record i's cursor names commit i + 1: the next commit is after this one.
		return afterTransaction(String(this.db.activity.length));
	}

	async importSession(ws: string, jsonl: string, options: ImportOptions = {}): Promise<ImportedSession> {
		const file = parseSessionFile(jsonl, {
			...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
			author: authorOf(options, this.limits),
			limits: this.limits,
		});
		const stored = this.find(ws, file.header.id);
		if (stored) return copy(reimported(file, stored.record, stored.log));
		const record = this.insert(importedSessionRecord(ws, file), file.rows);
		options.onProgress?.(file.rows.length, file.rows.length);
		return { ...record, created: true };
	}

	async continueSession(
		ws: string,
		input: ContinueInput,
		options: AuthorOptions = {},
	): Promise<ContinuedSession> {
		const author = authorOf(options, this.limits);
		const request = readContinuation(input, author, this.limits);
		if (request.kind === "file" && !this.find(ws, request.sessionId)) {
			const record = this.insert(importedSessionRecord(ws, request.file), request.file.rows);
			return { ...record, created: true, appended: request.file.rows.length, held: 0 };
		}
		const outcome = await this.db.locks.run(key(ws, request.sessionId), async () => {
			const decided = decideContinuation(this.continuationSnapshot(ws, request), request, author);
			if (decided.rows.length > 0) await this.commit(ws, request.sessionId, decided);
			return decided;
		});
		this.announce(writeNotice(outcome));
		return copy(continued(outcome));
	}

	async exportSession(ws: string, sessionId: string, options: ExportOptions = {}): Promise<string> {
		const session = this.require(ws, sessionId);
		return exportSessionFile(
			headerOf(session.record),
			session.log.map((e) => e.entry),
			exportFormat(options),
		);
	}

	async forkSession(ws: string, sessionId: string, input: ForkInput = {}): Promise<SessionRecord> {
		const author = authorOf(input, this.limits);
		const source = this.require(ws, sessionId);
		const newId = forkTargetId(input.newSessionId);
		if (this.find(ws, newId)) throw sessionIdTaken(newId);
		const start = pathStart(
			source.record,
			input.entryId,
			input.entryId ? source.byId.get(input.entryId) : undefined,
			"entryId",
		);
		const path = pathToRoot(start, (id) => source.byId.get(id));
		const plan = planFork(newId, path, labelsOf(source.log), systemClock, author, this.limits);
		return this.insert(forkedSessionRecord(source.record, newId, plan, systemClock.now()), plan.rows);
	}

	async close(): Promise<void> {}
}
