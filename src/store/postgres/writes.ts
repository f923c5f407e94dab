/**
 * The write path of the Postgres backend: tree writes (append, move, label,
 * rename) and how every commit is announced. ./store.ts owns the reads and
 * the bulk writes (create, import, fork) and hands their notices here.
 *
 * A tree write is optimistic: the rules (../write.ts) run on a snapshot of
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
import type { DraftEntry, StoredEntry } from "../../session/entry.js";
import { SessionError } from "../../session/errors.js";
import { isStorableText } from "../../session/validate.js";
import { type CommitAnnouncer, type CommitNotice, encodeNotice } from "../commits.js";
import { KeyedMutex } from "../mutex.js";
import type { AppendOptions, SessionRecord } from "../store.js";
import {
	decideWrite,
	notFoundSession,
	type SessionWriter,
	type WriteOutcome,
	type WriteSnapshot,
	writeDrafts,
	writeNotice,
} from "../write.js";
import type { Db } from "./db.js";
import { appendStatement, conditionalAppend, conditionalAppendValues, notifyEach } from "./inserts.js";
import { CommitNotifier } from "./notifier.js";
import { entryRows, sessionRow } from "./queries.js";
import { type EntryRow, entryColumns, type SessionRow, sessionColumns, toRecord, toStored } from "./rows.js";
import { entries, sessions } from "./schema.js";
import { type Statement, statement } from "./statements.js";

export interface PgWritesOptions {
	/** How commits are announced to live subscribers; none when absent. */
	announce: CommitAnnouncer | undefined;
	/** Hears each commit (planner statistics, ./upkeep.ts; folds, ./fold.ts). */
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
	async write(
		ws: string,
		sessionId: string,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome> {
		// Postgres cannot even compare with such an id: no session has it.
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
		const key = JSON.stringify([ws, sessionId]);
		const outcome = await this.turns.run(key, () => this.writeInTurn(key, ws, sessionId, drafts, options));
		this.announceWrite(outcome);
		return outcome;
	}

	/** A committed tree write's notice: in process now, and by NOTIFY after (when announced so). */
	private announceWrite(outcome: WriteOutcome): void {
		const notice = writeNotice(outcome);
		this.announced(notice);
		if (notice) this.notifier?.queue(notice);
	}

	/**
	 * A write that reads more than the snapshot of a tree write before it
	 * plans (a continuation reads the log after an entry), run like one (see
	 * the header): `plan` reads through a writer on a snapshot of the session
	 * row, whose reads see only entries up to its `lastSeq`, and its commit is
	 * the conditional one; after OPTIMISTIC_ATTEMPTS lost races, `plan` runs
	 * with a writer in the transaction that holds the row's lock. In the
	 * session's turn, announced like every tree write. No transaction is held
	 * open across the reads: one kept open by many followers at once held the
	 * workspace's activity feed back (store/postgres/queries.ts activityRows).
	 */
	async planned<T extends WriteOutcome>(
		ws: string,
		sessionId: string,
		plan: (writer: SessionWriter, db: Db, upToSeq: () => number) => Promise<T>,
	): Promise<T> {
		if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
		const key = JSON.stringify([ws, sessionId]);
		const outcome = await this.turns.run(key, async () => {
			const attempts = this.options.optimisticAttempts ?? OPTIMISTIC_ATTEMPTS;
			for (let attempt = 0; attempt < attempts; attempt++) {
				const result = await this.plannedOnSnapshot(ws, sessionId, plan);
				if (result) {
					this.remember(key, result.session);
					return result;
				}
			}
			const result = await this.db.transaction((tx) => {
				let locked: SessionRecord | null = null;
				const writer = this.lockedWriter(tx, ws, sessionId);
				const lockSession = async () => {
					locked = await writer.lockSession();
					return locked;
				};
				return plan({ ...writer, lockSession }, tx, () => locked?.lastSeq ?? 0);
			});
			this.remember(key, result.session);
			return result;
		});
		this.announceWrite(outcome);
		return outcome;
	}

	/** `plan` on a snapshot of the session row, with the conditional commit; null when another write came first. */
	private async plannedOnSnapshot<T extends WriteOutcome>(
		ws: string,
		sessionId: string,
		plan: (writer: SessionWriter, db: Db, upToSeq: () => number) => Promise<T>,
	): Promise<T | null> {
		let snapshot: SessionRecord | null = null;
		let applied = true;
		const writer: SessionWriter = {
			lockSession: async () => {
				const row = await sessionRow(this.db, ws, sessionId, null);
				snapshot = row ? toRecord(row) : null;
				return snapshot;
			},
			// Only what the snapshot holds: an entry written after it is not there yet.
			findEntries: async (ids) => {
				const limit = snapshot?.lastSeq ?? 0;
				if (ids.length === 0) return new Map<string, StoredEntry>();
				const rows = await entryRows(this.db, ws, sessionId, ids);
				return new Map(rows.filter((r) => Number(r.seq) <= limit).map((r) => [r.id, toStored(r, sessionId)]));
			},
			commit: async (rows, next) => {
				const [result] = await this.commitPlan.run(
					this.db,
					conditionalAppendValues(ws, sessionId, snapshot?.lastSeq ?? 0, rows, next),
				);
				applied = Number(result?.applied ?? 0) === 1;
			},
		};
		const result = await plan(writer, this.db, () => snapshot?.lastSeq ?? 0);
		return applied ? result : null;
	}

	/** The write primitives of `tx` on one session: lockSession takes its row's lock. */
	lockedWriter(tx: Db, ws: string, sessionId: string): SessionWriter {
		return {
			lockSession: async () => {
				const row = await sessionRow(tx, ws, sessionId, "update");
				return row ? toRecord(row) : null;
			},
			findEntries: async (ids) => {
				if (ids.length === 0) return new Map<string, StoredEntry>();
				const rows = await entryRows(tx, ws, sessionId, ids);
				return new Map(rows.map((r) => [r.id, toStored(r, sessionId)]));
			},
			commit: async (rows, next) => {
				await tx.execute(appendStatement(ws, sessionId, rows, next));
			},
		};
	}

	/** Sends the notices still queued; the store closes its client after this. */
	async close(): Promise<void> {
		await this.notifier?.close();
	}

	private async writeInTurn(
		key: string,
		ws: string,
		sessionId: string,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome> {
		const references = referencedIds(drafts);
		const attempts = this.options.optimisticAttempts ?? OPTIMISTIC_ATTEMPTS;
		for (let attempt = 0; attempt < attempts; attempt++) {
			const known = attempt === 0 && references.length === 0 ? this.remembered.get(key) : undefined;
			try {
				const snapshot = known
					? { session: known, found: new Map<string, StoredEntry>() }
					: await this.snapshot(ws, sessionId, references);
				const outcome = await this.tryWrite(ws, sessionId, snapshot, drafts, options);
				if (outcome) {
					this.remember(key, outcome.session);
					return outcome;
				}
			} catch (error) {
				// A rule refused the remembered row: it may be stale, so only a fresh read decides.
				if (!(known && error instanceof SessionError)) throw error;
			}
			this.remembered.delete(key);
		}
		const outcome = await this.lockedWrite(ws, sessionId, drafts, options);
		this.remember(key, outcome.session);
		return outcome;
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

	/** The rules on a snapshot, then the conditional commit; null when another write came first. */
	private async tryWrite(
		ws: string,
		sessionId: string,
		snapshot: WriteSnapshot | null,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome | null> {
		const outcome = decideWrite(snapshot, sessionId, drafts, options);
		if (outcome.replayed) return outcome;
		const [result] = await this.commitPlan.run(
			this.db,
			conditionalAppendValues(ws, sessionId, snapshot?.session.lastSeq ?? 0, outcome.rows, outcome.session),
		);
		return Number(result?.applied ?? 0) === 1 ? outcome : null;
	}

	/** The write under the session row's lock, in one transaction (the fallback when races keep being lost). */
	private lockedWrite(
		ws: string,
		sessionId: string,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome> {
		return this.db.transaction(async (tx) =>
			writeDrafts(this.lockedWriter(tx, ws, sessionId), sessionId, drafts, options),
		);
	}
}
