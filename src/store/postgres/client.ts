/**
 * A postgres.js client as this service opens one: the store's pools, its
 * upkeep connection, and the listening and presence connections
 * (events/pg-bus.ts, events/pg-presence.ts).
 *
 * - A lost connection is reopened after `reconnectDelay` (./unavailable.ts).
 * - Notices (e.g. "relation already exists, skipping") are not printed.
 * - No array types are fetched: no statement reads or sends an array
 *   (parameters are JSON text), so a new connection skips postgres.js's
 *   lookup of them: one round trip fewer, and no statement of its own under
 *   a statement timeout, whose failure postgres.js leaves unhandled.
 * - `name` is the connection's application_name in pg_stat_activity.
 */
import postgres from "postgres";
import { reconnectDelay } from "./unavailable.js";

export interface ClientOptions {
	/** Connections at most (default 1). */
	max?: number;
	/** The connections' statement_timeout; none when absent. */
	statementTimeoutMs?: number;
}

export function serviceClient(url: string, name: string, options: ClientOptions = {}): postgres.Sql {
	return postgres(url, {
		max: options.max ?? 1,
		backoff: reconnectDelay,
		onnotice: () => {},
		fetch_types: false,
		connection: {
			application_name: name,
			...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
		},
	});
}
