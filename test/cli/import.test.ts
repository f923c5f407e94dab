import { spawn } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	consoleReporter,
	type FileOutcome,
	findSessionFiles,
	formatOutcome,
	formatSummary,
	type ImportReporter,
	type ImportSummary,
	importSessions,
	type TextSink,
} from "../../src/cli/import-sessions.js";
import { MemoryStore } from "../../src/store/memory.js";
import { DEFAULT_WORKSPACE, type ImportOptions, type SessionStore } from "../../src/store/store.js";
import { chainJsonl, uniqueId } from "../graphql/http.js";
import { copyPgliteTemplate } from "../support/pglite-directories.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = join(ROOT, "test/fixtures/pi-small");
const FIXTURE_NAMES = ["v1.jsonl", "v2.jsonl", "v3-harness.jsonl"] as const;
const FIXTURE_IDS = {
	"v1.jsonl": "0195f3a0-0000-7000-8000-000000000001",
	"v2.jsonl": "0195f3a0-0000-7000-8000-000000000002",
	"v3-harness.jsonl": "0195f3a0-0000-7000-8000-000000000003",
} as const;
/** Line 1 a valid header, line 2 fine, line 3 not JSON. */
const BROKEN = [
	'{"type":"session","version":3,"id":"broken-session","timestamp":"2025-12-01T09:00:00.000Z","cwd":"/x"}',
	'{"type":"message","id":"m1","parentId":null,"timestamp":"2025-12-01T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1764579601000}}',
	'{"type":"message", this is not json',
	"",
].join("\n");

let dir: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "session-import-"));
});
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/** A copy of a fixture, optionally with another session id in its header. */
function copyFixture(name: (typeof FIXTURE_NAMES)[number], to: string, sessionId?: string): string {
	mkdirSync(dirname(to), { recursive: true });
	const [header, ...rest] = readFileSync(join(FIXTURES, name), "utf8").split("\n");
	const parsed = JSON.parse(header as string) as { id: string };
	if (sessionId !== undefined) parsed.id = sessionId;
	writeFileSync(to, [JSON.stringify(parsed), ...rest].join("\n"));
	return to;
}

function writeFile(path: string, text: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
	return path;
}

interface Recorded {
	reporter: ImportReporter;
	outcomes: FileOutcome[];
	events: string[];
	summaries: ImportSummary[];
}

function recorder(onResult?: (outcome: FileOutcome) => void): Recorded {
	const recorded: Recorded = {
		outcomes: [],
		events: [],
		summaries: [],
		reporter: {
			start: (path, index, total) => recorded.events.push(`start ${index}/${total} ${path}`),
			progress: (path, index, total, stored, entries) =>
				recorded.events.push(`progress ${index}/${total} ${path} ${stored}/${entries}`),
			result: (outcome, index, total) => {
				recorded.events.push(`${outcome.status} ${index}/${total} ${outcome.path}`);
				recorded.outcomes.push(outcome);
				onResult?.(outcome);
			},
			finish: (summary) => recorded.summaries.push(summary),
		},
	};
	return recorded;
}

/** A clock that advances one second per reading. */
function fakeClock(): () => number {
	let t = 0;
	return () => (t += 1000);
}

class Sink implements TextSink {
	text = "";
	constructor(
		readonly isTTY: boolean,
		readonly columns?: number | undefined,
	) {}
	write(text: string): boolean {
		this.text += text;
		return true;
	}
}

/** A pi sessions tree: one directory per cwd, files `<timestamp>_<uuid>.jsonl`, plus clutter. */
function sessionsTree(): { root: string; files: string[] } {
	const root = join(dir, "sessions");
	const files = [
		copyFixture(
			"v2.jsonl",
			join(root, "--work-a--", "2025-12-01T09-00-00-000Z_aaaa0000-0000-4000-8000-000000000002.jsonl"),
			"a2",
		),
		copyFixture(
			"v1.jsonl",
			join(root, "--work-a--", "2025-11-20T10-00-00-000Z_aaaa0000-0000-4000-8000-000000000001.jsonl"),
			"a1",
		),
		copyFixture(
			"v3-harness.jsonl",
			join(root, "--work-b--", "nested", "2025-12-02T09-00-00-000Z_bbbb.jsonl"),
			"b3",
		),
		copyFixture("v1.jsonl", join(root, "--work-b--", "2025-11-21T10-00-00-000Z_bbbb.jsonl"), "b1"),
	];
	writeFile(join(root, "--work-a--", "notes.txt"), "not a session");
	writeFile(join(root, "--work-b--", "session.json"), "{}");
	writeFile(join(root, ".DS_Store"), "");
	return { root, files };
}

