/**
 * Planner statistics for the Postgres backend. Without fresh statistics the
 * planner walks a path by scanning the session's entries at every step
 * (quadratic) and an append looks its leaf up through the wrong index. PGlite
 * has no autovacuum at all, and Postgres' autovacuum may be off or lag a bulk
 * import; so the store counts the rows it writes and runs ANALYZE itself.
 */
import { getTableName } from "drizzle-orm";
import { entries, sessions } from "./schema.js";

/** The upkeep statements, sent as text on the raw client (no parameters, outside the statement log). */
export const ANALYZE_TABLES = `analyze ${getTableName(sessions)}, ${getTableName(entries)}`;
/** The entry rows the planner's statistics count (`reltuples` is -1 before the first ANALYZE). */
export const COUNTED_ENTRY_ROWS = `select greatest(reltuples, 0)::bigint as n from pg_class where oid = '${getTableName(entries)}'::regclass`;

/** Fresh planner statistics after this many new rows, or this share of the table if more. */
const ANALYZE_MIN_ROWS = 500;
const ANALYZE_SHARE = 0.1;

/** Maintenance the store runs on the raw driver, outside the statement log. */
export interface Upkeep {
	/** ANALYZE the tables; resolves with the number of entry rows the statistics now count. */
	analyze(): Promise<number>;
}

/** When to ANALYZE: the threshold follows autovacuum's (a share of the table, at least a floor). */
export class AnalyzeSchedule {
	private rowsSinceAnalyze = 0;
	private rowsAtAnalyze = 0;
	private analyzing: Promise<void> | undefined;

	constructor(private readonly upkeep: Upkeep) {}

	/** Rows just committed; starts an ANALYZE in the background once enough have been. */
	countWrites(rows: number): void {
		this.rowsSinceAnalyze += rows;
		if (this.rowsSinceAnalyze >= Math.max(ANALYZE_MIN_ROWS, this.rowsAtAnalyze * ANALYZE_SHARE))
			void this.analyze();
	}

	/** One ANALYZE at a time; a failure is dropped (statistics are an optimisation, never a request's error). */
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

	/** Resolves when no ANALYZE is running (before the client closes). */
	async settled(): Promise<void> {
		await this.analyzing?.catch(() => {});
	}
}
