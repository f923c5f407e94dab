/**
 * The follower against a real server (HTTP, authentication on) on PGlite and
 * Postgres, with a sessions directory pi's own SessionManager writes: files
 * there before it starts and files pi creates while it runs, lines pi
 * appends (moves back, summaries, compactions included), a torn line, a
 * rewritten file, two followers at once, a follower started again from its
 * positions. After each, every session's export from the service equals
 * pi's file line for line (as JSON values), and a dashboard's activity
 * subscription saw each entry once. The process-level cases (kill -9, the
 * service down) are `npm run test:follow` (test/follow/chaos.long.ts).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FollowEvent } from "../../src/follow/events.js";
import { Follower } from "../../src/follow/follower.js";
import { Positions } from "../../src/follow/positions.js";
import { remoteSink } from "../../src/follow/remote.js";
import { within } from "../support/expect.js";
import {
	type ActivityWatch,
	expectHeldAsPiWrote,
	followServer,
	followToken,
	sessionIdOf,
	watchActivity,
} from "../support/follow-fixtures.js";
import { SessionManager } from "../support/pi-oracle.js";
import { piAssistant, piUsage, piUser } from "../support/pi-sessions.js";
import type { BackendName, TestServer } from "../support/server.js";

describe.each<BackendName>(["pglite", "postgres"])("the follower on %s", (backend) => {
	let server: TestServer;
	let token: string;
	let watch: ActivityWatch;
	let root: string;
	const followers: Follower[] = [];

	beforeAll(async () => {
		server = await followServer(backend);
		token = await followToken(`follow-${backend}`);
		watch = await watchActivity(server, token);
		root = mkdtempSync(join(tmpdir(), "follow-"));
	});
	afterAll(async () => {
		await Promise.all(followers.map((f) => f.stop()));
		await watch?.close();
		await server?.close();
		rmSync(root, { recursive: true, force: true });
	});

	/** A follower of `dir` with its own positions file; its events, and a wait for one. */
	async function follow(dir: string, positionsFile = join(dir, "..", `${Math.random()}.positions.json`)) {
		const events: FollowEvent[] = [];
		let waiters: Array<() => void> = [];
		const follower = new Follower({
			paths: [dir],
			sink: remoteSink({ url: server.url, token }),
			positions: await Positions.open(positionsFile, server.url),
			onEvent: (event) => {
				events.push(event);
				const woken = waiters;
				waiters = [];
				for (const wake of woken) wake();
			},
			retryMinMs: 50,
		});
		followers.push(follower);
		await follower.start();
		/** Waits (bounded) for an event matching `test`, already seen or to come. */
		const event = (test: (e: FollowEvent) => boolean, what: string) =>
			within(
				20_000,
				what,
				(async () => {
					for (;;) {
						const found = events.find(test);
						if (found) return found;
						await new Promise<void>((resolve) => waiters.push(resolve));
					}
				})(),
			);
		return { follower, events, event, positionsFile };
	}

	const sessionsDir = (name: string) => join(root, name, "sessions");

	async function lastSeqOf(sessionId: string): Promise<number | undefined> {
		const response = await fetch(server.url, {
			method: "POST",
			headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
			body: JSON.stringify({ query: `{ session(sessionId: "${sessionId}") { lastSeq } }` }),
		});
		return ((await response.json()) as { data: { session: { lastSeq: number } | null } }).data.session
			?.lastSeq;
	}

	/** A pi session in `dir` (pi names the file), with a few lines. */
	function piSession(dir: string, cwd: string) {
		const pi = SessionManager.create(cwd, join(dir, cwd.replaceAll("/", "-")));
		const u1 = pi.appendMessage(piUser(`first in ${cwd}`));
		pi.appendMessage(piAssistant("answer", piUsage(10, 5, 100, 0, 0.125)));
		return { pi, u1, file: pi.getSessionFile() as string };
	}

	it("follows files pi wrote before it started and files pi creates while it runs, with moves, summaries and compactions", async () => {
		const dir = sessionsDir("basic");
		const before = piSession(dir, "/work/one");
		const { follower, event } = await follow(dir);
		await follower.idle();
		await expectHeldAsPiWrote(server, token, before.file, watch);

		// pi goes on: a move back, a summary, a compaction, a file of a new session.
		before.pi.branch(before.u1);
		before.pi.appendMessage(piAssistant("another answer", piUsage(1, 1, 0, 0, 0)));
		before.pi.branchWithSummary(before.u1, "went back again");
		before.pi.appendCompaction("so far", before.u1, 1234, undefined, false, piUsage(3, 3, 0, 0, 0.25));
		const created = piSession(dir, "/work/two");
		created.pi.appendThinkingLevelChange("high");
		await event(
			(e) => e.kind === "sent" && e.answer.sessionId === sessionIdOf(created.file),
			"the new file sent",
		);
		await event(
			(e) => e.kind === "sent" && e.answer.sessionId === sessionIdOf(before.file) && e.answer.lastSeq >= 7,
			"the first file's new lines sent",
		);
		await follower.idle();
		await expectHeldAsPiWrote(server, token, before.file, watch);
		await expectHeldAsPiWrote(server, token, created.file, watch);
		expect(follower.stats()).toMatchObject({ files: 2, upToDate: 2, conflicts: 0, failed: 0 });
	});

	it("sends no line pi has not finished writing, and sends it when it is", async () => {
		const dir = sessionsDir("torn");
		const { pi, file } = piSession(dir, "/work/torn");
		const { follower, event } = await follow(dir);
		await follower.idle();
		const session = await expectHeldAsPiWrote(server, token, file, watch);
		// Half a line, as a write cut between two system calls leaves it.
		const line = JSON.stringify({
			type: "message",
			id: "torn0001",
			parentId: pi.getLeafId(),
			timestamp: new Date().toISOString(),
			message: { role: "user", content: "written in two parts", timestamp: 9 },
		});
		appendFileSync(file, line.slice(0, 40));
		await event((e) => e.kind === "partial" && e.path === file && e.bytes === 40, "the half line seen");
		await follower.idle();
		// Seen, and nothing sent: the service holds what it held.
		expect(await lastSeqOf(sessionIdOf(file))).toBe(session?.lastSeq);
		appendFileSync(file, `${line.slice(40)}\n`);
		await watch.until(sessionIdOf(file), (session?.lastSeq ?? 0) + 1);
		await follower.idle();
		await expectHeldAsPiWrote(server, token, file, watch);
	});

	it("reports a rewritten file as a conflict naming its first differing line, and follows the others on", async () => {
		const dir = sessionsDir("conflict");
		const kept = piSession(dir, "/work/kept");
		const rewritten = piSession(dir, "/work/rewritten");
		const { follower, event } = await follow(dir);
		await follower.idle();
		// The same session, its second entry another: not what the service holds.
		const text = readFileSync(rewritten.file, "utf8");
		writeFileSync(rewritten.file, text.replace('"text":"answer"', '"text":"another answer"'));
		const conflict = await event((e) => e.kind === "conflict", "the conflict");
		expect(conflict).toMatchObject({ kind: "conflict", path: rewritten.file, line: 3 });
		kept.pi.appendMessage(piUser("still followed"));
		await event(
			(e) => e.kind === "sent" && e.answer.sessionId === sessionIdOf(kept.file) && e.answer.appended === 1,
			"the other file's line",
		);
		await follower.idle();
		await expectHeldAsPiWrote(server, token, kept.file, watch);
		expect(follower.stats()).toMatchObject({ conflicts: 1 });
	});

	it("two followers on one directory store each line once", async () => {
		const dir = sessionsDir("two");
		const { pi, file } = piSession(dir, "/work/shared");
		const [a, b] = await Promise.all([follow(dir), follow(dir)]);
		for (let i = 0; i < 30; i++) pi.appendMessage(piUser(`line ${i}`));
		await Promise.all([a?.follower.idle(), b?.follower.idle()]);
		const session = await expectHeldAsPiWrote(server, token, file, watch);
		expect(session?.lastSeq).toBe(32);
		const appended = (events: FollowEvent[]) =>
			events.reduce((n, e) => n + (e.kind === "sent" ? e.answer.appended : 0), 0);
		expect(appended(a?.events ?? []) + appended(b?.events ?? [])).toBe(32);
	});

	it("started again on its positions, sends only what pi wrote since", async () => {
		const dir = sessionsDir("restart");
		const { pi, file } = piSession(dir, "/work/restart");
		const first = await follow(dir);
		await first.follower.idle();
		await first.follower.stop();
		for (let i = 0; i < 5; i++) pi.appendMessage(piUser(`while stopped ${i}`));
		const again = await follow(dir, first.positionsFile);
		await again.follower.idle();
		const sent = again.events.filter((e) => e.kind === "sent");
		// One request with the five new lines, none with lines the service had.
		expect(sent.map((e) => (e.kind === "sent" ? [e.answer.appended, e.answer.held] : []))).toEqual([[5, 0]]);
		await expectHeldAsPiWrote(server, token, file, watch);
	});
});