describe("findSessionFiles", () => {
	it("walks directories recursively for *.jsonl files, sorted, ignoring other files", async () => {
		const { root } = sessionsTree();
		const found = await findSessionFiles([root]);
		expect(found).toEqual([
			{
				path: join(root, "--work-a--", "2025-11-20T10-00-00-000Z_aaaa0000-0000-4000-8000-000000000001.jsonl"),
			},
			{
				path: join(root, "--work-a--", "2025-12-01T09-00-00-000Z_aaaa0000-0000-4000-8000-000000000002.jsonl"),
			},
			{ path: join(root, "--work-b--", "2025-11-21T10-00-00-000Z_bbbb.jsonl") },
			{ path: join(root, "--work-b--", "nested", "2025-12-02T09-00-00-000Z_bbbb.jsonl") },
		]);
	});

	it("takes named files as they are, in the order given, each file once", async () => {
		const a = copyFixture("v2.jsonl", join(dir, "b.jsonl"));
		const b = copyFixture("v1.jsonl", join(dir, "a.txt"));
		const found = await findSessionFiles([a, b, dir, a]);
		expect(found.map((f) => f.path)).toEqual([a, b]);
	});

	it("reports a path that does not exist and a dangling symlink as errors", async () => {
		symlinkSync(join(dir, "gone.jsonl"), join(dir, "link.jsonl"));
		symlinkSync(join(dir, "gone.txt"), join(dir, "link.txt"));
		const found = await findSessionFiles([join(dir, "missing"), dir]);
		expect(found).toEqual([
			{ path: join(dir, "missing"), error: expect.stringContaining("ENOENT") },
			{ path: join(dir, "link.jsonl"), error: expect.stringContaining("ENOENT") },
		]);
	});

	it("survives a symlink loop", async () => {
		copyFixture("v2.jsonl", join(dir, "d", "s.jsonl"));
		symlinkSync(join(dir, "d"), join(dir, "d", "loop"));
		const found = await findSessionFiles([dir]);
		expect(found).toEqual([{ path: join(dir, "d", "s.jsonl") }]);
	});
});

