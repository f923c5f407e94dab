/**
 * A real listening server on a real port for API tests, on any backend. A
 * test owns what it starts: the server, and the database or directory it
 * created (several servers may share one Postgres database).
 */
import { rmSync } from "node:fs";
import type { Authenticate } from "../../src/app/authentication.js";
import { DEFAULT_LIMITS, type ServerLimits } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { type RunningServer, serve } from "../../src/server.js";
import { openServices, type ServiceOptions, type Services } from "../../src/services.js";
import type { StoreConfig } from "../../src/store/open.js";
import { createTestDatabase } from "./databases.js";
import { freshPgliteDirectory } from "./pglite-directories.js";

export type BackendName = "memory" | "pglite" | "postgres";

export interface GraphQLResponse<T = Record<string, unknown>> {
	data?: T | null;
	errors?: Array<{
		message: string;
		path?: Array<string | number>;
		extensions?: { code?: string; field?: string };
	}>;
}

export interface TestServer {
	url: string;
	wsUrl: string;
	services: Services;
	running: RunningServer;
	/** The Postgres URL, when the backend is postgres (to start a second instance on it). */
	databaseUrl?: string;
	/** POST one operation; resolves with the parsed body whatever the HTTP status. */
	request<T = Record<string, unknown>>(
		query: string,
		variables?: Record<string, unknown>,
	): Promise<GraphQLResponse<T>>;
	close(): Promise<void>;
}

export interface StartOptions extends ServiceOptions {
	/** Use this Postgres database instead of creating one (it is not dropped on close). */
	databaseUrl?: string;
	keepAliveMs?: number;
	/** Limits to change from the defaults. */
	limits?: Partial<ServerLimits>;
	/** Default true (GraphiQL, local origins, suggestions); false behaves as NODE_ENV=production. */
	development?: boolean;
	corsOrigins?: string[];
	introspection?: boolean;
	/** Who is calling (default: anonymous in the default workspace). */
	authenticate?: Authenticate;
	/** Headers sent with every `request` (e.g. an authorization). */
	headers?: Record<string, string>;
	/** Listen on this port (default: any free one), e.g. a restarted server on its predecessor's port. */
	port?: number;
	/** Use this PGlite directory instead of a fresh one (it is not removed on close): a restart keeps its data. */
	pgliteDir?: string;
}

export async function startTestServer(backend: BackendName, options: StartOptions = {}): Promise<TestServer> {
	const cleanups: Array<() => Promise<void> | void> = [];
	let config: StoreConfig;
	let databaseUrl: string | undefined;
	if (backend === "postgres") {
		if (options.databaseUrl) databaseUrl = options.databaseUrl;
		else {
			const database = await createTestDatabase();
			databaseUrl = database.url;
			cleanups.push(() => database.drop());
		}
		config = { backend: "postgres", url: databaseUrl };
	} else if (backend === "pglite") {
		const dir = options.pgliteDir ?? freshPgliteDirectory("session-tree-api-");
		if (!options.pgliteDir) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
		config = { backend: "pglite", dataDir: dir };
	} else {
		config = { backend: "memory" };
	}
	const services = await openServices(config, silentLogger, options);
	const running = await serve({
		services,
		logger: silentLogger,
		port: options.port ?? 0,
		host: "127.0.0.1",
		development: options.development ?? true,
		limits: { ...DEFAULT_LIMITS, ...options.limits },
		...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
		...(options.introspection === undefined ? {} : { introspection: options.introspection }),
		...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
		...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
	});
	return {
		url: running.url,
		wsUrl: running.wsUrl,
		services,
		running,
		...(databaseUrl === undefined ? {} : { databaseUrl }),
		async request(query, variables) {
			const response = await fetch(running.url, {
				method: "POST",
				headers: {
					"content-type": "application/json",
					accept: "application/graphql-response+json, application/json",
					...options.headers,
				},
				body: JSON.stringify({ query, variables }),
			});
			return (await response.json()) as never;
		},
		async close() {
			await running.close(2_000);
			for (const cleanup of cleanups.reverse()) await cleanup();
		},
	};
}
