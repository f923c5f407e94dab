import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DirectoryInUseError, lockDirectory } from "../../src/store/postgres/dir-lock.js";
import { openPglite } from "../../src/store/postgres/open.js";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import { copyPgliteTemplate } from "../support/pglite-directories.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const LOCK_MODULE = join(ROOT, "src/store/postgres/dir-lock.ts");
const HOLDER_FILE = "session-tree.holder.json";

/**
 * A process that takes the lock when told ("lock") and answers "held",
 * "refused" or "error: …". It keeps what it holds until it is killed.
 */
const LOCKER = `
const { createInterface } = require("node:readline");
const { pathToFileURL } = require("node:url");
import(pathToFileURL(process.env.LOCK_MODULE).href).then(({ lockDirectory }) => {
	const held = [];
	createInterface({ input: process.stdin }).on("line", async () => {
		try {
			held.push(await lockDirectory(process.env.LOCK_DIR, process.env.LOCK_PLATFORM || undefined));
			process.stdout.write("held\\n");
		} catch (error) {
			process.stdout.write(error.name === "DirectoryInUseError" ? "refused\\n" : "error: " + error.message + "\\n");
		}
	});
	process.stdout.write("ready\\n");
});
`;

class Locker {
	readonly child: ChildProcess;
	private readonly lines: string[] = [];
	private readonly waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
	private exited = false;

	constructor(dir: string, platform = "") {
		this.child = spawn(process.execPath, ["--import", "tsx", "-e", LOCKER], {
			cwd: ROOT,
			env: { ...process.env, LOCK_MODULE, LOCK_DIR: dir, LOCK_PLATFORM: platform },
			stdio: ["pipe", "pipe", "inherit"],
		});
		createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
			const waiter = this.waiting.shift();
			if (waiter) waiter.resolve(line);
			else this.lines.push(line);
		});
		this.child.once("exit", (code, signal) => {
			this.exited = true;
			for (const waiter of this.waiting.splice(0))
				waiter.reject(new Error(`locker exited (code ${code}, signal ${signal})`));
		});
	}

	static async start(dir: string, platform = ""): Promise<Locker> {
		const locker = new Locker(dir, platform);
		expect(await locker.next()).toBe("ready");
		return locker;
	}

	next(): Promise<string> {
		const line = this.lines.shift();
		if (line !== undefined) return Promise.resolve(line);
		if (this.exited) return Promise.reject(new Error("locker exited"));
		return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
	}

	send(): void {
		this.child.stdin?.write("lock\n");
	}

	/** SIGKILL, as by a crash; resolves once the process is gone (its descriptors closed by the kernel). */
	async kill(): Promise<void> {
		if (this.exited) return;
		const gone = new Promise((resolve) => this.child.once("exit", resolve));
		this.child.kill("SIGKILL");
		await gone;
	}
}

describe("a PGlite data directory has one owner", () => {
	let dir: string;
	const lockers: Locker[] = [];
	const releases: Array<() => void> = [];
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "session-tree-lock-"));
	});
	afterEach(async () => {
		for (const release of releases.splice(0)) release();
		await Promise.all(lockers.splice(0).map((locker) => locker.kill()));
		rmSync(dir, { recursive: true, force: true });
	});
	const startLocker = async (platform = "") => {
		const locker = await Locker.start(dir, platform);
		lockers.push(locker);
		return locker;
	};

	it("refuses a second opener while the first is open, and lets it in after close", async () => {
		copyPgliteTemplate(dir);
		const first = await openPglite(dir);
		await first.createSession(DEFAULT_WORKSPACE, { sessionId: "kept" });
		await expect(openPglite(dir)).rejects.toThrow(/is in use by another store in this process/);
		await first.close();
		const second = await openPglite(dir);
		expect(await second.getSession(DEFAULT_WORKSPACE, "kept")).not.toBeNull();
		await second.close();
	});

	it("admits exactly one of several processes starting at once, also after a holder was killed", async () => {
		const PROCESSES = 6;
		const ROUNDS = 8;
		const racers = await Promise.all(Array.from({ length: PROCESSES }, () => startLocker()));
		const holdersPerRound: number[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			for (const racer of racers) racer.send();
			const answers = await Promise.all(racers.map((racer) => racer.next()));
			expect(answers.filter((answer) => answer !== "held" && answer !== "refused")).toEqual([]);
			holdersPerRound.push(answers.filter((answer) => answer === "held").length);
			// Holders die as in a crash (whatever they left in the directory stays) and are replaced.
			for (let i = 0; i < racers.length; i++) {
				if (answers[i] !== "held") continue;
				await racers[i]?.kill();
				racers[i] = await startLocker();
			}
		}
		expect(holdersPerRound).toEqual(Array(ROUNDS).fill(1));
	});

	it("refuses a directory another process holds, naming the process, and frees it the moment that process is killed", async () => {
		const holder = await startLocker();
		holder.send();
		expect(await holder.next()).toBe("held");
		const refusal = lockDirectory(dir);
		await expect(refusal).rejects.toBeInstanceOf(DirectoryInUseError);
		await expect(refusal).rejects.toThrow(`is in use by process ${holder.child.pid} (since `);
		await holder.kill();
		releases.push(await lockDirectory(dir));
	});

	it("is not fooled by a leftover holder file or old lock file naming a live, unrelated process", async () => {
		// A recycled pid: the files name processes that are alive but never opened the directory.
		const since = new Date(0).toISOString();
		writeFileSync(join(dir, HOLDER_FILE), JSON.stringify({ pid: 1, hostname: hostname(), since }));
		writeFileSync(join(dir, "session-tree.lock"), String(process.ppid));
		releases.push(await lockDirectory(dir));
	});

	it("locks the directory, not the path: a second path to it is refused", async () => {
		const link = `${dir}-link`;
		symlinkSync(dir, link);
		try {
			releases.push(await lockDirectory(dir));
			await expect(lockDirectory(link)).rejects.toThrow(/is in use by another store in this process/);
			const holder = await startLocker();
			holder.send();
			expect(await holder.next()).toBe("refused");
		} finally {
			rmSync(link, { force: true });
		}
	});

	it("does not keep a process alive that has nothing else to do", async () => {
		const script = `import(${JSON.stringify(LOCK_MODULE)}).then((m) => m.lockDirectory(${JSON.stringify(dir)}))`;
		const child = spawn(
			process.execPath,
			["--import", "tsx", "-e", `${script}.then(() => console.log("held"))`],
			{
				cwd: ROOT,
				stdio: ["ignore", "pipe", "inherit"],
			},
		);
		let out = "";
		child.stdout.on("data", (chunk) => {
			out += chunk;
		});
		const code = await new Promise((resolve) => child.once("exit", resolve));
		expect({ code, out }).toEqual({ code: 0, out: "held\n" });
	});

	describe("the socket-file lock of platforms without abstract sockets (macOS, the BSDs)", () => {
		it("refuses while another process holds it and takes over the file a killed holder left", async () => {
			const holder = await startLocker("darwin");
			holder.send();
			expect(await holder.next()).toBe("held");
			await expect(lockDirectory(dir, "darwin")).rejects.toThrow(`is in use by process ${holder.child.pid}`);
			const second = await startLocker("darwin");
			second.send();
			expect(await second.next()).toBe("refused");
			await holder.kill();
			second.send();
			expect(await second.next()).toBe("held");
			await second.kill();
			const release = await lockDirectory(dir, "darwin");
			release();
		});
	});
});
