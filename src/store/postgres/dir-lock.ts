/**
 * PGlite is a single-process database: two processes opening one data
 * directory silently lose each other's writes. The first opener holds a lock
 * file naming its pid; a second opener is refused while that process lives
 * (a lock left by a process that died is taken over).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const LOCK_FILE = "session-tree.lock";
/** Directories this process holds (a second store in the same process is refused too). */
const held = new Set<string>();

export class DirectoryInUseError extends Error {
	override name = "DirectoryInUseError";
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

function refuse(dir: string, holder: string): never {
	throw new DirectoryInUseError(
		`the PGlite data directory ${dir} is in use by ${holder}: stop it first, or send the work through its API ` +
			"(e.g. the importSession mutation), or use Postgres (DATABASE_URL) to share data between processes",
	);
}

/** Take the directory's lock; returns the release function. */
export function lockDirectory(dataDir: string): () => void {
	const dir = resolve(dataDir);
	const file = join(dir, LOCK_FILE);
	if (held.has(dir)) refuse(dir, "another store in this process");
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			writeFileSync(file, String(process.pid), { flag: "wx" });
			held.add(dir);
			return () => {
				held.delete(dir);
				rmSync(file, { force: true });
			};
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			const pid = Number(readFileSync(file, "utf8").trim());
			if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
				refuse(dir, `process ${pid}`);
			// Left behind by a process that is gone (or by this one before a crash): take it over.
			rmSync(file, { force: true });
		}
	}
	refuse(dir, "another process (the lock file keeps reappearing)");
}
