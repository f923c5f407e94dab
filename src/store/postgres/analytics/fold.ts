/**
 * Folding: the workspace's rollup rows (../schema.ts workspaceRollups) kept as
 * sums of its sessions' rows (usageRollups), so a workspace-wide metrics
 * query reads one row per key instead of one per session and key. Writes
 * never touch the workspace rows (sessions of one workspace would contend on
 * them); they mark the session rows they change dirty, and a fold, in the
 * background, recomputes the workspace rows of the dirty rows' keys and
 * clears the marks.
 *
 * The invariant a query relies on: for every key that no dirty row of the
 * workspace has, the workspace row equals the sum of the sessions' rows (no
 * workspace row: the sum is zero). A query therefore reads workspace rows
 * for the other keys and the sessions' rows for the dirty ones (./metrics.ts),
 * and is exact whenever it runs, folded or not. Why the invariant holds:
 * - a write that changes a session row marks it dirty in the same statement;
 * - a fold locks the dirty rows it clears (skipping rows a write holds, which
 *   stay dirty), then, in a later statement whose snapshot sees them as they
 *   are locked, sums each of their keys over all the workspace's sessions and
 *   clears only those rows. A row that is clean and not locked cannot change
 *   without becoming dirty, so the sums are the committed state of every key
 *   it clears;
 * - folds of one workspace take turns (an advisory lock), so an older sum
 *   never overwrites a newer one;
 * - session rows are never deleted by writes: a rebuild zeroes a row instead
 *   (and marks it dirty), because a deleted row would leave its key's
 *   workspace row counting it with no dirty row to say so. A fold deletes the
 *   zero rows it clears, and the workspace rows whose sum is zero. Deleting
 *   a session deletes its rows and recomputes their keys' workspace rows in
 *   one statement, under the fold's turn (removeSessionRollups).
 */
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import {
	ROLLUP_FIGURES,
	ROLLUP_MAXIMA,
	ROLLUP_MINIMA,
	type RollupKey,
} from "../../../session/analytics/rollup.js";
import type { Db } from "../db.js";
import { sessions, usageRollups, workspaceRollups } from "../schema.js";
import { executeRows } from "../statements.js";

/** The key's fields; a Record, so a field added to RollupKey must be added here. */
const KEY_FIELDS = Object.keys({
	bucket: true,
	entryType: true,
	role: true,
	provider: true,
	model: true,
	toolName: true,
	author: true,
} satisfies Record<keyof RollupKey, true>) as (keyof RollupKey)[];

/** The extremes' columns with how rows of one key merge them (session/analytics/rollup.ts). */
export const EXTREME_COLUMNS = [
	...ROLLUP_MINIMA.map((f) => ({ column: usageRollups[f], merge: sql`min` })),
	...ROLLUP_MAXIMA.map((f) => ({ column: usageRollups[f], merge: sql`max` })),
];

