/**
 * PGlite is a single-process database: two processes opening one data
 * directory silently lose each other's writes. A store holds a lock on its
 * directory while it is open, and a second opener is refused.
 *
 * The lock is a listening socket named after the directory's identity (device
 * and inode, so every path to one directory names the same lock). Binding a
 * name is one atomic step in the kernel: of any number of racing processes
 * exactly one succeeds and the others get EADDRINUSE. The kernel closes the
 * socket when its process ends, however it ends (SIGKILL included), so a lock
 * never outlives its holder and nothing is judged from a pid (pids are
 * recycled: a stale pid can name a live, unrelated process).
 *
 * - Linux: an abstract Unix socket, which has no file and exists exactly as
 *   long as the socket. Abstract names are per network namespace: processes in
 *   different network namespaces (two containers sharing a volume) do not see
 *   each other's lock.
 * - Windows: a named pipe, likewise gone with its process.
 * - Elsewhere (macOS, the BSDs): a Unix socket file in os.tmpdir(). The file
 *   outlives a holder that crashed; one that nobody accepts on is taken over,
 *   and two openers taking over the same left-behind file at the same instant
 *   can both get in. macOS gives each user a tmpdir of its own, so openers
 *   running as different users do not see each other's lock.
 *
 * None of these see processes on other hosts (a directory on a network file
 * system): the holder file records the host to make the refusal clear, but it
 * is only read to name the holder, never to decide.
 */

import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Names the holder in refusals; written by the holder, read by no decision. */
const HOLDER_FILE = "session-tree.holder.json";
const PREFIX = "session-tree-pglite";

/** Directories (by identity) this process holds: a second store in the same process is refused too. */
const held = new Set<string>();

export class DirectoryInUseError extends Error {
	override name = "DirectoryInUseError";
}

interface Holder {
	pid: number;
	hostname: string;
	since: string;
}

function refuse(dir: string, holder: string): never {
	throw new DirectoryInUseError(
		`the PGlite data directory ${dir} is in use by ${holder}: stop it first, or send the work through its API ` +
			"(e.g. the importSession mutation), or use Postgres (DATABASE_URL) to share data between processes",
	);
}

function describeHolder(dir: string): string {
	try {
		const holder = JSON.parse(readFileSync(join(dir, HOLDER_FILE), "utf8")) as Partial<Holder>;
		if (typeof holder.pid !== "number") return "another process";
		const host = holder.hostname && holder.hostname !== hostname() ? ` on host ${holder.hostname}` : "";
		const since = holder.since ? ` (since ${holder.since})` : "";
		return `process ${holder.pid}${host}${since}`;
	} catch {
		// Not written yet (the holder is between binding and writing it), or unreadable.
		return "another process";
	}
}

/** The socket name for a directory identity on this platform. */
function lockAddress(identity: string, platform: NodeJS.Platform = process.platform): string {
	const name = `${PREFIX}-${identity}`;
	if (platform === "linux") return `\0${name}`;
	if (platform === "win32") return `\\\\.\\pipe\\${name}`;
	return join(tmpdir(), `${name}.sock`);
}

/** Resolves to the listening server, or to null when the name is taken. */
function bind(address: string): Promise<Server | null> {
	return new Promise((resolvePromise, reject) => {
		// Anyone may connect (a probing opener does); nothing is served.
		const server = createServer((socket) => socket.destroy());
		server.once("error", (error: NodeJS.ErrnoException) => {
			if (error.code === "EADDRINUSE") resolvePromise(null);
			else reject(error);
		});
		server.listen({ path: address }, () => {
			server.removeAllListeners("error");
			server.on("error", () => {});
			// The lock must not keep a process alive that has nothing else to do.
			server.unref();
			resolvePromise(server);
		});
	});
}

/** Whether something accepts connections on a socket file (a file nobody listens on was left by a crash). */
function listening(address: string): Promise<boolean> {
	return new Promise((resolvePromise) => {
		const socket = connect({ path: address });
		socket.once("connect", () => {
			socket.destroy();
			resolvePromise(true);
		});
		socket.once("error", (error: NodeJS.ErrnoException) =>
			resolvePromise(error.code !== "ECONNREFUSED" && error.code !== "ENOENT"),
		);
	});
}

async function take(address: string, socketFile: boolean): Promise<Server | null> {
	const server = await bind(address);
	if (server || !socketFile || (await listening(address))) return server;
	rmSync(address, { force: true });
	return bind(address);
}

/**
 * Take the directory's lock (the directory must exist); returns the release
 * function. Refuses with DirectoryInUseError while another store, in this
 * process or another, holds it.
 */
export async function lockDirectory(
	dataDir: string,
	platform: NodeJS.Platform = process.platform,
): Promise<() => void> {
	const dir = resolve(dataDir);
	const { dev, ino } = statSync(dir, { bigint: true });
	const identity = `${dev}-${ino}`;
	if (held.has(identity)) refuse(dir, "another store in this process");
	const address = lockAddress(identity, platform);
	held.add(identity);
	let server: Server | null;
	try {
		server = await take(address, platform !== "linux" && platform !== "win32");
	} catch (error) {
		held.delete(identity);
		throw error;
	}
	if (!server) {
		held.delete(identity);
		refuse(dir, describeHolder(dir));
	}
	const holderFile = join(dir, HOLDER_FILE);
	const holder: Holder = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
	try {
		// Whole or absent for a reader; only the lock holder writes it.
		const partial = `${holderFile}.${process.pid}`;
		writeFileSync(partial, `${JSON.stringify(holder)}\n`);
		renameSync(partial, holderFile);
	} catch {
		// Only refusal messages read it; a directory PGlite cannot write to fails on open anyway.
	}
	let released = false;
	return () => {
		if (released) return;
		released = true;
		// Removed while still held, so it never deletes the file of the next holder.
		rmSync(holderFile, { force: true });
		// Closes the socket at once (the name is free for the next opener when this returns).
		server.close();
		held.delete(identity);
	};
}
