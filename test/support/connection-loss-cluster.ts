/**
 * A private PostgreSQL cluster from the machine's own binaries, for tests
 * that restart the server under a client (`pg_ctl restart -m immediate`),
 * which the shared test server must never suffer: initdb into a temporary
 * directory, trust authentication, a free port of 127.0.0.1, fsync off. As
 * root it runs as the `postgres` user (PostgreSQL refuses to run as root).
 */
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../scripts/dev-postgres.js";

const run = promisify(execFile);
const STEP_TIMEOUT_MS = 60_000;

export interface PrivateCluster {
	/** Superuser URL of the `postgres` database. */
	url: string;
	/** `pg_ctl restart -m <mode>`; resolves once the server accepts connections again. */
	restart(mode: "immediate" | "fast"): Promise<void>;
	stop(): Promise<void>;
}

const quiet = (command: string, args: string[]) => {
	try {
		return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
	} catch {
		return undefined;
	}
};

/** The directory of initdb and pg_ctl: PG_BINDIR, `pg_config --bindir`, or Debian's newest; none if absent. */
export function postgresBinaries(): string | undefined {
	const candidates = [process.env.PG_BINDIR, quiet("pg_config", ["--bindir"])];
	const debian = "/usr/lib/postgresql";
	if (existsSync(debian)) {
		const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
		candidates.push(...versions.map((v) => join(debian, v, "bin")));
	}
	return candidates.find((dir) => dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
}

/** Who runs the cluster: ourselves, or as root the `postgres` user (none if root and it is missing). */
export function clusterUser(): { name: string; uid: number; gid: number } | "self" | undefined {
	if (process.getuid?.() !== 0) return "self";
	const uid = quiet("id", ["-u", "postgres"]);
	const gid = quiet("id", ["-g", "postgres"]);
	return uid && gid ? { name: "postgres", uid: Number(uid), gid: Number(gid) } : undefined;
}

export async function startPrivateCluster(bin: string): Promise<PrivateCluster> {
	const user = clusterUser();
	if (!user) throw new Error("running as root without a `postgres` user to run PostgreSQL as");
	const dir = mkdtempSync(join(tmpdir(), "session-tree-cluster-"));
	if (user !== "self") chownSync(dir, user.uid, user.gid);
	const data = join(dir, "data");
	const port = await freePort();
	const as = (command: string, args: string[]) =>
		user === "self"
			? run(join(bin, command), args, { timeout: STEP_TIMEOUT_MS })
			: run("runuser", ["-u", user.name, "--", join(bin, command), ...args], { timeout: STEP_TIMEOUT_MS });
	const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
	const pgCtl = (...args: string[]) => as("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", ...args]);
	try {
		await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
		await pgCtl("-o", serverOptions, "start");
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return {
		url: `postgres://postgres@127.0.0.1:${port}/postgres`,
		async restart(mode) {
			await pgCtl("-m", mode, "-o", serverOptions, "restart");
		},
		async stop() {
			try {
				await pgCtl("-m", "immediate", "stop");
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
	};
}
