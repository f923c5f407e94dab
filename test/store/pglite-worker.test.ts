/**
 * Embedded PGlite on a worker thread (issue 7, finding 8): a heavy read on
 * embedded storage no longer holds the server's event loop, and the worker
 * store keeps every promise of the in-thread one (errors, commit notices
 * and statements before the result, import progress, the directory lock,
 * a clean end and a crash that fails loudly).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SessionError } from "../../src/session/errors.js";
import { DEFAULT_INPUT_LIMITS } from "../../src/session/limits.js";
import type { CommitNotice } from "../../src/store/commits.js";
import { MemoryStore } from "../../src/store/memory.js";
import { decodeError, encodeError } from "../../src/store/pglite-worker/protocol.js";
import { openPgliteWorker } from "../../src/store/pglite-worker/worker-store.js";
import { lockDirectory } from "../../src/store/postgres/dir-lock.js";
import { openPglite } from "../../src/store/postgres/open.js";
import { type SessionStore, DEFAULT_WORKSPACE as ws } from "../../src/store/store.js";
import { chainJsonl, uniqueId } from "../graphql/http.js";
import { rejectsWithCode, within } from "../support/expect.js";
import { copyPgliteTemplate } from "../support/pglite-directories.js";
import { startTestServer, type TestServer } from "../support/server.js";

const user = (text: string) => ({
	type: "message" as const,
	message: { role: "user", content: text, timestamp: 1_764_000_000_000 },
});

/** What issue 7 allows an ordinary client to wait while an attack or a heavy read runs. */
const BOUND_MS = 250;

describe("a heavy read on embedded PGlite does not hold the server", () => {
	const ENTRIES = 50_000;
	let server: TestServer;
	let onWalk: (() => void) | undefined;
	const sessionId = uniqueId("long");

	beforeAll(async () => {
		server = await startTestServer("pglite", {
			// The path walk is one statement; the store reports it just before running it.
			onQuery: (query) => {
				if (/with recursive/.test(query)) onWalk?.();
			},
		});
		await server.services.store.importSession(ws, chainJsonl(sessionId, ENTRIES));
		// The quick request's kind served once: its first parse, validation and compile are no part of the bound.
		await server.request("{ __typename }");
	});
	afterAll(async () => {
		await server?.close();
	});

	// A wall-clock bound on a 2-core machine that the rest of the suite (Chromium, other servers) shares: a
	// try whose quick request the scheduler delayed is tried again. A server held by the walk fails every try.
	it("answers { __typename } within the bound while the context of a 50,000-entry session is computed", {
		retry: 2,
	}, async () => {
		const walking = new Promise<void>((resolve) => {
			onWalk = resolve;
		});
		const started = performance.now();
		let heavyDone: number | undefined;
		const heavy = server
			.request<{ session: { context: { messages: unknown[] } } }>(
				"query ($id: String!) { session(sessionId: $id) { context { messages } } }",
				{ id: sessionId },
			)
			.then((response) => {
				heavyDone = performance.now();
				return response;
			});
		// Awaited below; if an assertion fails first, closing the server ends it, and that is no error of its own.
		heavy.catch(() => {});
		await within(10_000, "the context walk to start", walking);

		const asked = performance.now();
		const quick = await atRaisedPriority(() => server.request("{ __typename }"));
		const answered = performance.now();
		expect(quick).toEqual({ data: { __typename: "Query" } });
		expect(heavyDone, "the heavy read finished before the quick one was answered").toBeUndefined();
		expect(answered - asked).toBeLessThan(BOUND_MS);

		const response = await heavy;
		expect(response.errors).toBeUndefined();
		expect(response.data?.session.context.messages).toHaveLength(ENTRIES);
		// Else the case proves nothing: the read must take longer than the bound it is held to.
		expect((heavyDone ?? 0) - started).toBeGreaterThan(BOUND_MS);
	});
});

/**
 * `run` with this thread (it serves and asks) at a raised priority where the system allows it (as
 * root), its own priority back after. Issue 7's bound is about this server, not about the machine:
 * beside the browser tests' Chromium in the other worker, the quick request waited 266–504 ms in each
 * of three tries in one full run (20–80 ms otherwise). Only this thread and only for the request: the
 * walk's worker thread, started before, keeps its priority, and a server held by the walk would still
 * wait for it.
 */
async function atRaisedPriority<T>(run: () => Promise<T>): Promise<T> {
	const own = getPriority();
	try {
		setPriority(-10);
	} catch {
		// Not permitted: measured at the ordinary priority.
	}
	try {
		return await run();
	} finally {
		setPriority(own);
	}
}

/** A directory holding a migrated data directory at `data` (beside it, room for a script). */
function freshDirectory(label: string): string {
	const dir = mkdtempSync(join(tmpdir(), `session-tree-worker-${label}-`));
	copyPgliteTemplate(join(dir, "data"));
	return dir;
}