/** `alias.column`: the statements below read the same table under several names. */
export const ref = (alias: string, column: PgColumn) =>
	sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`;

const bare = (column: PgColumn) => sql.identifier(column.name);

/** The key columns of rows under `alias` (both tables name them alike). */
export const keyColumns = (alias: string) => KEY_FIELDS.map((f) => ref(alias, usageRollups[f]));

/** Rows under aliases `a` and `b` have the same key. */
export const sameKey = (a: string, b: string) =>
	sql.join(
		KEY_FIELDS.map((f) => sql`${ref(a, usageRollups[f])} = ${ref(b, usageRollups[f])}`),
		sql` and `,
	);

/** Every figure of the row under `alias` is zero: it counts nothing (a rebuild's leftover). */
export const countsNothing = (alias: string) =>
	sql`(${sql.join(
		ROLLUP_FIGURES.map((f) => sql`${ref(alias, usageRollups[f])} = 0`),
		sql` and `,
	)})`;

/** The keys of the workspace's sessions. */
export const workspaceSessions = (ws: string) =>
	sql`(select ${sessions.key} from ${sessions} where ${sessions.workspaceId} = ${ws})`;

/** The distinct keys of the workspace's dirty session rows. */
export const dirtyKeys = (ws: string) =>
	sql`select distinct ${sql.join(keyColumns("d"), sql`, `)} from ${usageRollups} as d
		where ${ref("d", usageRollups.dirty)} and ${ref("d", usageRollups.sessionKey)} in ${workspaceSessions(ws)}`;

/**
 * Dirty rows locked and folded per transaction. Small, because a fold's
 * transaction, like any writing one, holds the activity feed back while it
 * runs (../queries.ts activityRows reads below every running transaction),
 * and holds its rows' locks: about 50 ms a batch.
 */
const FOLD_BATCH = 2_000;

/** A number identifying the workspace's fold turn (pg_try_advisory_xact_lock). */
const turnOf = (ws: string) => sql`hashtext(${`workspace_rollups:${ws}`})`;

const FIGURES = ROLLUP_FIGURES.map((f) => usageRollups[f]);
const EXTREMES = EXTREME_COLUMNS.map((e) => e.column);

/**
 * The body of a `sums` CTE: per key of the `keys` CTE, the figures and
 * extremes of the workspace's session rows with that key (leaving out the
 * session `without`, a deleted one whose rows the statement still sees).
 */
function keySums(ws: string, without?: number): SQL {
	const key = keyColumns("k");
	return sql`select ${sql.join(key, sql`, `)}, ${sql.join(
		[
			...FIGURES.map((c) => sql`sum(${ref("x", c)}) as ${bare(c)}`),
			...EXTREME_COLUMNS.map(({ column, merge }) => sql`${merge}(${ref("x", column)}) as ${bare(column)}`),
		],
		sql`, `,
	)}
		from keys as k join ${usageRollups} as x on ${sameKey("k", "x")}
		where ${ref("x", usageRollups.sessionKey)} in ${workspaceSessions(ws)}
			${without === undefined ? sql`` : sql`and ${ref("x", usageRollups.sessionKey)} <> ${without}`}
		group by ${sql.join(key, sql`, `)}`;
}

/** The body of a `written` CTE: the workspace rows of the `sums` CTE's keys that count something. */
function writeSums(ws: string): SQL {
	return sql`insert into ${workspaceRollups} (${bare(workspaceRollups.workspaceId)}, ${sql.join(
		KEY_FIELDS.map((f) => bare(workspaceRollups[f])),
		sql`, `,
	)}, ${sql.join([...FIGURES, ...EXTREMES].map(bare), sql`, `)})
		select ${ws}, ${sql.join(keyColumns("sums"), sql`, `)}, ${sql.join(
			[...FIGURES, ...EXTREMES].map((c) => ref("sums", c)),
			sql`, `,
		)}
		from sums where not ${countsNothing("sums")}
		on conflict on constraint workspace_rollups_pk do update set ${sql.join(
			[...FIGURES, ...EXTREMES].map((c) => sql`${bare(c)} = excluded.${bare(c)}`),
			sql`, `,
		)}`;
}

/**
 * One fold batch in its own transaction: null when another fold of the
 * workspace has the turn, else the dirty rows it cleared.
 */
async function foldBatch(db: Db, ws: string): Promise<number | null> {
	return db.transaction(async (tx) => {
		const [turn] = await executeRows<{ got: boolean }>(
			tx,
			sql`select pg_try_advisory_xact_lock(${turnOf(ws)}) as got`,
		);
		if (!turn?.got) return null;
		// Rows a write holds are skipped: they stay dirty, and the fold never waits for a write (no deadlock).
		const locked = await executeRows<{ row: string }>(
			tx,
			sql`select ctid::text as row from ${usageRollups}
				where ${usageRollups.dirty} and ${usageRollups.sessionKey} in ${workspaceSessions(ws)}
				limit ${FOLD_BATCH} for update skip locked`,
		);
		if (locked.length === 0) return 0;
		const rows = sql`array(select jsonb_array_elements_text(${JSON.stringify(locked.map((l) => l.row))}::jsonb)::tid)`;
		// This statement's snapshot sees the locked rows as they are: nobody can change them before the commit.
		await tx.execute(sql`with folded as (
				select * from ${usageRollups} as f where ${ref("f", usageRollups.dirty)} and f.ctid = any(${rows})
			), keys as (
				select distinct ${sql.join(keyColumns("folded"), sql`, `)} from folded
			), sums as (
				${keySums(ws)}
			), written as (
				${writeSums(ws)}
			), emptied as (
				delete from ${workspaceRollups} as w using sums
				where ${ref("w", workspaceRollups.workspaceId)} = ${ws} and ${sameKey("w", "sums")} and ${countsNothing("sums")}
			), removed as (
				delete from ${usageRollups} as z where z.ctid = any(${rows}) and ${countsNothing("z")}
			)
			update ${usageRollups} as c set ${bare(usageRollups.dirty)} = false
			where c.ctid = any(${rows}) and not ${countsNothing("c")}`);
		return locked.length;
	});
}

export interface Folded {
	/** Dirty rows cleared. */
	cleared: number;
	/** False when another fold of the workspace had the turn: rows it had not locked may be left. */
	finished: boolean;
}

/**
 * Folds the workspace's dirty rows, a batch per transaction, until none is
 * left or another fold has the turn.
 */
export async function foldWorkspace(db: Db, ws: string): Promise<Folded> {
	let cleared = 0;
	for (;;) {
		const batch = await foldBatch(db, ws);
		if (batch === null) return { cleared, finished: false };
		cleared += batch;
		if (batch < FOLD_BATCH) return { cleared, finished: true };
	}
}

/** The workspaces with dirty rows (a fold of everything: after a rebuild, at start). */
export async function dirtyWorkspaces(db: Db): Promise<string[]> {
	const rows = await executeRows<{ ws: string }>(
		db,
		sql`select distinct ${sessions.workspaceId} as ws from ${sessions}
			where ${sessions.key} in (select ${usageRollups.sessionKey} from ${usageRollups} where ${usageRollups.dirty})`,
	);
	return rows.map((r) => r.ws);
}

/**
 * Zeroes a session's rows (their extremes none) and marks them dirty (a
 * rebuild, before it adds them again): see the header.
 */
export function zeroSessionRollups(sessionKey: number): SQL {
	return sql`update ${usageRollups} set ${sql.join(
		[
			...ROLLUP_FIGURES.map((f) => sql`${bare(usageRollups[f])} = 0`),
			...EXTREME_COLUMNS.map(({ column }) => sql`${bare(column)} = null`),
		],
		sql`, `,
	)}, ${bare(usageRollups.dirty)} = true
		where ${usageRollups.sessionKey} = ${sessionKey}`;
}

/**
 * Removes a deleted session's rows (deleteSession, in its transaction) and
 * brings the workspace rows of their keys back to the sum over the
 * remaining sessions, under the workspace's fold turn (waited for: a fold
 * that summed the session's rows must not write after this). Deleting
 * rows is safe here though not for a rebuild (see the header): the
 * workspace rows of every key the session had are recomputed in the same
 * statement, so none is left counting the rows that are gone. Rows other
 * sessions hold dirty keep their marks: their keys stay exact either way.
 */
export async function removeSessionRollups(tx: Db, ws: string, sessionKey: number): Promise<void> {
	await tx.execute(sql`select pg_advisory_xact_lock(${turnOf(ws)})`);
	// The scans below read the statement's snapshot, which still holds the deleted rows: excluded by key.
	await tx.execute(sql`with gone as (
			delete from ${usageRollups} as g where ${ref("g", usageRollups.sessionKey)} = ${sessionKey}
			returning ${sql.join(keyColumns("g"), sql`, `)}
		), keys as (
			select distinct ${sql.join(keyColumns("gone"), sql`, `)} from gone
		), sums as (
			${keySums(ws, sessionKey)}
		), written as (
			${writeSums(ws)}
		)
		delete from ${workspaceRollups} as w using keys as k
		where ${ref("w", workspaceRollups.workspaceId)} = ${ws} and ${sameKey("w", "k")}
			and not exists (select 1 from sums as s where ${sameKey("s", "k")} and not ${countsNothing("s")})`);
}

/** How long after a write its workspace is folded: writes in between share one fold. */
export const FOLD_DELAY_MS = 1000;

/**
 * Folds in the background: a workspace written to is folded FOLD_DELAY_MS
 * later, one fold at a time per store; a failure is dropped (the marks stay,
 * queries stay exact, the next write schedules another fold).
 */
export class FoldSchedule {
	private readonly due = new Set<string>();
	private timer: NodeJS.Timeout | undefined;
	private running: Promise<void> | undefined;
	private closed = false;
	private listing: Promise<void> | undefined;

	constructor(
		/** Resolves false when the workspace must be folded again (another fold had the turn). */
		private readonly fold: (ws: string) => Promise<boolean>,
		private readonly delayMs = FOLD_DELAY_MS,
	) {}

	/** The workspace's rollups changed (or a query found many dirty rows). */
	touched(ws: string): void {
		if (this.closed) return;
		this.due.add(ws);
		if (!this.timer && !this.running) this.arm();
	}

	/** Every workspace `list` names (those with dirty rows at start), without waiting for it. */
	touchAll(list: () => Promise<string[]>): void {
		this.listing = list()
			.then((workspaces) => {
				for (const ws of workspaces) this.touched(ws);
			})
			.catch(() => {});
	}

	private arm(): void {
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.running = this.runDue().finally(() => {
				this.running = undefined;
				if (this.due.size > 0 && !this.closed) this.arm();
			});
		}, this.delayMs);
		this.timer.unref();
	}

	private async runDue(): Promise<void> {
		const workspaces = [...this.due];
		this.due.clear();
		for (const ws of workspaces) {
			if (this.closed) return;
			// Another instance's fold had the turn and may have locked its rows before this one's writes:
			// try again later rather than leave them dirty until the workspace's next write.
			if (!(await this.fold(ws).catch(() => true))) this.due.add(ws);
		}
	}

	/** No new folds; resolves when the running one is done (before the client closes). */
	async close(): Promise<void> {
		this.closed = true;
		await this.listing;
		clearTimeout(this.timer);
		this.timer = undefined;
		await this.running;
	}
}
