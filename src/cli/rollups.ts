/**
 * `npm run rollups -- rebuild [--missing]`
 *
 * Recomputes the metrics rollups of the configured store from the append
 * logs (every session's; with --missing only those of sessions without any,
 * which the server also does when it opens a database from before rollups).
 * Each session is rebuilt in a transaction holding its row lock, so it is
 * safe while servers write. Exit code 0 when done, 1 on failure, 2 on usage
 * errors.
 */
import { ConfigError, describeStore, storeConfig } from "../config.js";
import { openStore } from "../store/open.js";
import type { SessionStore } from "../store/store.js";

const USAGE = `usage: npm run rollups -- rebuild [--missing]

Recomputes the rollups that metrics read from the append logs of the
configured store (DATABASE_URL / PGLITE_DIR, as the server).

  --missing   only sessions that have entries and no rollups
  -h, --help  show this help`;

async function main(argv: readonly string[]): Promise<number> {
	if (argv.includes("-h") || argv.includes("--help")) {
		process.stdout.write(`${USAGE}\n`);
		return 0;
	}
	const [command, ...rest] = argv;
	const unknown = rest.filter((arg) => arg !== "--missing");
	if (command !== "rebuild" || unknown.length > 0) {
		process.stderr.write(
			`rollups: ${command === "rebuild" ? `unknown option ${unknown[0]}` : "say rebuild"}\n\n${USAGE}\n`,
		);
		return 2;
	}
	let store: SessionStore;
	try {
		const config = storeConfig();
		store = await openStore(config);
		process.stderr.write(`rebuilding rollups in ${describeStore(config)}\n`);
	} catch (error) {
		process.stderr.write(`rollups: ${error instanceof Error ? error.message : String(error)}\n`);
		return error instanceof ConfigError ? 2 : 1;
	}
	try {
		if (!store.rebuildRollups) {
			process.stdout.write("this backend computes metrics from the logs: nothing to rebuild\n");
			return 0;
		}
		const started = performance.now();
		const rebuilt = await store.rebuildRollups({
			missingOnly: rest.includes("--missing"),
			onSession: (done, total) => {
				if (done === total || done % 100 === 0) process.stderr.write(`  ${done} of ${total} sessions\n`);
			},
		});
		process.stdout.write(
			`rebuilt the rollups of ${rebuilt} sessions in ${Math.round(performance.now() - started)} ms\n`,
		);
		return 0;
	} finally {
		await store.close();
	}
}

main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(
			`rollups: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exitCode = 1;
	},
);
