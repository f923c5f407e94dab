/**
 * Environment → typed configuration, with errors that say which variable is
 * wrong and what it should look like.
 */
export type StoreConfig =
	| { backend: "memory" }
	| { backend: "pglite"; dataDir: string }
	| { backend: "postgres"; url: string };

export interface Config {
	store: StoreConfig;
	port: number;
	host: string;
	/** GraphiQL and detailed logs; off when NODE_ENV=production. */
	development: boolean;
	logLevel: "debug" | "info" | "warn" | "error";
}

export class ConfigError extends Error {
	override name = "ConfigError";
}

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;

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
