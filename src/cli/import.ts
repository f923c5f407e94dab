/**
 * `npm run import -- [--workspace <id>] <file or directory> [more paths...]`
 *
 * Imports pi session files (`*.jsonl`; a directory is searched recursively,
 * so `~/.pi/agent/sessions` works as a whole) into the store configured by
 * DATABASE_URL / PGLITE_DIR, like the server. Files whose session is stored
 * unchanged are skipped, so re-running is safe; a file whose session id is
 * stored with other content is reported as conflicting and not imported. Exit
 * code 0 when nothing failed or conflicted, 1 otherwise, 2 on usage errors,
 * 130 when stopped by Ctrl-C (after the file being imported, with the summary
 * printed).
 */
import { ConfigError, describeStore, inputLimitsConfig, storeConfig } from "../config.js";
import { openStore } from "../store/open.js";
import { DEFAULT_WORKSPACE, type SessionStore } from "../store/store.js";
import { consoleReporter, importSessions } from "./import-sessions.js";
import { readArgs, UsageError } from "./usage.js";

const USAGE = `usage: npm run import -- [--workspace <id>] <file or directory> [more paths...]

Imports pi session files (*.jsonl) into the configured store. A directory is
searched recursively (e.g. ~/.pi/agent/sessions). Sessions already imported
unchanged are skipped; a session stored under a file's id with other content
(written to since, or another file) is reported as conflicting, not imported.

  -w, --workspace <id>  the workspace to import into (default "${DEFAULT_WORKSPACE}")
  -h, --help            show this help

The store is chosen like the server's: DATABASE_URL=postgres://… for Postgres,
DATABASE_URL=memory: for memory, unset for embedded PGlite in PGLITE_DIR
(default ./.data/pglite).`;

interface Args {
	workspace: string;
	paths: string[];
	help: boolean;
}

function parseArgs(argv: readonly string[]): Args {
	const args: Args = { workspace: DEFAULT_WORKSPACE, paths: [], help: false };
	let options = true;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		if (options && arg === "--") {
			options = false;
		} else if (options && (arg === "-h" || arg === "--help")) {
			args.help = true;
		} else if (options && (arg === "-w" || arg === "--workspace" || arg.startsWith("--workspace="))) {
			const value = arg.startsWith("--workspace=") ? arg.slice("--workspace=".length) : argv[++i];
			if (value === undefined || value.trim() === "") throw new UsageError(`${arg} needs a workspace id`);
			args.workspace = value.trim();
		} else if (options && arg.startsWith("-") && arg !== "-") {
			throw new UsageError(`unknown option ${arg}`);
		} else {
			args.paths.push(arg);
		}
	}
	if (!args.help && args.paths.length === 0) throw new UsageError("no file or directory given");
	return args;
}

async function main(argv: readonly string[]): Promise<number> {
	const args = await readArgs("import", USAGE, argv, parseArgs);
	if (typeof args === "number") return args;

	let store: SessionStore;
	try {
		const config = storeConfig();
		// On Postgres, running servers' subscribers (sessionActivity) hear about the imported sessions
		// (openStore announces every commit by NOTIFY there).
		store = await openStore(config, { limits: inputLimitsConfig() });
		process.stderr.write(`importing into ${describeStore(config)}\n`);
	} catch (error) {
		process.stderr.write(`import: ${error instanceof Error ? error.message : String(error)}\n`);
		return error instanceof ConfigError ? 2 : 1;
	}

	const stop = new AbortController();
	const onSignal = () => {
		if (stop.signal.aborted) process.exit(130); // the second Ctrl-C: now
		stop.abort();
		const clear = process.stderr.isTTY ? "\r\x1b[2K" : "";
		process.stderr.write(`${clear}stopping after the current file (Ctrl-C again to quit at once)\n`);
	};
	process.on("SIGINT", onSignal);
	process.on("SIGTERM", onSignal);
	try {
		const reporter = consoleReporter(process.stdout, process.stderr);
		const summary = await importSessions(store, args.workspace, args.paths, reporter, {
			signal: stop.signal,
		});
		if (summary.interrupted) return 130;
		// A conflicting file is not in the store as it is on disk: as much a failure to import as a bad one.
		return summary.failed + summary.conflicting > 0 ? 1 : 0;
	} finally {
		await store.close();
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
	}
}

main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(
			`import: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exitCode = 1;
	},
);
