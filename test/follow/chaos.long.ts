/**
 * `npm run test:follow`: the follower as a real process (`npm run follow`)
 * beside pi's SessionManager writing, against a real server with
 * authentication on, on PGlite and Postgres: killed with -9 in the middle of
 * a burst and started again, and following on while the service is down for
 * 10 s. After each, every session's export equals pi's file line for line,
 * and a dashboard's activity subscription (which resumes across the
 * restart) saw each entry once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/databases.js";
import { within } from "../support/expect.js";
import {
	type ActivityWatch,
	expectHeldAsPiWrote,
	followServer,
	followToken,
	sessionIdOf,
	watchActivity,
} from "../support/follow-fixtures.js";
import { freshPgliteDirectory } from "../support/pglite-directories.js";
import { SessionManager } from "../support/pi-oracle.js";
import { piAssistant, piUsage, piUser } from "../support/pi-sessions.js";
import type { BackendName, TestServer } from "../support/server.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const OUTAGE_MS = 10_000;

/** A follower process; `output()` is what it wrote to stderr so far, `exited` its exit code. */
function startFollower(args: string[]) {
	const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/cli/follow.ts", ...args], {
		cwd: ROOT,
		env: { ...process.env, SESSION_TREE_TOKEN: "" },
		stdio: ["ignore", "ignore", "pipe"],
	});
	let stderr = "";
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const exited = new Promise<number | null>((resolvePromise) =>
		child.on("close", (code) => resolvePromise(code)),
	);
	const ready = within(
		30_000,
		"the follower's initial scan",
		(async () => {
			while (!/found \d+ session files/.test(stderr)) {
				if (child.exitCode !== null) throw new Error(`the follower exited: ${stderr}`);
				await new Promise((r) => setTimeout(r, 20));
			}
		})(),
	);
	return { child, ready, exited, output: () => stderr };
}

describe.each<BackendName>(["pglite", "postgres"])("the follower as a process on %s", (backend) => {
	let server: TestServer;
	let token: string;
	let watch: ActivityWatch;
	let root: string;
	let data: { databaseUrl?: string; pgliteDir?: string; drop(): Promise<void> };

	beforeAll(async () => {
		if (backend === "postgres") {
			const database = await createTestDatabase();
			data = { databaseUrl: database.url, drop: () => database.drop() };
		} else {
			const dir = freshPgliteDirectory("follow-chaos-");
			data = { pgliteDir: dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
		}
		server = await followServer(backend, data);
		token = await followToken(`chaos-${backend}`);
		watch = await watchActivity(server, token);
		root = mkdtempSync(join(tmpdir(), "follow-chaos-"));
	});
	afterAll(async () => {
		await watch?.close();
		await server?.close();
		await data?.drop();
		if (root && existsSync(root)) rmSync(root, { recursive: true, force: true });
	});

	/**
	 * Waits (bounded) until the service holds `file` as pi wrote it and the
	 * watch saw each of its entries once: the follower runs in its own
	 * process, so its progress is read from the service.
	 */
	function caughtUp(file: string) {
		return within(
			30_000,
			`the service to hold ${file}`,
			(async () => {
				for (;;) {
					try {
						return await expectHeldAsPiWrote(server, token, file, watch);
					} catch {
						await new Promise((r) => setTimeout(r, 100));
					}
				}
			})(),
		);
	}

	/** Three pi sessions in `dir`, each with a first exchange. */
	function piSessions(dir: string) {
		return ["/work/a", "/work/b", "/work/c"].map((cwd) => {
			const pi = SessionManager.create(cwd, join(dir, cwd.replaceAll("/", "-")));
			const first = pi.appendMessage(piUser(`first in ${cwd}`));
			pi.appendMessage(piAssistant("answer", piUsage(1, 1, 10, 0, 0.125)));
			return { pi, first, file: pi.getSessionFile() as string };
		});
	}

	/** pi writes `lines` lines over the sessions, a move back now and then, yielding between lines. */
	async function burst(sessions: ReturnType<typeof piSessions>, lines: number, from: number) {
		for (let i = from; i < from + lines; i++) {
			const { pi, first } = sessions[i % sessions.length] as (typeof sessions)[number];
			if (i % 17 === 0) pi.branch(first);
			if (i % 2) pi.appendMessage(piAssistant(`a${i}`, piUsage(i, 1, 0, 0, 0.125)));
			else pi.appendMessage(piUser(`u${i}`));
			await new Promise((r) => setTimeout(r, 2));
		}
	}

	it("killed with -9 mid-burst and started again, stores every line once and resends only what it sent since its last flush", async () => {
		const dir = join(root, "kill", "sessions");
		const state = join(root, "kill", "state.json");
		const sessions = piSessions(dir);
		const args = ["--url", server.url, "--token", token, "--state", state, dir];
		const first = startFollower(args);
		await first.ready;
		const writing = burst(sessions, 300, 0);
		// Mid-burst: once the service has stored some of it.
		await watch.until(sessionIdOf(sessions[0]?.file as string), 30, 30_000);
		first.child.kill("SIGKILL");
		expect(await first.exited).toBeNull();
		await writing;
		await burst(sessions, 30, 300);
		const again = startFollower([...args, "--once"]);
		expect(await within(60_000, "the restarted follower to catch up", again.exited)).toBe(0);
		for (const { file } of sessions) await expectHeldAsPiWrote(server, token, file, watch);
		// It went on from its positions: no file sent whole again.
		expect(again.output()).not.toContain("resending");
		const held = [...again.output().matchAll(/(\d+) already held/g)].reduce((n, m) => n + Number(m[1]), 0);
		process.stdout.write(
			`follow: after kill -9, the restarted follower resent ${held} lines the service held\n`,
		);
		// At most what it sent in its last flush interval (250 ms, about a hundred lines of this burst), never
		// the 330 lines of the files: the positions bound the work of a restart.
		expect(held).toBeLessThan(150);
	});

	it(`follows on while the service is down for ${OUTAGE_MS / 1000} s: what pi wrote meanwhile arrives once, after`, async () => {
		const dir = join(root, "outage", "sessions");
		const sessions = piSessions(dir);
		const follower = startFollower([
			"--url",
			server.url,
			"--token",
			token,
			"--state",
			join(root, "outage", "state.json"),
			dir,
		]);
		await follower.ready;
		await burst(sessions, 30, 0);
		for (const { file } of sessions) await caughtUp(file);
		const port = Number(new URL(server.url).port);
		await server.close();
		await burst(sessions, 60, 30);
		sessions[0]?.pi.branchWithSummary(sessions[0].first, "back while the service was down");
		// The outage itself: the service stays down this long.
		await new Promise((r) => setTimeout(r, OUTAGE_MS));
		expect(follower.output()).toContain("retrying");
		server = await followServer(backend, { ...data, port });
		for (const { file } of sessions) await caughtUp(file);
		follower.child.kill("SIGTERM");
		expect(await follower.exited).toBe(0);
	});
});
