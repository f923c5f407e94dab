/**
 * The write path of the Postgres backend: tree writes (append, move, label,
 * rename) and how every commit is announced. ./store.ts owns the reads and
 * the bulk writes (create, import, fork) and hands their notices here.
 *
 * A tree write is optimistic: the rules (../write.ts decideWrite) run on a snapshot of
 * the session row and the entries the drafts name, and one statement
 * commits the plan only if the session's `last_seq` is still the snapshot's
 * (every write moves it, so it versions the whole row). No transaction stays
 * open across a round trip to Node, and the lock on the session row lasts
 * one statement. Why the rules still hold:
 * - entries are immutable and never deleted, so "entry X exists" read in the
 *   snapshot stays true; "X does not exist" and every pointer fact are the
 *   snapshot's, and the conditional commit fails if any write came between;
 * - an answer decided without writing (NOT_FOUND, LEAF_CONFLICT, a re-sent
 *   entry) is true of the snapshot, a state the session was in during the
 *   call: the write is linearised at its read, as a locked read would be.
 * Writes to one session from this process queue behind each other, and the
 * session row each commit leaves behind is remembered, so an append that
 * names no entry (the common case) is one round trip: the conditional
 * commit on the remembered row. A stale memory (another process wrote)
 * costs a failed commit and a fresh read, never a wrong answer. After
 * OPTIMISTIC_ATTEMPTS lost races, the write takes the row lock instead.
 */
import { and, eq, sql } from "drizzle-orm";
import { referencedIds } from "../../session/append.js";
import type { StoredEntry } from "../../session/entry.js";
import { SessionError } from "../../session/errors.js";
import { isStorableText } from "../../session/validate.js";
import { type CommitAnnouncer, type CommitNotice, encodeNotice } from "../commits.js";
import {
	type ContinuationOutcome,
	type ContinuationRequest,
	type ContinuationSnapshot,
	continuationAfter,
	continuationLookups,
	decideContinuation,
} from "../continuation.js";
import { KeyedMutex } from "../mutex.js";
import type { SessionRecord } from "../store.js";
import {
	decideWrite,
	notFoundSession,
	type TreeWrite,
	type WriteOutcome,
	type WriteSnapshot,
	writeNotice,
} from "../write.js";
import type { Db } from "./db.js";
import { appendStatement, conditionalAppend, conditionalAppendValues, notifyEach } from "./inserts.js";
import { CommitNotifier } from "./notifier.js";
import { entryLogRows, entryRows, sessionRow } from "./queries.js";
import { type EntryRow, entryColumns, type SessionRow, sessionColumns, toRecord, toStored } from "./rows.js";
import { entries, sessions } from "./schema.js";
import { type Statement, statement } from "./statements.js";

export interface PgWritesOptions {
	/** How commits are announced to live subscribers; none when absent. */
	announce: CommitAnnouncer | undefined;
	/** Hears each commit (planner statistics, ./upkeep.ts; folds, ./analytics/fold.ts). */
	onWritten: (notice: CommitNotice) => void;
	/** Conditional commits a write may lose before it takes the row lock (0: always the lock). */
	optimisticAttempts?: number;
}

/** Conditional commits that may lose a race before a write falls back to the row lock. */
const OPTIMISTIC_ATTEMPTS = 3;

/** Session rows remembered after this process's commits (least recently written dropped first). */
const REMEMBERED_SESSIONS = 10_000;

export class PgWrites {
	private readonly turns = new KeyedMutex();
	private readonly remembered = new Map<string, SessionRecord>();
	private readonly readSnapshot;
	private readonly commitPlan: Statement<{ applied: number }>;
	/** NOTIFY of a list of notices, when commits are announced that way. */
	private readonly notify: Statement<unknown> | undefined;
	/** Sends the notices of tree writes after their commits, when commits are announced by NOTIFY. */
	private readonly notifier: CommitNotifier | undefined;

	constructor(
		private readonly db: Db,
		private readonly options: PgWritesOptions,
	) {
		const placeholder = sql.placeholder;
		// The session row joined with the named entries: one row with a null entry when none is named or found.
		this.readSnapshot = db
			.select({ session: sessionColumns, entry: entryColumns })
			.from(sessions)
			.leftJoin(
				entries,
				and(
					eq(entries.sessionKey, sessions.key),
					sql`${entries.id} in (select jsonb_array_elements_text(${placeholder("ids")}::jsonb))`,
				),
			)
			.where(and(eq(sessions.workspaceId, placeholder("ws")), eq(sessions.id, placeholder("sessionId"))))
			.prepare("tree_write_snapshot");
		this.commitPlan = statement<{ applied: number }>("tree_write_commit", conditionalAppend());
		const { announce } = options;
		if (announce?.kind === "notify") {
			const notify = statement("commit_notify", notifyEach(announce.channel));
			this.notify = notify;
			this.notifier = new CommitNotifier(async (payloads) => {
				await notify.run(db, { payloads: JSON.stringify(payloads) });
			});
		}
	}

