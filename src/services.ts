/**
 * The running parts behind the API, wired for the configured backend:
 * Postgres announces commits with NOTIFY and every instance LISTENs; the
 * single-instance backends (memory, PGlite) use an in-process bus.
 */
import type { EventBus } from "./events/bus.js";
import { InProcessBus } from "./events/bus.js";
import { LiveEvents } from "./events/live.js";
import { PgListenBus } from "./events/pg-bus.js";
import type { Logger } from "./logger.js";
import { openStore, type StoreConfig, type StoreOptions } from "./store/open.js";
import type { SessionStore } from "./store/store.js";

export interface Services {
	store: SessionStore;
	bus: EventBus;
	live: LiveEvents;
	close(): Promise<void>;
}

export interface ServiceOptions extends Pick<StoreOptions, "onQuery" | "statementTimeouts"> {
	/** Live events a slow subscriber may fall behind by. */
	bufferSize?: number;
	/** A live metrics query sends at most one result per this many ms. */
	metricsIntervalMs?: number;
}

export async function openServices(
	config: StoreConfig,
	logger: Logger,
	options: ServiceOptions = {},
): Promise<Services> {
	let bus: EventBus;
	let store: SessionStore;
	const storeOptions = {
		...(options.onQuery ? { onQuery: options.onQuery } : {}),
		...(options.statementTimeouts ? { statementTimeouts: options.statementTimeouts } : {}),
	};
	// The listening side of store/open.ts's `commitAnnouncer`: Postgres NOTIFYs, the others call onCommit.
	if (config.backend === "postgres") {
		// Listen first: a commit after this point is seen by this instance.
		const pgBus = await PgListenBus.open(config.url, logger);
		try {
			store = await openStore(config, storeOptions);
		} catch (error) {
			await pgBus.close();
			throw error;
		}
		bus = pgBus;
	} else {
		const local = new InProcessBus();
		store = await openStore(config, { ...storeOptions, onCommit: local.publish });
		bus = local;
	}
	const live = new LiveEvents({
		store,
		bus,
		logger,
		...(options.bufferSize === undefined ? {} : { bufferSize: options.bufferSize }),
		...(options.metricsIntervalMs === undefined ? {} : { metricsIntervalMs: options.metricsIntervalMs }),
	});
	return {
		store,
		bus,
		live,
		async close() {
			live.close();
			await bus.close();
			await store.close();
		},
	};
}
