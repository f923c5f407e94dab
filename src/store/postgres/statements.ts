/**
 * Statements rendered once and run as prepared statements: the hot reads
 * (a session by id, a page of the log, the path walk). Drizzle's
 * `db.execute` sends every statement unprepared (parse, plan, run, each
 * time) and builds its text again on every call; a Statement renders its SQL
 * with `sql.placeholder(...)` parameters once, and each run only fills the
 * values in. On postgres.js a named query runs with `prepare: true` (the
 * driver keeps it per connection, keyed by its text); PGlite runs it as an
 * ordinary parameterised query. It runs on the session of the Db it is given
 * (the pool, or a transaction), through Drizzle's own prepared query, so the
 * statement log (`onQuery`) sees it like any other. That takes the session's
 * `prepareQuery` (`db._.session`, underscore-internal): Drizzle's public
 * `.prepare()` exists only on query builders and binds the statement to the
 * database object it was built on, so a statement prepared on the pool
 * cannot run inside a transaction, and a `sql` template (the recursive walk,
 * the windowed log read) has no `.prepare()` at all. A Drizzle release that
 * changes that internal fails the conformance suite on both drivers.
 *
 * Rows come back as objects under the select list's names (see
 * rows.ts#selectList), with the driver's own values: numbers for integers,
 * parsed jsonb, text for everything else the selections format as text.
 */
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "./db.js";

/** Rendering needs no state of a database: one dialect for every statement. */
const dialect = new PgDialect();

export interface Statement<T> {
	/** Runs on `db` (the pool or a transaction) with the placeholders' values. */
	run(db: Db, values: Record<string, unknown>): Promise<T[]>;
}

/** A result's rows: postgres.js answers with an array of rows, PGlite with `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
	return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** An unprepared statement's rows (one built per call: metrics, stats), on either driver. */
export async function executeRows<T>(db: Db, query: SQL): Promise<T[]> {
	return rowsOf<T>(await db.execute(query));
}

export function statement<T>(name: string, query: SQL): Statement<T> {
	const rendered = dialect.sqlToQuery(query);
	return {
		async run(db, values) {
			const result = (await db._.session
				.prepareQuery(rendered, undefined, name, false)
				.execute(values)) as unknown;
			return rowsOf<T>(result);
		},
	};
}

/**
 * Statements that differ in a few fixed choices (an optional condition, a
 * sort direction), each built and rendered on first use and kept.
 */
export function statementFamily<K extends string, T>(
	build: (key: K) => Statement<T>,
): (key: K) => Statement<T> {
	const built = new Map<K, Statement<T>>();
	return (key) => {
		let found = built.get(key);
		if (!found) {
			found = build(key);
			built.set(key, found);
		}
		return found;
	};
}