	/** NOTIFY inside the transaction (creations, imports, forks): delivered only if it commits, and only then. */
	async notifyIn(tx: Db, notice: CommitNotice | null): Promise<void> {
		if (notice) await this.notify?.run(tx, { payloads: JSON.stringify([encodeNotice(notice)]) });
	}

	/** The in-process announcement, after the commit. */
	announced(notice: CommitNotice | null): void {
		const { announce } = this.options;
		if (notice && announce?.kind === "callback") announce.onCommit(notice);
		if (notice) this.options.onWritten(notice);
	}

	/** One tree write (see the header): optimistic, then under the row lock if it keeps losing races. */
	async write(ws: string, write: TreeWrite): Promise<WriteOutcome> {
		const key = JSON.stringify([ws, write.sessionId]);
		const outcome = await this.turns.run(key, () => this.writeInTurn(key, ws, write));
		this.announceWrite(outcome);
		return outcome;
	}

	/** A committed tree write's notice: in process now, and by NOTIFY after (when announced so). */
	private announceWrite(outcome: WriteOutcome): void {
		this.announceAfterCommit(writeNotice(outcome));
	}

	/** A notice of a committed transaction: in process now, and by NOTIFY after it (when announced so). */
	announceAfterCommit(notice: CommitNotice | null): void {
		this.announced(notice);
		if (notice) this.notifier?.queue(notice);
	}

	/**
	 * A continuation (../continuation.ts), run like a tree write (see the
	 * header): decided on a snapshot read outside any transaction, whose reads
	 * see only entries up to its session row's `lastSeq`, and committed by the
	 * conditional statement; after OPTIMISTIC_ATTEMPTS lost races, read and
	 * committed in the transaction that holds the row's lock. In the session's
	 * turn, announced like every tree write. No transaction is held open
	 * across the reads: one kept open by many followers at once held the
	 * workspace's activity feed back (./queries.ts activityRows).
	 */
	async continuation(
		ws: string,
		request: ContinuationRequest,
		author: string | null,
	): Promise<ContinuationOutcome> {
		const { sessionId } = request;
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
		const key = JSON.stringify([ws, sessionId]);
		const outcome = await this.turns.run(key, async () => {
			const attempts = this.options.optimisticAttempts ?? OPTIMISTIC_ATTEMPTS;
			for (let attempt = 0; attempt < attempts; attempt++) {
				const snapshot = await continuationSnapshot(this.db, ws, request, null);
				const decided = decideContinuation(snapshot, request, author);
				if (decided.rows.length === 0 || (await this.commitIfCurrent(ws, sessionId, decided))) {
					this.remember(key, decided.session);
					return decided;
				}
			}
			const decided = await this.db.transaction(async (tx) => {
				const snapshot = await continuationSnapshot(tx, ws, request, "update");
				const outcome = decideContinuation(snapshot, request, author);
				if (outcome.rows.length > 0)
					await tx.execute(appendStatement(ws, sessionId, outcome.rows, outcome.session));
				return outcome;
			});
			this.remember(key, decided.session);
			return decided;
		});
		this.announceWrite(outcome);
		return outcome;
	}

	/** Sends the notices still queued; the store closes its client after this. */
	async close(): Promise<void> {
		await this.notifier?.close();
	}

	private async writeInTurn(key: string, ws: string, write: TreeWrite): Promise<WriteOutcome> {
		const { sessionId } = write;
		const references = referencedIds(write.drafts);
		const attempts = this.options.optimisticAttempts ?? OPTIMISTIC_ATTEMPTS;
		for (let attempt = 0; attempt < attempts; attempt++) {
			const known = attempt === 0 && references.length === 0 ? this.remembered.get(key) : undefined;
			try {
				const snapshot = known
					? { session: known, found: new Map<string, StoredEntry>() }
					: await this.snapshot(ws, sessionId, references);
				const outcome = decideWrite(snapshot, write);
				if (outcome.replayed || (await this.commitIfCurrent(ws, sessionId, outcome))) {
					this.remember(key, outcome.session);
					return outcome;
				}
			} catch (error) {
				// A rule refused the remembered row: it may be stale, so only a fresh read decides.
				if (!(known && error instanceof SessionError)) throw error;
			}
			this.remembered.delete(key);
		}
		const outcome = await this.lockedWrite(ws, write, references);
		this.remember(key, outcome.session);
		return outcome;
	}