describe("importSessions", () => {
	it("imports every session file of a tree and reports each one in order", async () => {
		const store = new MemoryStore();
		const { root } = sessionsTree();
		const { reporter, outcomes, events, summaries } = recorder();
		const summary = await importSessions(store, DEFAULT_WORKSPACE, [root], reporter, { now: fakeClock() });

		expect(summary).toEqual({
			imported: 4,
			skipped: 0,
			conflicting: 0,
			failed: 0,
			total: 4,
			interrupted: false,
			seconds: 1,
		});
		expect(summaries).toEqual([summary]);
		expect(outcomes.map((o) => o.status === "imported" && o.sessionId)).toEqual(["a1", "a2", "b1", "b3"]);
		for (const outcome of outcomes) {
			if (outcome.status !== "imported") throw new Error("not imported");
			const session = await store.getSession(DEFAULT_WORKSPACE, outcome.sessionId);
			expect(session?.entryCount).toBe(outcome.entries);
			expect(outcome.entries).toBeGreaterThan(0);
		}
		// start, progress, result for each file, in order
		expect(events[0]).toMatch(/^start 1\/4 .*_aaaa0000-0000-4000-8000-000000000001\.jsonl$/);
		expect(events[1]).toMatch(/^progress 1\/4 .* (\d+)\/\1$/);
		expect(events[2]).toMatch(/^imported 1\/4 /);
		expect(events.filter((e) => e.startsWith("imported"))).toHaveLength(4);
	});

	it("skips sessions already imported on a second run instead of duplicating them", async () => {
		const store = new MemoryStore();
		for (const name of FIXTURE_NAMES) copyFixture(name, join(dir, name));

		const first = await importSessions(store, DEFAULT_WORKSPACE, [dir], recorder().reporter);
		expect(first).toMatchObject({ imported: 3, skipped: 0, failed: 0 });

		const again = recorder();
		const second = await importSessions(store, DEFAULT_WORKSPACE, [dir], again.reporter);
		expect(second).toMatchObject({ imported: 0, skipped: 3, failed: 0, total: 3 });
		expect(again.outcomes).toEqual(
			FIXTURE_NAMES.map((name) => ({
				status: "skipped",
				path: join(dir, name),
				sessionId: FIXTURE_IDS[name],
			})),
		);
		const page = await store.listSessions(DEFAULT_WORKSPACE, { first: 100 });
		expect(page.totalCount).toBe(3);
	});

	it("reports a file whose session was written to since, or another file under its id, as conflicting, and changes nothing", async () => {
		const store = new MemoryStore();
		const file = copyFixture("v2.jsonl", join(dir, "v2.jsonl"));
		const sessionId = FIXTURE_IDS["v2.jsonl"] as string;
		await importSessions(store, DEFAULT_WORKSPACE, [file], recorder().reporter);
		await store.renameSession(DEFAULT_WORKSPACE, sessionId, "renamed since");
		const before = await store.exportSession(DEFAULT_WORKSPACE, sessionId);

		const again = recorder();
		const summary = await importSessions(store, DEFAULT_WORKSPACE, [file], again.reporter);
		expect(summary).toMatchObject({ imported: 0, skipped: 0, conflicting: 1, failed: 0, total: 1 });
		const [outcome] = again.outcomes;
		expect(outcome).toMatchObject({ status: "conflicting", path: file, sessionId });
		expect(formatOutcome(outcome as FileOutcome)).toBe(
			`conflicting ${file}: not imported: Session ${sessionId} already exists with different content (9 entries stored, 8 in the file)`,
		);
		expect(formatSummary(summary)).toMatch(/^0 imported, 0 skipped, 1 conflicting, 0 failed in /);
		expect(await store.exportSession(DEFAULT_WORKSPACE, sessionId)).toBe(before);
	});

	it("imports into the given workspace, where another workspace's sessions do not count", async () => {
		const store = new MemoryStore();
		const file = copyFixture("v2.jsonl", join(dir, "v2.jsonl"));
		await importSessions(store, DEFAULT_WORKSPACE, [file], recorder().reporter);
		const other = await importSessions(store, "team-b", [file], recorder().reporter);
		expect(other).toMatchObject({ imported: 1, skipped: 0 });
		expect(await store.getSession("team-b", FIXTURE_IDS["v2.jsonl"])).not.toBeNull();
	});

	it("reports a broken file with its line number and imports the others", async () => {
		const store = new MemoryStore();
		copyFixture("v1.jsonl", join(dir, "a.jsonl"));
		const broken = writeFile(join(dir, "b.jsonl"), BROKEN);
		const badHeader = writeFile(join(dir, "c.jsonl"), '{"type":"message"}\n');
		copyFixture("v2.jsonl", join(dir, "d.jsonl"));

		const { reporter, outcomes } = recorder();
		const summary = await importSessions(store, DEFAULT_WORKSPACE, [dir], reporter);
		expect(summary).toMatchObject({ imported: 2, skipped: 0, failed: 2, total: 4 });
		expect(outcomes.map((o) => o.status)).toEqual(["imported", "failed", "failed", "imported"]);
		expect(outcomes[1]).toEqual({
			status: "failed",
			path: broken,
			reason: expect.stringMatching(/^line 3: not valid JSON/),
		});
		expect(outcomes[2]).toEqual({
			status: "failed",
			path: badHeader,
			reason: expect.stringMatching(/^line 1: the first line must be a session header/),
		});
		expect(await store.getSession(DEFAULT_WORKSPACE, "broken-session")).toBeNull();
	});

	it("reports unreadable files as failed and goes on", async () => {
		const store = new MemoryStore();
		symlinkSync(join(dir, "gone.jsonl"), join(dir, "a-dangling.jsonl"));
		copyFixture("v2.jsonl", join(dir, "b.jsonl"));
		const rec = recorder();
		const summary = await importSessions(store, DEFAULT_WORKSPACE, [dir], rec.reporter);
		expect(summary).toMatchObject({ imported: 1, failed: 1, total: 2 });
		expect(rec.outcomes[0]).toEqual({
			status: "failed",
			path: join(dir, "a-dangling.jsonl"),
			reason: expect.stringContaining("ENOENT"),
		});
	});

	it("stops after the current file when the signal aborts, and still finishes with a summary", async () => {
		const store = new MemoryStore();
		for (const name of FIXTURE_NAMES) copyFixture(name, join(dir, name));
		const stop = new AbortController();
		const rec = recorder(() => stop.abort());
		const summary = await importSessions(store, DEFAULT_WORKSPACE, [dir], rec.reporter, {
			signal: stop.signal,
		});
		expect(summary).toMatchObject({ imported: 1, skipped: 0, failed: 0, total: 3, interrupted: true });
		expect(rec.summaries).toEqual([summary]);
		expect(rec.outcomes).toHaveLength(1);
		expect((await store.listSessions(DEFAULT_WORKSPACE, { first: 10 })).totalCount).toBe(1);
	});

	it("reads files one at a time: the next file is read only after the previous one is stored", async () => {
		const inner = new MemoryStore();
		const order: string[] = [];
		const store = new Proxy(inner, {
			get(target, key, receiver) {
				if (key !== "importSession") return Reflect.get(target, key, receiver);
				return async (ws: string, jsonl: string, options?: ImportOptions) => {
					const id = (JSON.parse(jsonl.split("\n")[0] as string) as { id: string }).id;
					order.push(`begin ${id}`);
					try {
						return await target.importSession(ws, jsonl, options);
					} finally {
						order.push(`end ${id}`);
					}
				};
			},
		}) as SessionStore;
		for (const name of FIXTURE_NAMES) copyFixture(name, join(dir, name));
		await importSessions(store, DEFAULT_WORKSPACE, [dir], recorder().reporter);
		expect(order).toEqual(
			FIXTURE_NAMES.flatMap((name) => [`begin ${FIXTURE_IDS[name]}`, `end ${FIXTURE_IDS[name]}`]),
		);
	});
});