describe("the worker store keeps the in-thread store's contract", () => {
	/** The store's import limit, lowered (this file's largest import here has 1,200 entries). */
	const IMPORT_ENTRIES = 5_000;
	let root: string;
	let store: SessionStore;
	const notices: CommitNotice[] = [];
	const queries: string[] = [];
	beforeAll(async () => {
		root = freshDirectory("contract");
		store = await openPgliteWorker(join(root, "data"), {
			announce: { kind: "callback", onCommit: (notice) => notices.push(notice) },
			onQuery: (query) => queries.push(query),
			limits: { ...DEFAULT_INPUT_LIMITS, importEntries: IMPORT_ENTRIES },
		});
	});
	afterAll(async () => {
		await store?.close();
		rmSync(root, { recursive: true, force: true });
	});

	it("rejects with a real SessionError (code, message, field), like the other backends", async () => {
		const memory = new MemoryStore();
		const sessionId = uniqueId("errors");
		const missing = uniqueId("missing");
		await store.createSession(ws, { sessionId });
		await memory.createSession(ws, { sessionId });
		for (const write of [
			(s: SessionStore) => s.appendEntry(ws, missing, user("x")),
			(s: SessionStore) => s.appendEntry(ws, sessionId, { type: "session" } as never),
			(s: SessionStore) => s.createSession(ws, { sessionId }),
		]) {
			const expected = (await write(memory).catch((e: unknown) => e)) as SessionError;
			const error = (await write(store).catch((e: unknown) => e)) as SessionError;
			expect(expected).toBeInstanceOf(SessionError);
			expect(error).toBeInstanceOf(SessionError);
			expect({ code: error.code, message: error.message, field: error.field }).toEqual({
				code: expected.code,
				message: expected.message,
				field: expected.field,
			});
			// The stack is the worker's: where the store threw, not where the message was decoded.
			expect(error.stack).toContain("/src/store/");
			expect(error.stack).not.toContain("protocol.ts");
		}
	});

	it("rejects other errors as Errors with their message, stack, code and cause", async () => {
		const sessionId = uniqueId("driver");
		await store.createSession(ws, { sessionId });
		// Postgres refuses a negative LIMIT: a driver error, not a SessionError.
		const error = (await store.listEntries(ws, sessionId, { limit: -1 }).catch((e: unknown) => e)) as Error;
		expect(error).toBeInstanceOf(Error);
		expect(error).not.toBeInstanceOf(SessionError);
		expect(error.message).toMatch(/^Failed query: select /);
		expect(error.stack).toContain("Failed query: select ");
		expect((error.cause as Error).message).toBe("LIMIT must not be negative");
		expect((error.cause as { code?: string }).code).toBe("2201W");
	});

	it("keeps an error's name across the boundary", () => {
		const error = new Error("the directory is taken");
		error.name = "DirectoryInUseError";
		const decoded = decodeError(structuredClone(encodeError(error)));
		expect([decoded.name, decoded.message, decoded.stack]).toEqual([error.name, error.message, error.stack]);
	});

	it("holds writes to the input limits it was opened with", async () => {
		const file = chainJsonl(uniqueId("limited"), IMPORT_ENTRIES + 1);
		await rejectsWithCode(store.importSession(ws, file), "LIMIT_EXCEEDED", "jsonl");
		expect(await store.getSession(ws, JSON.parse(file.split("\n")[0] as string).id)).toBeNull();
	});

	it("calls onCommit, onQuery and onProgress on this thread before the call's result", async () => {
		const sessionId = uniqueId("callbacks");
		const seen = () => ({ notices: notices.length, queries: queries.length });
		const before = seen();
		const created = await store.createSession(ws, { sessionId }).then(seen);
		expect(created.notices).toBe(before.notices + 1);
		expect(notices.at(-1)).toMatchObject({ workspaceId: ws, sessionId, created: true });
		expect(created.queries).toBeGreaterThan(before.queries);

		const appended = await store.appendEntry(ws, sessionId, user("one")).then(seen);
		expect(appended.notices).toBe(created.notices + 1);
		expect(notices.at(-1)).toEqual({ workspaceId: ws, sessionId, fromSeq: 1, toSeq: 1, created: false });
		expect(appended.queries).toBeGreaterThan(created.queries);

		const progress: Array<[number, number]> = [];
		const importedId = uniqueId("imported");
		const imported = await store
			.importSession(ws, chainJsonl(importedId, 1_200), {
				onProgress: (stored, total) => progress.push([stored, total]),
			})
			.then((record) => ({ record, progress: [...progress], ...seen() }));
		expect(imported.record.entryCount).toBe(1_200);
		expect(imported.progress.length).toBeGreaterThan(1);
		expect(imported.progress.at(-1)).toEqual([1_200, 1_200]);
		expect(imported.notices).toBe(appended.notices + 1);
		expect(notices.at(-1)).toMatchObject({ sessionId: importedId, created: true });
	});
});

