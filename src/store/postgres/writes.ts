/**
 * The write path of the Postgres backend: tree writes (append, move, label,
 * rename) and how every commit is announced. ./store.ts owns the reads and
 * the bulk writes (create, import, fork) and hands their notices here.
 */
import { sql } from "drizzle-orm";
import type { DraftEntry, StoredEntry } from "../../session/entry.js";
import { type CommitAnnouncer, type CommitNotice, encodeNotice } from "../commits.js";
import type { AppendOptions } from "../store.js";
import { type WriteOutcome, writeDrafts, writeNotice } from "../write.js";
import { appendStatement, notifyCall } from "./inserts.js";
import { type Db, entryRows, sessionRow } from "./queries.js";
import { toRecord, toStored } from "./rows.js";

export interface PgWritesOptions {
	/** How commits are announced to live subscribers; none when absent. */
	announce: CommitAnnouncer | undefined;
	/** Hears how many entries each commit wrote (planner statistics, ./upkeep.ts). */
	onWritten: (entries: number) => void;
}

export class PgWrites {
	constructor(
		private readonly db: Db,
		private readonly options: PgWritesOptions,
	) {}

	/** The NOTIFY of a notice, when commits are announced that way; undefined otherwise. */
	private notifyOf(notice: CommitNotice | null) {
		const { announce } = this.options;
		return notice && announce?.kind === "notify"
			? notifyCall(announce.channel, encodeNotice(notice))
			: undefined;
	}

	/** NOTIFY inside the transaction: delivered only if it commits, and only then. */
	async notifyIn(tx: Db, notice: CommitNotice | null): Promise<void> {
		const notify = this.notifyOf(notice);
		if (notify) await tx.execute(sql`select ${notify}`);
	}

	/** The in-process announcement, after the commit. */
	announced(notice: CommitNotice | null): void {
		const { announce } = this.options;
		if (notice && announce?.kind === "callback") announce.onCommit(notice);
		if (notice) this.options.onWritten(notice.toSeq - notice.fromSeq + 1);
	}

	/** One tree write: the shared procedure (../write.ts) in one transaction that locks the session row. */
	async write(
		ws: string,
		sessionId: string,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome> {
		const outcome = await this.db.transaction(async (tx) =>
			writeDrafts(
				{
					lockSession: async () => {
						const row = await sessionRow(tx, ws, sessionId, "update");
						return row ? toRecord(row) : null;
					},
					findEntries: async (ids) => {
						if (ids.length === 0) return new Map<string, StoredEntry>();
						const rows = await entryRows(tx, ws, sessionId, ids);
						return new Map(rows.map((r) => [r.id, toStored(r)]));
					},
					commit: async (rows, next) => {
						const notice = writeNotice({ rows: [...rows], session: next });
						// One statement inserts the rows, moves the pointer and sends the notice.
						await tx.execute(appendStatement(ws, sessionId, rows, next, this.notifyOf(notice)));
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
}
