/**
 * Entry point: read the configuration, open the store (applying
 * migrations), serve GraphQL, and shut down cleanly on SIGTERM/SIGINT.
 */
import { persistedOperations, readManifest } from "./app/persisted.js";
import { AuthConfigError } from "./auth/config.js";
import { createAuthenticator } from "./auth/verify.js";
import { ConfigError, describeStore, loadConfig } from "./config.js";
import { createLogger } from "./logger.js";
import { guardProcess } from "./process-guard.js";
import { ListenError, type RunningServer, serve } from "./server.js";
import { openServices } from "./services.js";

async function main(): Promise<void> {
	const config = loadConfig();
	const logger = createLogger(config.logLevel, undefined, config.logFormat);
	guardProcess(logger);
	const authenticator = createAuthenticator(config.auth);
	const persisted = persistedOperations(
		config.persisted,
		config.persisted.file ? readManifest(config.persisted.file) : undefined,
	);
	if (config.auth.warning) logger.warn(config.auth.warning);
	const started = performance.now();
	logger.info("opening store", { backend: config.store.backend, where: describeStore(config.store) });
	const services = await openServices(config.store, logger, {
		statementTimeouts: {
			ordinaryMs: config.limits.statementTimeoutMs,
			bulkMs: config.limits.bulkStatementTimeoutMs,
		},
		metricsIntervalMs: config.limits.metricsUpdateMs,
		inputLimits: config.input,
	});
	let running: RunningServer;
	try {
		running = await serve({
			services,
			logger,
			port: config.port,
			host: config.host,
			development: config.development,
			limits: config.limits,
			corsOrigins: config.corsOrigins,
			introspection: config.introspection,
			authenticate: (authorization) => authenticator.authenticate(authorization),
			metrics: config.metrics,
			persisted,
		});
	} catch (error) {
		await services.close().catch(() => {});
		throw error;
	}
	logger.info("ready", {
		url: running.url,
		subscriptions: `SSE on ${running.url}, graphql-ws on ${running.wsUrl}`,
		events: services.bus.kind === "postgres" ? "LISTEN/NOTIFY" : "in-process",
		graphiql: config.development ? running.url : "off (NODE_ENV=production)",
		metrics: config.metrics ? running.url.replace(/\/graphql$/, "/metrics") : "off",
		persisted: config.persisted.only
			? `only the ${config.persisted.file} operations`
			: `automatic (up to ${config.persisted.cacheEntries} queries)`,
		pid: process.pid,
		auth:
			config.auth.mode === "none"
				? "none"
				: `jwt (${[config.auth.secret && "HS256 secret", config.auth.jwksUrl && `JWKS ${config.auth.jwksUrl.origin}`].filter(Boolean).join(", ")})`,
		ms: Math.round(performance.now() - started),
	});

	const shutdown = (signal: string) => {
		logger.info("shutting down", { signal });
		running.close().then(
			() => {
				logger.info("stopped");
				process.exit(0);
			},
			(error) => {
				logger.error("shutdown failed", { error });
				process.exit(1);
			},
		);
	};
	process.once("SIGTERM", () => shutdown("SIGTERM"));
	process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error) => {
	if (error instanceof ConfigError || error instanceof AuthConfigError) {
		process.stderr.write(`configuration error: ${error.message}\n`);
		process.exit(2);
	}
	if (error instanceof ListenError) {
		process.stderr.write(`failed to start: ${error.message}\n`);
		process.exit(1);
	}
	process.stderr.write(
		`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	process.exit(1);
});
