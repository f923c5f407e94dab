/**
 * What the follower's tests share: a server with authentication on and a
 * token for it, a watcher of the workspace's activity over SSE (what a
 * dashboard or viewer sees), and the check that the service holds exactly
 * pi's files.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Scope } from "../../src/auth/identity.js";
import { signToken, tokenSettings } from "../../src/auth/token.js";
import { connect } from "../events/sse-client.js";
import { testAuthenticator } from "../graphql/tokens.js";
import { jsonLines } from "./pi-sessions.js";
import { type BackendName, startTestServer, type TestServer } from "./server.js";

const SECRET = "follower-tests-secret-of-at-least-32-bytes!";

export async function followServer(
	backend: BackendName,
	options: { port?: number; databaseUrl?: string; pgliteDir?: string } = {},
): Promise<TestServer> {
	return startTestServer(backend, { authenticate: testAuthenticator(SECRET), ...options });
}

export function followToken(workspace: string, scopes: Scope[] = ["read", "write"]): Promise<string> {
	return signToken(
		{ subject: "follower", workspace, scopes, ttlS: 3600 },
		tokenSettings({ AUTH_JWT_SECRET: SECRET }),
	);
}

/** Every pi session file under `dir`. */
export function sessionFiles(dir: string): string[] {
	const found: string[] = [];
	for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
		const path = join(dir, name);
		if (name.endsWith(".jsonl") && statSync(path).isFile()) found.push(path);
	}
	return found.sort();
}

export interface ActivityWatch {
	/** (session, seq) of every entry announced, in arrival order, with when it arrived. */
	readonly seen: Array<{ sessionId: string; seq: number; at: number }>;
	/** Waits (bounded) until the watch has seen `count` entries of `sessionId`. */
	until(sessionId: string, count: number, ms?: number): Promise<void>;
	close(): Promise<void>;
}

/** The workspace's activity from now on, as a dashboard sees it (SSE, with the token). */
export async function watchActivity(server: TestServer, token: string): Promise<ActivityWatch> {
	const authorized = (url: string, init: RequestInit) =>
		fetch(url, {
			...init,
			headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
		});
	const body = {
		query: "subscription { sessionActivity { kind seq session { sessionId } entry { entryId } } }",
	};
	const seen: ActivityWatch["seen"] = [];
	let waiters: Array<() => void> = [];
	let closed = false;
	let stream = connect(authorized, server.url, body);
	let lastEventId: string | undefined;
	const reading = (async () => {
		while (!closed) {
			const event = await stream.next(600_000).catch(() => null);
			if (closed) return;
			if (!event) {
				// The server went away (a restart): resume after the last event seen, as an EventSource does.
				await stream.close();
				await new Promise((resolve) => setTimeout(resolve, 100));
				stream = connect(authorized, server.url, body, lastEventId);
				continue;
			}
			lastEventId = event.lastEventId;
			const activity = event.data.data?.sessionActivity as
				| { kind: string; seq: number; session: { sessionId: string }; entry: { entryId: string } | null }
				| undefined;
			const at = Date.now();
			// A session created with entries (an import) is one event for all of them: seq is its last.
			if (activity?.kind === "CREATED")
				for (let seq = 1; seq <= activity.seq; seq++)
					seen.push({ sessionId: activity.session.sessionId, seq, at });
			else if (activity?.entry) seen.push({ sessionId: activity.session.sessionId, seq: activity.seq, at });
			const woken = waiters;
			waiters = [];
			for (const wake of woken) wake();
		}
	})();
	reading.catch(() => {});
	const count = (sessionId: string) => seen.filter((e) => e.sessionId === sessionId).length;
	return {
		seen,
		async until(sessionId, wanted, ms = 20_000) {
			const deadline = Date.now() + ms;
			while (count(sessionId) < wanted) {
				const left = deadline - Date.now();
				if (left <= 0)
					throw new Error(`saw ${count(sessionId)} of ${wanted} entries of ${sessionId} within ${ms} ms`);
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, left);
					waiters.push(() => {
						clearTimeout(timer);
						resolve();
					});
				});
			}
		},
		async close() {
			closed = true;
			await stream.close();
		},
	};
}

/** The session id a pi file names in its header. */
export const sessionIdOf = (file: string): string =>
	(JSON.parse(readFileSync(file, "utf8").split("\n")[0] as string) as { id: string }).id;

/**
 * The service holds exactly pi's file: its export (the form pi reads) is the
 * file line for line, as JSON values; and the watch saw each of its entries
 * once (seq 1 to the session's last, no repeats).
 */
export async function expectHeldAsPiWrote(
	server: TestServer,
	token: string,
	file: string,
	watch?: ActivityWatch,
) {
	const sessionId = sessionIdOf(file);
	const response = await fetch(server.url, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
		body: JSON.stringify({
			query: "query($id: String!) { session(sessionId: $id) { lastSeq jsonl } }",
			variables: { id: sessionId },
		}),
	});
	const body = (await response.json()) as { data?: { session: { lastSeq: number; jsonl: string } | null } };
	const session = body.data?.session;
	expect(session, `the service holds ${file}`).toBeTruthy();
	expect(jsonLines(session?.jsonl ?? ""), file).toEqual(jsonLines(readFileSync(file, "utf8")));
	if (watch) {
		await watch.until(sessionId, session?.lastSeq ?? 0);
		const seqs = watch.seen.filter((e) => e.sessionId === sessionId).map((e) => e.seq);
		expect(seqs, `each entry of ${sessionId} seen once`).toEqual(
			Array.from({ length: session?.lastSeq ?? 0 }, (_, i) => i + 1),
		);
	}
	return session;
}