	/** A deleted session's remembered row goes: a session created again under its id starts afresh. */
	forget(ws: string, sessionId: string): void {
		this.remembered.delete(JSON.stringify([ws, sessionId]));
	}

	private remember(key: string, session: SessionRecord): void {
		this.remembered.delete(key);
		this.remembered.set(key, session);
		if (this.remembered.size > REMEMBERED_SESSIONS) {
			const oldest = this.remembered.keys().next().value;
			if (oldest !== undefined) this.remembered.delete(oldest);
		}
	}

	/** The session row and the named entries, in one statement (one snapshot); null without the session. */
	private async snapshot(
		ws: string,
		sessionId: string,
		ids: readonly string[],
	): Promise<WriteSnapshot | null> {
		const rows = (await this.readSnapshot.execute({
			ws,
			sessionId,
			ids: JSON.stringify(ids.filter(isStorableText)),
		})) as Array<{ session: SessionRow; entry: EntryRow | null }>;
		const [first] = rows;
		if (!first) return null;
		const found = new Map<string, StoredEntry>();
		for (const { entry } of rows) if (entry?.id) found.set(entry.id, toStored(entry, sessionId));
		return { session: toRecord(first.session), found };
	}

	/**
	 * Commits a decided write's rows only if the session is still where its
	 * snapshot saw it (`last_seq` one before the first row's seq); false when
	 * another write came first.
	 */
	private async commitIfCurrent(ws: string, sessionId: string, outcome: WriteOutcome): Promise<boolean> {
		const seenLastSeq = (outcome.rows[0]?.seq ?? 1) - 1;
		const [result] = await this.commitPlan.run(
			this.db,
			conditionalAppendValues(ws, sessionId, seenLastSeq, outcome.rows, outcome.session),
		);
		return Number(result?.applied ?? 0) === 1;
	}

	/** The write under the session row's lock, in one transaction (the fallback when races keep being lost). */
	private lockedWrite(ws: string, write: TreeWrite, references: readonly string[]): Promise<WriteOutcome> {
		const { sessionId } = write;
		return this.db.transaction(async (tx) => {
			const row = await sessionRow(tx, ws, sessionId, "update");
			const found = new Map<string, StoredEntry>();
			if (row && references.length > 0)
				for (const r of await entryRows(tx, ws, sessionId, references))
					found.set(r.id, toStored(r, sessionId));
			const outcome = decideWrite(row ? { session: toRecord(row), found } : null, write);
			if (!outcome.replayed) await tx.execute(appendStatement(ws, sessionId, outcome.rows, outcome.session));
			return outcome;
		});
	}
}

/**
 * A continuation's snapshot (../continuation.ts) of one session: with
 * `lock`, in the transaction that holds its row's lock; without, as of its
 * session row, whose `lastSeq` bounds every read (an entry written after the
 * row was read is not there yet).
 */
async function continuationSnapshot(
	db: Db,
	ws: string,
	request: ContinuationRequest,
	lock: "update" | null,
): Promise<ContinuationSnapshot | null> {
	const { sessionId } = request;
	const row = await sessionRow(db, ws, sessionId, lock);
	if (!row) return null;
	const session = toRecord(row);
	const seen = (r: EntryRow) => Number(r.seq) <= session.lastSeq;
	const afterId = continuationAfter(request);
	const [afterRow] = afterId === null ? [] : (await entryRows(db, ws, sessionId, [afterId])).filter(seen);
	const after = afterId === null ? null : afterRow && toStored(afterRow, sessionId);
	const tail =
		after === undefined
			? []
			: (
					await entryLogRows(db, ws, sessionId, {
						afterSeq: after ? after.seq : 0,
						beforeSeq: session.lastSeq + 1,
						types: undefined,
						limit: undefined,
						fromEnd: false,
					})
				).map((r) => toStored(r, sessionId));
	const lookups = continuationLookups(request, after, tail);
	const found = new Map<string, StoredEntry>();
	if (lookups.length > 0)
		for (const r of (await entryRows(db, ws, sessionId, lookups)).filter(seen))
			found.set(r.id, toStored(r, sessionId));
	return { session, after, tail, found };
}
