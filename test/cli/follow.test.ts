/**
 * `npm run follow` as a child process: `--once` against a running server
 * with authentication on catches up a sessions directory pi wrote and exits
 * 0, or 1 naming a conflicting file's line; usage errors and tokens that
 * cannot write exit 2 before anything is sent. (The follower itself:
 * test/follow/.)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectHeldAsPiWrote, followServer, followToken } from "../support/follow-fixtures.js";
import { SessionManager } from "../support/pi-oracle.js";
import { piAssistant, piUsage, piUser } from "../support/pi-sessions.js";
import type { TestServer } from "../support/server.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Run {
	code: number | null;
	stderr: string;
}

/** The entry point as `npm run follow` runs it under tsx, in one Node process. */
function runFollower(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, ["--import", "tsx", "src/cli/follow.ts", ...args], {
			cwd: ROOT,
			env: { ...process.env, SESSION_TREE_TOKEN: "", ...env },
			stdio: ["ignore", "ignore", "pipe"],
		});
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		child.on("error", reject);
		child.on("close", (code) => resolvePromise({ code, stderr }));
	});
}

describe("npm run follow (the entry point, as a child process)", () => {
	let server: TestServer;
	let token: string;
	let dir: string;

	beforeAll(async () => {
		server = await followServer("pglite");
		token = await followToken("follow-cli");
		dir = mkdtempSync(join(tmpdir(), "follow-cli-"));
	});
	afterAll(async () => {
		await server?.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it("--once catches up a sessions directory and exits 0; a conflicting file makes it exit 1, naming the line", async () => {
		const sessions = join(dir, "sessions");
		const files = ["/work/a", "/work/b"].map((cwd) => {
			const pi = SessionManager.create(cwd, join(sessions, cwd.replaceAll("/", "-")));
			pi.appendMessage(piUser(`hello from ${cwd}`));
			pi.appendMessage(piAssistant("hi", piUsage(1, 2, 3, 0, 0.125)));
			return pi.getSessionFile() as string;
		});
		const state = join(dir, "state.json");
		const args = ["--url", server.url, "--token", token, "--state", state, "--once", sessions];
		const first = await runFollower(args);
		expect(first.stderr).toContain("2 files · 2 up to date · 4 lines sent · 0 conflicted · 0 failed");
		expect(first.code).toBe(0);
		for (const file of files) await expectHeldAsPiWrote(server, token, file);

		// The first file rewritten (its answer changed): line 3 no longer matches.
		const file = files[0] as string;
		writeFileSync(file, readFileSync(file, "utf8").replace('"text":"hi"', '"text":"bye"'));
		const second = await runFollower(["--url", server.url, "--state", state, "--once", sessions], {
			SESSION_TREE_TOKEN: token,
		});
		expect(second.stderr).toMatch(
			new RegExp(`conflict ${file.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")} at line 3: `),
		);
		expect(second.stderr).toContain("1 conflicted");
		expect(second.code).toBe(1);
	});

	it("exits 2 on usage errors and on tokens that cannot write there, sending nothing", async () => {
		const reader = await followToken("follow-cli", ["read"]);
		const sessions = join(dir, "unsent");
		const pi = SessionManager.create("/work/unsent", sessions);
		pi.appendMessage(piUser("never sent"));
		pi.appendMessage(piAssistant("no", piUsage(1, 1, 0, 0, 0)));
		const brokenState = join(dir, "broken-state.json");
		writeFileSync(brokenState, "{ not json");
		const runs = await Promise.all([
			runFollower(["--once", join(dir, "missing")]),
			runFollower(["--url", server.url, "--token", reader, "--once", sessions]),
			runFollower(["--url", server.url, "--token", token, "--workspace", "elsewhere", "--once", sessions]),
			runFollower(["--url", server.url, "--token", token, "--state", brokenState, "--once", sessions]),
		]);
		expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
		expect(runs[0]?.stderr).toContain("no such file or directory");
		expect(runs[1]?.stderr).toContain("the token has no write scope");
		expect(runs[2]?.stderr).toContain("the token is for workspace follow-cli, not elsewhere");
		expect(runs[3]?.stderr).toContain(`cannot read the follower's positions ${brokenState}`);
		// Nothing of the file reached the service.
		const response = await fetch(server.url, {
			method: "POST",
			headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
			body: JSON.stringify({
				query: "query($id: String!) { session(sessionId: $id) { lastSeq } }",
				variables: { id: pi.getSessionId() },
			}),
		});
		expect(await response.json()).toEqual({ data: { session: null } });
	});
});