describe("consoleReporter", () => {
	/** A store that reports progress halfway through, as a batched backend does. */
	function halfwayStore(): SessionStore {
		const inner = new MemoryStore();
		return new Proxy(inner, {
			get(target, key, receiver) {
				if (key !== "importSession") return Reflect.get(target, key, receiver);
				return async (ws: string, jsonl: string, options: ImportOptions = {}) => {
					return target.importSession(ws, jsonl, {
						...options,
						onProgress: (stored, total) => {
							options.onProgress?.(Math.floor(total / 2), total);
							options.onProgress?.(stored, total);
						},
					});
				};
			},
		}) as SessionStore;
	}

	function setUpFiles(): void {
		copyFixture("v1.jsonl", join(dir, "a.jsonl"));
		writeFile(join(dir, "b.jsonl"), BROKEN);
		copyFixture("v2.jsonl", join(dir, "c.jsonl"));
	}

	const EXPECTED_OUT = (d: string) => [
		`imported ${join(d, "a.jsonl")} → session ${FIXTURE_IDS["v1.jsonl"]} (10 entries)`,
		expect.stringMatching(
			new RegExp(
				`^failed ${join(d, "b.jsonl").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line 3: not valid JSON`,
			),
		),
		`imported ${join(d, "c.jsonl")} → session ${FIXTURE_IDS["v2.jsonl"]} (8 entries)`,
		"2 imported, 0 skipped, 1 failed in 1.0 s",
		"",
	];

	it("without a TTY: result lines and the summary on stdout, no status line, no escape codes", async () => {
		setUpFiles();
		const out = new Sink(false);
		const err = new Sink(false);
		await importSessions(halfwayStore(), DEFAULT_WORKSPACE, [dir], consoleReporter(out, err), {
			now: fakeClock(),
		});
		expect(out.text.split("\n")).toEqual(EXPECTED_OUT(dir));
		expect(err.text).toBe("");
		expect(out.text).not.toContain("\x1b");
		expect(out.text).not.toContain("\r");
	});

	it("on a TTY: one status line rewritten in place with the percentage, cleared before each result", async () => {
		setUpFiles();
		const out = new Sink(false);
		const err = new Sink(true, 200);
		await importSessions(halfwayStore(), DEFAULT_WORKSPACE, [dir], consoleReporter(out, err), {
			now: fakeClock(),
		});
		expect(out.text.split("\n")).toEqual(EXPECTED_OUT(dir));
		const clear = "\r\x1b[2K";
		expect(err.text.split(clear)).toEqual([
			"",
			`[1/3] importing ${join(dir, "a.jsonl")}`,
			`[1/3] importing ${join(dir, "a.jsonl")} 50%`,
			`[1/3] importing ${join(dir, "a.jsonl")} 100%`,
			"",
			`[2/3] importing ${join(dir, "b.jsonl")}`,
			"",
			`[3/3] importing ${join(dir, "c.jsonl")}`,
			`[3/3] importing ${join(dir, "c.jsonl")} 50%`,
			`[3/3] importing ${join(dir, "c.jsonl")} 100%`,
			"",
		]);
		expect(err.text).not.toContain("\n");
	});

	it("on a narrow TTY the status line is cut from the left so it never wraps", async () => {
		const file = copyFixture(
			"v2.jsonl",
			join(dir, "a-rather-long-directory-name", "a-long-session-file-name.jsonl"),
		);
		const err = new Sink(true, 40);
		await importSessions(new MemoryStore(), DEFAULT_WORKSPACE, [file], consoleReporter(new Sink(false), err));
		const lines = err.text.split("\r\x1b[2K").filter((l) => l !== "");
		expect(lines.length).toBeGreaterThan(0);
		for (const line of lines) {
			expect(line.length).toBeLessThan(40);
			expect(line).toMatch(/^\[1\/1\] importing …/);
		}
		expect(lines.at(-1)).toMatch(/-file-name\.jsonl 100%$/);
	});
});

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** The entry point as `npm run import` runs it under tsx, in one Node process (npx and tsx's CLI would add two). */
function runImporter(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, ["--import", "tsx", "src/cli/import.ts", ...args], {
			cwd: ROOT,
			env: { ...process.env, ...env },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		child.on("error", reject);
		child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
	});
}