describe("the worker store's lifetime", () => {
	let root: string;
	let dir: string;
	let store: SessionStore | undefined;
	beforeEach(() => {
		root = freshDirectory("store");
		dir = join(root, "data");
	});
	afterEach(async () => {
		await store?.close();
		store = undefined;
		rmSync(root, { recursive: true, force: true });
	});

	it("holds the directory's lock on this thread: a second store, in a worker or not, is refused until close", async () => {
		store = await openPgliteWorker(dir);
		await expect(openPgliteWorker(dir)).rejects.toThrow(/in use/);
		await expect(openPglite(dir)).rejects.toThrow(/in use/);
		await store.createSession(ws, { sessionId: "still-served" });
		await store.close();
		const release = await lockDirectory(dir);
		await release();
	});

	it("keeps the process alive only while a call is pending, and ends the worker on close", async () => {
		const ports = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
		const before = ports();
		const opened = await openPgliteWorker(dir);
		store = opened;
		expect(ports()).toBe(before);
		const pending = opened.createSession(ws, { sessionId: "s" });
		expect(ports()).toBe(before + 1);
		await pending;
		expect(ports()).toBe(before);

		const worker = (opened as unknown as { worker: Worker }).worker;
		const exited = new Promise((resolve) => worker.once("exit", resolve));
		await opened.close();
		await within(1_000, "the worker to exit", exited);
		await expect(opened.getSession(ws, "s")).rejects.toThrow(/closed/);
		// The lock went with it.
		const release = await lockDirectory(dir);
		await release();
	});

	it("fails pending and later calls with a clear error when the worker dies, and still releases the directory", async () => {
		const opened = await openPgliteWorker(dir);
		store = opened;
		const worker = (opened as unknown as { worker: Worker }).worker;
		let killed: Promise<number> | undefined;
		const importing = opened.importSession(ws, chainJsonl("big", 20_000), {
			onProgress: () => {
				killed ??= worker.terminate();
			},
		});
		await expect(importing).rejects.toThrow(/PGlite worker exited/);
		await killed;
		await expect(opened.getSession(ws, "big")).rejects.toThrow(/PGlite worker exited/);
		await opened.close();
		const release = await lockDirectory(dir);
		await release();
	});

	it("turns a worker 'error' event into failed calls, never an unhandled error", async () => {
		const opened = await openPgliteWorker(dir);
		store = opened;
		const worker = (opened as unknown as { worker: Worker }).worker;
		const pending = opened.importSession(ws, chainJsonl("big", 5_000));
		// What Node emits when the worker's code throws or it runs out of memory.
		worker.emit("error", new Error("out of memory"));
		await expect(pending).rejects.toThrow("the PGlite worker failed: out of memory");
		await expect(opened.getSession(ws, "big")).rejects.toThrow("the PGlite worker failed: out of memory");
	});
});

describe("under tsx, as `npm start` runs it", () => {
	let dir: string;
	beforeEach(() => {
		dir = freshDirectory("tsx");
	});
	afterEach(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	it("loads the worker's TypeScript, serves calls, and the process exits by itself after close", async () => {
		const moduleUrl = new URL("../../src/store/pglite-worker/worker-store.ts", import.meta.url);
		const script = join(dir, "script.mts");
		writeFileSync(
			script,
			`import { openPgliteWorker } from ${JSON.stringify(moduleUrl.href)};
const notices = [];
const store = await openPgliteWorker(${JSON.stringify(join(dir, "data"))}, {
	announce: { kind: "callback", onCommit: (notice) => notices.push(notice.sessionId) },
});
await store.createSession("default", { sessionId: "from-tsx" });
const found = await store.getSession("default", "from-tsx");
await store.close();
// What still holds the event loop besides this process's stdout and stderr pipes: a timer, socket or
// file the store left behind.
const alive = process.getActiveResourcesInfo().filter((type) => type !== "PipeWrap");
process.stdout.write(JSON.stringify({ found: found?.sessionId, notices, alive }) + "\\n");
`,
		);
		const child = spawn(fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url)), [script], {
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		let printed: number | undefined;
		child.stdout.once("data", () => {
			printed = performance.now();
		});
		const code = await within(
			20_000,
			"the tsx process to exit",
			new Promise<number | null>((resolve, reject) => {
				child.once("error", reject);
				child.once("exit", resolve);
			}),
		);
		const exited = performance.now();
		expect(stderr).toBe("");
		expect(code).toBe(0);
		// Nothing of the store keeps the process alive after close: no resource is left (a timer such as
		// the fold's 1 s delay would be), and the process ends soon after its last line, not only within
		// the 20 s bound above. The bound is loose: tsx's own exit took over 1 s on a loaded machine.
		expect(JSON.parse(stdout)).toEqual({ found: "from-tsx", notices: ["from-tsx"], alive: [] });
		expect(exited - (printed ?? 0)).toBeLessThan(5_000);
	});
});
