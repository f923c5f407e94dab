/**
 * Session analytics on Postgres that read no log: a session's stats from its
 * rollups, its turn rows and its placement columns, and the rollups and turn
 * rows rebuilt from the logs. The rules are the session layer's
 * (session/analytics/rollup.ts, session/analytics/turns.ts, session/analytics/session-stats.ts); this is
 * their SQL, kept out of PgStore so the store reads as the tree's.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { measureEntries } from "../../../session/analytics/measures.js";
import {
	measuresOfRollups,
	ROLLUP_FIGURES,
	type RollupFigures,
	type RollupRow,
} from "../../../session/analytics/rollup.js";
import type { SessionStats } from "../../../session/analytics/session-stats.js";
import {
	assistantTurnOf,
	PERCENTILES,
	type Spread,
	TURN_STATISTICS,
	TURN_VALUES,
	type TurnStatistic,
	type TurnValue,
	turnSpreads,
} from "../../../session/analytics/turns.js";
import type { StoredEntry } from "../../../session/entry.js";
import type { RebuildRollupsOptions } from "../../store.js";
import type { Db } from "../db.js";
import { addRollupBatches } from "../inserts.js";
import { entryLogRows } from "../queries.js";
import { isoText, toStored } from "../rows.js";
import { assistantTurns, entries, sessions, usageRollups } from "../schema.js";
import { executeRows } from "../statements.js";
import { zeroSessionRollups } from "./fold.js";

/**
 * The stats of the session `key` (SQL giving its key) whose active path is
 * `path`: the tree's measures from its rollups, its turns' spreads from its
 * turn rows, its shape from the placement columns (tips through the
 * children index), and the path's measures and spreads from the path.
 */
export async function sessionStatsOf(db: Db, key: SQL, path: readonly StoredEntry[]): Promise<SessionStats> {
	const figures = ROLLUP_FIGURES.map((f) => sql`sum(${usageRollups[f]})::float8 as ${sql.identifier(f)}`);
	const rollups = await executeRows<Pick<RollupRow, "entryType" | "role"> & RollupFigures>(
		db,
		sql`select ${usageRollups.entryType} as "entryType", ${usageRollups.role} as role, ${sql.join(figures, sql`, `)}
			from ${usageRollups} where ${usageRollups.sessionKey} = ${key}
			group by 1, 2`,
	);
	const statistics = TURN_VALUES.flatMap((value) => {
		const column = assistantTurns[value];
		const as = (statistic: TurnStatistic) => sql.identifier(`${value}.${statistic}`);
		return [
			sql`min(${column}) as ${as("min")}`,
			sql`max(${column}) as ${as("max")}`,
			...(["p50", "p95"] as const).map(
				(p) => sql`percentile_disc(${PERCENTILES[p]}::float8) within group (order by ${column}) as ${as(p)}`,
			),
		];
	});
	const [turns] = await executeRows<Record<string, number | null>>(
		db,
		sql`select ${sql.join(statistics, sql`, `)} from ${assistantTurns} where ${assistantTurns.sessionKey} = ${key}`,
	);
	const spread = (value: TurnValue) =>
		Object.fromEntries(
			TURN_STATISTICS.map((statistic) => {
				const v = turns?.[`${value}.${statistic}`];
				return [statistic, v === null || v === undefined ? null : Number(v)];
			}),
		) as Spread;
	// The session's entry rows `e`; `c` their child nodes (a tip has none), `f` the first and last by seq.
	const e = (column: PgColumn) => sql`e.${sql.identifier(column.name)}`;
	const c = (column: PgColumn) => sql`c.${sql.identifier(column.name)}`;
	const f = (column: PgColumn) => sql`f.${sql.identifier(column.name)}`;
	const end = (order: SQL) =>
		sql`(select ${isoText(f(entries.timestamp))} from ${entries} as f
			where ${f(entries.sessionKey)} = ${key} order by ${f(entries.seq)} ${order} limit 1)`;
	const [shape] = await executeRows<{
		maxDepth: number | null;
		tips: number | string;
		first: string | null;
		last: string | null;
	}>(
		db,
		sql`select max(${e(entries.depth)}) filter (where ${e(entries.type)} <> 'leaf') as "maxDepth",
			count(*) filter (where ${e(entries.type)} <> 'leaf' and not exists (
				select 1 from ${entries} as c where ${c(entries.sessionKey)} = ${e(entries.sessionKey)}
					and ${c(entries.parentId)} = ${e(entries.id)} and ${c(entries.type)} <> 'leaf')) as tips,
			${end(sql`asc`)} as first, ${end(sql`desc`)} as last
		from ${entries} as e where ${e(entries.sessionKey)} = ${key}`,
	);
	return {
		tree: measuresOfRollups(rollups),
		path: measureEntries(path.map((stored) => stored.entry)),
		treeTurns: {
			totalTokens: spread("totalTokens"),
			cost: spread("cost"),
			durationMs: spread("durationMs"),
		},
		pathTurns: turnSpreads(path.flatMap((stored) => assistantTurnOf(stored.entry) ?? [])),
		tips: Number(shape?.tips ?? 0),
		maxDepth: shape?.maxDepth == null ? -1 : Number(shape.maxDepth),
		firstActivity: shape?.first ?? null,
		lastActivity: shape?.last ?? null,
	};
}

/**
 * Rollups recomputed from the logs: every session's, or (`missingOnly`)
 * those of sessions that have entries and no rollup row, i.e. written
 * before rollups existed; a rebuild stopped halfway resumes there. Each
 * session in a transaction holding its row lock: its writes wait, so no
 * entry is counted twice or missed. Run on the upkeep connection (bulk
 * timeout, no statement log). Returns the sessions rebuilt; the caller folds.
 */
export async function rebuildSessionRollups(db: Db, options: RebuildRollupsOptions): Promise<number> {
	const missing = sql`not exists (select 1 from ${usageRollups} where ${usageRollups.sessionKey} = ${sessions.key})`;
	const targets = await db
		.select({ key: sessions.key, ws: sessions.workspaceId, id: sessions.id })
		.from(sessions)
		.where(and(sql`${sessions.entryCount} > 0`, options.missingOnly ? missing : undefined))
		.orderBy(sessions.key);
	let rebuilt = 0;
	for (const [index, { key, ws, id }] of targets.entries()) {
		const made = await db.transaction(async (tx) => {
			const [locked] = await tx
				.select({ key: sessions.key })
				.from(sessions)
				.where(and(eq(sessions.key, key), options.missingOnly ? missing : undefined))
				.for("update");
			if (!locked) return false;
			// Zeroed, not deleted, so the workspace's folded rows stay exact (./fold.ts); turn rows are not folded.
			await tx.execute(zeroSessionRollups(key));
			await tx.delete(assistantTurns).where(eq(assistantTurns.sessionKey, key));
			const rows = await entryLogRows(tx, ws, id, {
				afterSeq: 0,
				beforeSeq: undefined,
				types: undefined,
				limit: undefined,
				fromEnd: false,
			});
			await addRollupBatches(
				tx,
				key,
				rows.map((r) => toStored(r, id)),
			);
			return true;
		});
		if (made) rebuilt++;
		options.onSession?.(index + 1, targets.length);
	}
	return rebuilt;
}
