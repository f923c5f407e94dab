/**
 * Environment → typed configuration, with errors that say which variable is
 * wrong and what it should look like.
 */
import { type AuthConfig, authConfig } from "./auth/config.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "./session/limits.js";
import type { StoreConfig } from "./store/open.js";
import { DEFAULT_WORKSPACE } from "./store/store.js";

export interface Config {
	store: StoreConfig;
	port: number;
	host: string;
	/** GraphiQL and detailed logs; off when NODE_ENV=production. */
	development: boolean;
	logLevel: "debug" | "info" | "warn" | "error";
	limits: ServerLimits;
	input: InputLimits;
	/** Browser origins allowed to call the API (CORS and WebSocket `Origin`); see `originPolicy`. */
	corsOrigins: readonly string[];
	/** Schema introspection (codegen and GraphiQL need it). */
	introspection: boolean;
	/** How callers are authenticated (AUTH_*; see auth/config.ts). */
	auth: AuthConfig;
	/** JSON lines (production default) or one readable line per event. */
	logFormat: "json" | "pretty";
	/** Prometheus text at /metrics. */
	metrics: boolean;
	persisted: PersistedConfig;
}

/**
 * Persisted operations. Without `only`, clients may register operations by
 * hash (automatic persisted queries: Apollo Client, urql) in a bounded
 * in-memory cache. With `only`, the server runs only the operations of
 * `file` (a hash → query manifest), requested by hash or sent in full.
 */
export interface PersistedConfig {
	only: boolean;
	file?: string;
	/** The automatic persisted queries cache: at most this many queries, and this many bytes of query text. */
	cacheEntries: number;
	cacheBytes: number;
}

export const DEFAULT_PERSISTED: Readonly<PersistedConfig> = {
	only: false,
	cacheEntries: 1000,
	cacheBytes: 8 * 1024 * 1024,
};

/**
 * What one request, connection or client may take. Every limit is checked
 * before the work it bounds starts, and a request over it fails alone with
 * a coded error (LIMIT_EXCEEDED, or INVALID_INPUT for input that may never be stored).
 */
