import type { StoreConfig } from "../config.js";
import { MemoryStore } from "./memory.js";
import { openPgliteWorker } from "./pglite-worker/worker-store.js";
import { type OpenOptions, openPostgres } from "./postgres/open.js";
import type { SessionStore } from "./store.js";

/**
 * Open the configured backend; Postgres backends apply pending migrations
 * first. Embedded PGlite runs on a worker thread, so that its queries never
 * hold the event loop of the process that serves requests.
 */
export async function openStore(config: StoreConfig, options: OpenOptions = {}): Promise<SessionStore> {
	switch (config.backend) {
		case "memory":
			return new MemoryStore(
				undefined,
				options.announce?.kind === "callback" ? { onCommit: options.announce.onCommit } : {},
			);
		case "pglite":
			return openPgliteWorker(config.dataDir, options);
		case "postgres":
			return openPostgres(config.url, options);
	}
}
