/**
 * The running parts behind the API, wired for the configured backend:
 * Postgres announces commits with NOTIFY and every instance LISTENs; the
 * single-instance backends (memory, PGlite) use an in-process bus.
 */
import { type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import type { EventBus } from "./events/bus.js";
import { InProcessBus } from "./events/bus.js";
import { LiveEvents } from "./events/live.js";
import { PgListenBus } from "./events/pg-bus.js";
import { PgPresenceTransport } from "./events/pg-presence.js";
import { PresenceHub, type PresenceOptions } from "./events/presence.js";
import { InProcessPresenceTransport, type PresenceTransport } from "./events/presence-transport.js";
import type { Logger } from "./logger.js";
import type { InputLimits } from "./session/limits.js";
import { openStore, type StoreConfig, type StoreOptions } from "./store/open.js";
import { DEFAULT_WORKSPACE, type SessionStore } from "./store/store.js";

export interface Services {
	store: SessionStore;
	bus: EventBus;
	live: LiveEvents;
	/** Presence (who views which session); across instances on Postgres. */
	presence: PresenceHub;
	/** Calls made on `store` so far, by method (read by the Prometheus metrics). */
	storeCalls: StoreCallStats;
	/** Whether this instance can serve: the database answers and, on Postgres, the listener is connected. */
	ready(): Promise<Readiness>;
	close(): Promise<void>;
}

export type Readiness = { ready: true } | { ready: false; reason: string };

export interface StoreCallStats {
	/** Store calls running now, every request's together (Postgres: each holds a pooled connection or waits for one). */
	inFlight: number;
	byMethod: Map<string, { calls: number; failures: number; seconds: number }>;
}

/** How long the readiness probe waits for the database (a hung database is not ready). */
const PROBE_TIMEOUT_MS = 2_000;
const tracer = trace.getTracer("session-tree-graphql");

/**
 * The store, counted and traced: each call is a span `store.<method>` (a
 * no-op unless the application registers an OpenTelemetry tracer provider;
 * its parent is the request's span when a context manager is registered)
 * and adds to `stats`.
 */
function instrumentStore(store: SessionStore, stats: StoreCallStats): SessionStore {
	return new Proxy(store, {
		get(target, property, receiver) {
			const value = Reflect.get(target, property, receiver);
			if (typeof value !== "function" || property === "close" || typeof property !== "string") return value;
			const method = property;
			return (...args: unknown[]) => {
				const started = performance.now();
				const span: Span = tracer.startSpan(`store.${method}`, {
					attributes: { "db.system": store.backend === "memory" ? "memory" : "postgresql" },
				});
				stats.inFlight += 1;
				const done = (failed: boolean, error?: unknown) => {
					stats.inFlight -= 1;
					const counts = stats.byMethod.get(method) ?? { calls: 0, failures: 0, seconds: 0 };
					counts.calls += 1;
					if (failed) counts.failures += 1;
					counts.seconds += (performance.now() - started) / 1000;
					stats.byMethod.set(method, counts);
					if (failed) {
						span.setStatus({
							code: SpanStatusCode.ERROR,
							message: (error as Error)?.message ?? String(error),
						});
					}
					span.end();
				};
				let result: unknown;
				try {
					result = value.apply(target, args);
				} catch (error) {
					done(true, error);
					throw error;
				}
				if (result instanceof Promise) {
					return result.then(
						(v) => {
							done(false);
							return v;
						},
						(error) => {
							done(true, error);
							throw error;
						},
					);
				}
				done(false);
				return result;
			};
		},
	});
}

/** Rejects after `ms`, so a hung database answers "not ready" instead of holding the probe. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface ServiceOptions extends Pick<StoreOptions, "onQuery" | "statementTimeouts" | "foldDelayMs"> {
	/** The input limits the store holds writes to (default DEFAULT_INPUT_LIMITS). */
	inputLimits?: InputLimits;
	/** Live events a slow subscriber may fall behind by. */
	bufferSize?: number;
	/** A live metrics query sends at most one result per this many ms. */
	metricsIntervalMs?: number;
	/** Heartbeat, TTL and limits of presence (defaults: 10 s, 30 s, 100 viewers per session, 10,000 sessions). */
	presence?: Pick<PresenceOptions, "heartbeatMs" | "ttlMs" | "maxViewersPerSession" | "maxSessions">;
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
		...(options.foldDelayMs === undefined ? {} : { foldDelayMs: options.foldDelayMs }),
		...(options.inputLimits === undefined ? {} : { limits: options.inputLimits }),
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
	// Presence on its own channel; a failure to listen closes what is already open.
	let presenceTransport: PresenceTransport;
	try {
		presenceTransport =
			config.backend === "postgres"
				? await PgPresenceTransport.open(config.url, logger)
				: new InProcessPresenceTransport();
	} catch (error) {
		await bus.close();
		await store.close();
		throw error;
	}
	const presence = new PresenceHub({ transport: presenceTransport, logger, bus, ...options.presence });
	const storeCalls: StoreCallStats = { inFlight: 0, byMethod: new Map() };
	const plainStore = store;
	store = instrumentStore(store, storeCalls);
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
		presence,
		storeCalls,
		async ready() {
			// A read of the sessions table: the database answers, and the schema the migrations made is there
			// (they are applied when the store opens; a database replaced or dropped since fails here).
			try {
				await within(
					PROBE_TIMEOUT_MS,
					"the database",
					plainStore.getSession(DEFAULT_WORKSPACE, "(readiness probe)"),
				);
			} catch (error) {
				// The route is public: the reason says what, the log says why (a database's message names its objects).
				logger.warn("not ready: the database does not answer", { error: (error as Error).message });
				return { ready: false, reason: "database: not answering" };
			}
			// Heard, not assumed: a dropped listening connection is not ready until postgres.js listens again.
			try {
				await bus.probe(PROBE_TIMEOUT_MS);
			} catch (error) {
				logger.warn("not ready: the listening connection does not hear", {
					error: (error as Error).message,
				});
				return { ready: false, reason: "listener: not listening" };
			}
			return { ready: true };
		},
		async close() {
			live.close();
			// Leaves are announced before the transport closes, so other instances drop this one's viewers at once.
			presence.close();
			await presenceTransport.close();
			await bus.close();
			await store.close();
		},
	};
}
