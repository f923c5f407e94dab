/**
 * The server as an operator starts it: `npm start`. SIGTERM to the npm
 * process (what `kill <pid>` or a process manager sends) stops the server
 * within 5 s and frees its port: npm runs `node --import tsx src/main.ts`
 * and passes the signal on, with no wrapper in between that would swallow
 * it and orphan the server. A port already taken ends the start with one
 * clear line and a non-zero exit code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { within } from "../support/expect.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

interface Started {
	child: ChildProcess;
	lines: string[];
	exited: Promise<number | null>;
}

function launch(command: string, args: string[], env: Record<string, string>): Started {
	const child = spawn(command, args, {
		cwd: repo,
		env: { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "info", LOG_FORMAT: "pretty", ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	const lines: string[] = [];
	let buffered = "";
	const read = (chunk: Buffer) => {
		buffered += chunk.toString();
		const parts = buffered.split("\n");
		buffered = parts.pop() ?? "";
		lines.push(...parts);
	};
	child.stdout?.on("data", read);
	child.stderr?.on("data", read);
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	return { child, lines, exited };
}

/** The `ready` line's url and pid, once logged. */
async function ready(started: Started): Promise<{ port: number; pid: number }> {
	return within(
		30_000,
		"the server to log ready",
		new Promise((resolve, reject) => {
			const check = () => {
				for (const line of started.lines) {
					const url = / ready url=(\S+)/.exec(line)?.[1];
					const pid = / pid=(\d+)/.exec(line)?.[1];
					if (url && pid) return resolve({ port: Number(new URL(url).port), pid: Number(pid) });
				}
			};
			started.child.stdout?.on("data", check);
			started.child.stderr?.on("data", check);
			void started.exited.then((code) => reject(new Error(`exited ${code}:\n${started.lines.join("\n")}`)));
		}),
	);
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

async function portFree(port: number): Promise<boolean> {
	const probe = createServer();
	try {
		probe.listen(port, "127.0.0.1");
		await once(probe, "listening");
		return true;
	} catch {
		return false;
	} finally {
		probe.close();
	}
}

const cleanups: Array<() => void> = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("the server process", () => {
	it("SIGTERM to `npm start` stops the server within 5 s and frees its port", async () => {
		const started = launch("npm", ["start", "--silent"], { DATABASE_URL: "memory:", PORT: "0" });
		cleanups.push(() => started.child.kill("SIGKILL"));
		const { port, pid } = await ready(started);
		// Only while it may still run: once seen gone, its pid may be another process's (a test worker's).
		let gone = false;
		cleanups.push(() => !gone && alive(pid) && process.kill(pid, "SIGKILL"));
		expect(pid).not.toBe(started.child.pid);
		expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);

		const signalled = performance.now();
		started.child.kill("SIGTERM");
		await within(5_000, "npm to exit", started.exited);
		// The server (npm's child) is gone too, not orphaned: polled, within what is left of the 5 s.
		await within(
			Math.max(100, 5_000 - (performance.now() - signalled)),
			"the server process to exit",
			(async () => {
				while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 25));
				gone = true;
			})(),
		);
		expect(await portFree(port)).toBe(true);
		expect(started.lines.join("\n")).toMatch(/shutting down signal=SIGTERM/);
		expect(started.lines.join("\n")).toMatch(/ stopped/);
	}, 40_000);

	it("a port already in use: one clear line, nothing else alarming, exit code 1", async () => {
		const taken: Server = createServer();
		taken.listen(0, "127.0.0.1");
		await once(taken, "listening");
		cleanups.push(() => taken.close());
		const port = (taken.address() as { port: number }).port;

		const started = launch(process.execPath, ["--import", "tsx", "src/main.ts"], {
			DATABASE_URL: "memory:",
			PORT: String(port),
		});
		cleanups.push(() => started.child.kill("SIGKILL"));
		const code = await within(30_000, "the process to exit", started.exited);
		expect(code).toBe(1);
		const failures = started.lines.filter((l) => /EADDRINUSE|failed to start/.test(l));
		expect(failures).toEqual([
			`failed to start: port ${port} on 127.0.0.1 is already in use (EADDRINUSE); set PORT to a free one`,
		]);
		expect(started.lines.filter((l) => /Internal error| ERROR |^\s+at /.test(l))).toEqual([]);
	}, 40_000);
});