describe("npm run import (the entry point, as a child process on PGlite)", () => {
	it("imports a directory, skips everything on the second run, reports a broken file by line", async () => {
		const env = { DATABASE_URL: "", PGLITE_DIR: copyPgliteTemplate(join(dir, "pglite")) };
		const sessions = join(dir, "sessions");
		for (const name of FIXTURE_NAMES) copyFixture(name, join(sessions, "--work-demo--", name));
		const broken = writeFile(join(sessions, "--work-other--", "broken.jsonl"), BROKEN);
		writeFile(join(sessions, "README.md"), "ignored");

		const first = await runImporter([sessions], env);
		expect(first.code, first.stderr).toBe(1);
		const firstLines = first.stdout.trimEnd().split("\n");
		expect(firstLines).toHaveLength(5);
		for (const [i, name] of FIXTURE_NAMES.entries()) {
			expect(firstLines[i]).toMatch(
				new RegExp(
					`^imported .*/--work-demo--/${name.replace(".", "\\.")} → session ${FIXTURE_IDS[name]} \\(\\d+ entries\\)$`,
				),
			);
		}
		expect(firstLines[3]).toMatch(
			new RegExp(`^failed ${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line 3: not valid JSON`),
		);
		expect(firstLines[4]).toMatch(/^3 imported, 0 skipped, 1 failed in \d+\.\d s$/);
		expect(first.stdout + first.stderr).not.toContain("\x1b");

		const second = await runImporter([join(sessions, "--work-demo--")], env);
		expect(second.code, second.stderr).toBe(0);
		const secondLines = second.stdout.trimEnd().split("\n");
		expect(secondLines.slice(0, 3)).toEqual(
			FIXTURE_NAMES.map(
				(name) =>
					`skipped ${join(sessions, "--work-demo--", name)}: session ${FIXTURE_IDS[name]} already imported, unchanged`,
			),
		);
		expect(secondLines[3]).toMatch(/^0 imported, 3 skipped, 0 failed in \d+\.\d s$/);
		expect(second.stdout + second.stderr).not.toContain("\x1b");
	}, 120_000);

	it("holds files to the limits the environment sets, as the server does (MAX_IMPORT_ENTRIES)", async () => {
		const file = writeFile(join(dir, "limits", "three.jsonl"), chainJsonl(uniqueId("limits"), 3));
		const run = await runImporter([file], { DATABASE_URL: "memory:", MAX_IMPORT_ENTRIES: "2" });
		expect(run.code, run.stderr).toBe(1);
		expect(run.stdout).toMatch(
			/^failed .*three\.jsonl: line 4: a session file may hold at most 2 entries \(import limit\)/m,
		);
		expect(run.stdout).toMatch(/0 imported, 0 skipped, 1 failed/);
	}, 60_000);

	it("exits 2 with the usage on usage errors, before opening a store", async () => {
		const env = { DATABASE_URL: "", PGLITE_DIR: join(dir, "pglite") };
		// In parallel: each run starts Node and tsx.
		const [none, missing, unknown] = await Promise.all([
			runImporter([], env),
			runImporter([join(dir, "does-not-exist")], env),
			runImporter(["--frobnicate", dir], env),
		]);
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("no file or directory given");
		expect(none.stderr).toContain("usage: npm run import");
		expect(none.stdout).toBe("");

		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain(`no such file or directory: ${join(dir, "does-not-exist")}`);
		expect(missing.stderr).toContain("usage: npm run import");

		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain("unknown option --frobnicate");
		expect(existsSync(join(dir, "pglite"))).toBe(false);
	}, 60_000);
});