export interface ServerLimits {
	/** Bytes of an HTTP request body or a WebSocket message. */
	bodyBytes: number;
	/** Bytes of one encoded result: an operation's response, or one subscription event. */
	responseBytes: number;
	/** Nesting of fields in an operation (a Relay connection read takes 5–8). */
	depth: number;
	aliases: number;
	directives: number;
	/** Lexical tokens of an operation (bounds parse time and nesting too). */
	tokens: number;
	/** Estimated cost of an operation: list fields cost by page size, exports and path walks are dear. */
	cost: number;
	/** List items (entries, sessions, messages) one operation may resolve, however the data is shaped. */
	resultItems: number;
	/** Store calls one request may run at once, so one request cannot hold every database connection. */
	requestConcurrency: number;
	/** Statement timeout for ordinary reads and writes, and for bulk work (import, fork); Postgres only. */
	statementTimeoutMs: number;
	bulkStatementTimeoutMs: number;
	/** Time for a client to send its request headers, and its whole request. */
	headersTimeoutMs: number;
	requestTimeoutMs: number;
	/** An idle keep-alive connection is closed after this. */
	keepAliveTimeoutMs: number;
	connections: number;
	connectionsPerClient: number;
	/** Open subscriptions on one WebSocket, and from one client address over any transport. */
	subscriptionsPerConnection: number;
	subscriptionsPerClient: number;
	/** A live metrics query (metricsUpdated) sends at most one result per this many ms. */
	metricsUpdateMs: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = {
	bodyBytes: 16 * 1024 * 1024,
	responseBytes: 64 * 1024 * 1024,
	depth: 12,
	aliases: 15,
	directives: 20,
	tokens: 2000,
	cost: 20_000,
	resultItems: 20_000,
	requestConcurrency: 2,
	statementTimeoutMs: 15_000,
	bulkStatementTimeoutMs: 120_000,
	headersTimeoutMs: 10_000,
	requestTimeoutMs: 60_000,
	keepAliveTimeoutMs: 5_000,
	connections: 10_000,
	connectionsPerClient: 256,
	subscriptionsPerConnection: 100,
	subscriptionsPerClient: 1000,
	metricsUpdateMs: 1000,
};

/** Environment variable of each limit (docs/security.md's Limits table lists the same). */
export const LIMIT_VARIABLES: Readonly<Record<keyof ServerLimits, string>> = {
	bodyBytes: "MAX_BODY_BYTES",
	responseBytes: "MAX_RESPONSE_BYTES",
	depth: "MAX_QUERY_DEPTH",
	aliases: "MAX_ALIASES",
	directives: "MAX_DIRECTIVES",
	tokens: "MAX_TOKENS",
	cost: "MAX_QUERY_COST",
	resultItems: "MAX_RESULT_ITEMS",
	requestConcurrency: "MAX_REQUEST_DB_CONCURRENCY",
	statementTimeoutMs: "STATEMENT_TIMEOUT_MS",
	bulkStatementTimeoutMs: "BULK_STATEMENT_TIMEOUT_MS",
	headersTimeoutMs: "HEADERS_TIMEOUT_MS",
	requestTimeoutMs: "REQUEST_TIMEOUT_MS",
	keepAliveTimeoutMs: "KEEP_ALIVE_TIMEOUT_MS",
	connections: "MAX_CONNECTIONS",
	connectionsPerClient: "MAX_CONNECTIONS_PER_CLIENT",
	subscriptionsPerConnection: "MAX_SUBSCRIPTIONS_PER_CONNECTION",
	subscriptionsPerClient: "MAX_SUBSCRIPTIONS_PER_CLIENT",
	metricsUpdateMs: "METRICS_UPDATE_INTERVAL_MS",
};

export const INPUT_LIMIT_VARIABLES: Readonly<Record<keyof InputLimits, string>> = {
	jsonDepth: "MAX_JSON_DEPTH",
	entryBytes: "MAX_ENTRY_BYTES",
	textLength: "MAX_TEXT_LENGTH",
	headerBytes: "MAX_HEADER_BYTES",
	forkEntries: "MAX_FORK_ENTRIES",
	importEntries: "MAX_IMPORT_ENTRIES",
};

function positiveIntegers<T extends object>(
	env: NodeJS.ProcessEnv,
	defaults: Readonly<T>,
	variables: Readonly<Record<keyof T, string>>,
): T {
	const result = { ...defaults } as T;
	for (const key of Object.keys(variables) as Array<keyof T>) {
		const name = variables[key];
		const raw = env[name]?.trim();
		if (!raw) continue;
		const value = Number(raw.replace(/_/g, ""));
		if (!Number.isSafeInteger(value) || value < 1) {
			throw new ConfigError(`${name} must be a positive integer; got ${JSON.stringify(env[name])}`);
		}
		result[key] = value as T[keyof T];
	}
	return result;
}

export function limitsConfig(env: NodeJS.ProcessEnv = process.env): ServerLimits {
	return positiveIntegers(env, DEFAULT_LIMITS, LIMIT_VARIABLES);
}

export function inputLimitsConfig(env: NodeJS.ProcessEnv = process.env): InputLimits {
	return positiveIntegers(env, DEFAULT_INPUT_LIMITS, INPUT_LIMIT_VARIABLES);
}

/** `CORS_ORIGINS`: comma-separated origins (`https://app.example.com`), or `*` for any. */
function corsOrigins(env: NodeJS.ProcessEnv): string[] {
	const raw = env.CORS_ORIGINS?.trim();
	if (!raw) return [];
	const origins = raw
		.split(",")
		.map((o) => o.trim())
		.filter(Boolean);
	for (const origin of origins) {
		if (origin !== "*" && !/^https?:\/\/[^/\s]+$/.test(origin)) {
			throw new ConfigError(
				`CORS_ORIGINS must list origins like https://app.example.com (scheme, host, optional port; no path), or *; got ${JSON.stringify(origin)}`,
			);
		}
	}
	return origins;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
	const raw = env[name]?.trim().toLowerCase();
	if (!raw) return fallback;
	if (["1", "true", "on", "yes"].includes(raw)) return true;
	if (["0", "false", "off", "no"].includes(raw)) return false;
	throw new ConfigError(`${name} must be on or off; got ${JSON.stringify(env[name])}`);
}

export class ConfigError extends Error {
	override name = "ConfigError";
}

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;

function logFormat(env: NodeJS.ProcessEnv): Config["logFormat"] {
	const raw = env.LOG_FORMAT?.trim().toLowerCase();
	if (!raw) return env.NODE_ENV === "production" ? "json" : "pretty";
	if (raw === "json" || raw === "pretty") return raw;
	throw new ConfigError(`LOG_FORMAT must be json or pretty; got ${JSON.stringify(env.LOG_FORMAT)}`);
}

export function persistedConfig(env: NodeJS.ProcessEnv = process.env): PersistedConfig {
	const { cacheEntries, cacheBytes } = positiveIntegers<Pick<PersistedConfig, "cacheEntries" | "cacheBytes">>(
		env,
		{ cacheEntries: DEFAULT_PERSISTED.cacheEntries, cacheBytes: DEFAULT_PERSISTED.cacheBytes },
		{ cacheEntries: "APQ_CACHE_SIZE", cacheBytes: "APQ_CACHE_BYTES" },
	);
	const only = flag(env, "PERSISTED_ONLY", false);
	const file = env.PERSISTED_OPERATIONS_FILE?.trim() || undefined;
	if (only && !file) {
		throw new ConfigError(
			"PERSISTED_ONLY=1 needs PERSISTED_OPERATIONS_FILE: a JSON file of the operations allowed (see docs/operations.md, Persisted queries)",
		);
	}
	return { only, cacheEntries, cacheBytes, ...(file ? { file } : {}) };
}

/** A database URL fit for logs: the password replaced. */
export function redactUrl(url: string): string {
	return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

export function storeConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
	const url = env.DATABASE_URL?.trim();
	if (!url) return { backend: "pglite", dataDir: env.PGLITE_DIR?.trim() || "./.data/pglite" };
	if (url === "memory:" || url === "memory") return { backend: "memory" };
	if (/^postgres(ql)?:\/\//.test(url)) return { backend: "postgres", url };
	throw new ConfigError(
		`DATABASE_URL must be a postgres:// URL or "memory:" (unset means embedded PGlite in PGLITE_DIR); got ${JSON.stringify(redactUrl(url))}`,
	);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
	const port = env.PORT === undefined || env.PORT === "" ? 4000 : Number(env.PORT);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		throw new ConfigError(`PORT must be an integer from 0 to 65535; got ${JSON.stringify(env.PORT)}`);
	}
	const logLevel = (env.LOG_LEVEL?.trim() || "info") as Config["logLevel"];
	if (!LOG_LEVELS.includes(logLevel)) {
		throw new ConfigError(
			`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}; got ${JSON.stringify(env.LOG_LEVEL)}`,
		);
	}
	return {
		store: storeConfig(env),
		port,
		host: env.HOST?.trim() || "127.0.0.1",
		development: env.NODE_ENV !== "production",
		logLevel,
		limits: limitsConfig(env),
		input: inputLimitsConfig(env),
		corsOrigins: corsOrigins(env),
		introspection: flag(env, "INTROSPECTION", true),
		auth: authConfig(env, { production: env.NODE_ENV === "production", defaultWorkspace: DEFAULT_WORKSPACE }),
		logFormat: logFormat(env),
		metrics: flag(env, "METRICS", true),
		persisted: persistedConfig(env),
	};
}

/** For logs: the backend and where its data lives, without credentials. */
export function describeStore(config: StoreConfig): string {
	switch (config.backend) {
		case "memory":
			return "memory (nothing persists)";
		case "pglite":
			return `embedded PGlite in ${config.dataDir}`;
		case "postgres":
			return `Postgres at ${redactUrl(config.url)}`;
	}
}
