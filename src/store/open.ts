/**
 * The store as the application opens it: the server (services.ts) and the
 * import CLI both open it here, so how a backend announces its commits is
 * decided once (`commitAnnouncer`).
 */
import { type CommitAnnouncer, type CommitNotice, NOTIFY_CHANNEL } from "./commits.js";
import { MemoryStore } from "./memory.js";
import { openPgliteWorker } from "./pglite-worker/worker-store.js";
import { type OpenOptions, openPostgres } from "./postgres/open.js";
import type { SessionStore } from "./store.js";

export type { StatementTimeouts } from "./postgres/open.js";

/** Which backend, and where its data lives (parsed from the environment by src/config.ts). */
export type StoreConfig =
	| { backend: "memory" }
	| { backend: "pglite"; dataDir: string }
	| { backend: "postgres"; url: string };

export interface StoreOptions
	extends Pick<OpenOptions, "onQuery" | "statementTimeouts" | "foldDelayMs" | "limits"> {
	/**
	 * Called in this process after each commit, on the backends one process
	 * serves (memory, PGlite). Never called on Postgres: see `commitAnnouncer`.
	 */
	onCommit?: (notice: CommitNotice) => void;
}

/**
 * How a store of this backend announces its commits. Postgres may be shared
 * by many processes (servers, an import), so it NOTIFYs inside the
 * transaction and every process that LISTENs hears it, this one included
 * (events/pg-bus.ts); memory and PGlite belong to one process, so they call
 * `onCommit` there after the commit, or announce nothing without it.
 */
export function commitAnnouncer(
	config: StoreConfig,
	onCommit?: (notice: CommitNotice) => void,
): CommitAnnouncer | undefined {
	if (config.backend === "postgres") return { kind: "notify", channel: NOTIFY_CHANNEL };
	return onCommit ? { kind: "callback", onCommit } : undefined;
}

/**
 * Open the configured backend; Postgres backends apply pending migrations
 * first. Embedded PGlite runs on a worker thread, so that its queries never
 * hold the event loop of the process that serves requests.
 */
export async function openStore(config: StoreConfig, options: StoreOptions = {}): Promise<SessionStore> {
	const { onCommit, ...rest } = options;
	const announce = commitAnnouncer(config, onCommit);
	const open: OpenOptions = { ...rest, ...(announce ? { announce } : {}) };
	switch (config.backend) {
		case "memory":
			return new MemoryStore(undefined, {
				...(announce?.kind === "callback" ? { onCommit: announce.onCommit } : {}),
				...(options.limits === undefined ? {} : { limits: options.limits }),
			});
		case "pglite":
			return openPgliteWorker(config.dataDir, open);
		case "postgres":
			return openPostgres(config.url, open);
	}
}
