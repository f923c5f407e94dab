import type { StoreConfig } from "../config.js";
import { MemoryStore } from "./memory.js";
import { type OpenOptions, openPglite, openPostgres } from "./postgres/open.js";
import type { SessionStore } from "./store.js";

/** Open the configured backend; Postgres backends apply pending migrations first. */
export async function openStore(config: StoreConfig, options: OpenOptions = {}): Promise<SessionStore> {
	switch (config.backend) {
		case "memory":
			return new MemoryStore(
				undefined,
				options.announce?.kind === "callback" ? { onCommit: options.announce.onCommit } : {},
			);
		case "pglite":
			return openPglite(config.dataDir, options);
		case "postgres":
			return openPostgres(config.url, options);
	}
}
