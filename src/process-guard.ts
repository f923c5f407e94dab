/**
 * A rejected promise that nothing handles would, by Node's default, end the
 * process and every client with it. A database driver can leave one behind
 * when a connection is cut mid-request (postgres.js on a terminated backend);
 * that request has already failed with its own error. The server logs such a
 * rejection (the error's cause and code, never its payload) and serves on.
 * An uncaught exception is different: the process state is unknown, so it
 * still ends the process, after a log line.
 */
import type { Logger } from "./logger.js";

export function guardProcess(logger: Logger): void {
	process.on("unhandledRejection", (reason) => {
		logger.error("a promise was rejected with nothing to handle it; serving on", {
			error: reason instanceof Error ? reason : String(reason),
		});
	});
}
