/**
 * The service in a process of its own, for the connection-loss tests: a
 * driver failure that escapes every promise kills a process, and in a test
 * worker it would kill the worker instead of failing a test. Serves the
 * Postgres database named by DATABASE_URL on a free port of 127.0.0.1,
 * prints one JSON line `{"url", "wsUrl"}` on stdout once it serves, logs
 * warnings and errors on stderr, and stops on SIGTERM.
 */
import { createLogger } from "../../src/logger.js";
import { guardProcess } from "../../src/process-guard.js";
import { serve } from "../../src/server.js";
import { openServices } from "../../src/services.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");

const logger = createLogger("warn");
// As src/main.ts does.
guardProcess(logger);
const services = await openServices({ backend: "postgres", url }, logger);
const running = await serve({ services, logger, port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ url: running.url, wsUrl: running.wsUrl })}\n`);

process.once("SIGTERM", () => {
	running.close(1_000).then(
		() => process.exit(0),
		() => process.exit(1),
	);
});
