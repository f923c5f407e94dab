/**
 * The two real pi session files (version 1, ~1,000 lines each, see
 * ../shared/fixtures/pi/README.md) imported into the memory store and held
 * against what pi itself makes of them. The directory is PI_FIXTURES_DIR,
 * default `<repo>/../shared/fixtures/pi`. Without it the suite is skipped,
 * except in CI, where a missing directory is a failure.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EntryType, SessionContext } from "../src/session/entry.js";
import { MemoryStore } from "../src/store/memory.js";
import { DEFAULT_WORKSPACE as WS } from "../src/store/store.js";
import { SessionManager } from "./support/pi-oracle.js";

const repo = fileURLToPath(new URL("..", import.meta.url));
const dir = resolve(process.env.PI_FIXTURES_DIR ?? join(repo, "..", "shared", "fixtures", "pi"));

interface RealFile {
	name: string;
	lines: number;
	counts: Partial<Record<EntryType, number>>;
	headerExtra: Record<string, unknown>;
	/** firstKeptEntryIndex of each compaction, in file order (header = 0). */
	keptIndexes: number[];
}

const FILES: RealFile[] = [
	{
		name: "large-session.v1.jsonl",
		lines: 1019,
		counts: { message: 914, thinking_level_change: 103, model_change: 1 },
		headerExtra: { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "off" },
		keptIndexes: [],
	},
	{
		name: "before-compaction.v1.jsonl",
		lines: 1003,
		counts: { message: 990, thinking_level_change: 5, model_change: 5, compaction: 2 },
		headerExtra: {
			provider: "anthropic",
			modelId: "claude-opus-4-5",
			thinkingLevel: "off",
			branchedFrom: expect.stringMatching(/\.jsonl$/),
		},
		keptIndexes: [293, 551],
	},
];

const present = FILES.every((f) => existsSync(join(dir, f.name)));

const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const withoutTools = ({ activeToolNames: _tools, ...rest }: SessionContext) => rest;

if (!present && process.env.CI) {
	describe("real pi files", () => {
		it("are present in CI", () => {
			expect.fail(
				`The real pi session files are missing from ${dir} (expected ${FILES.map((f) => f.name).join(", ")}). ` +
					"CI must provide them: check out ../shared/fixtures/pi beside the repo or set PI_FIXTURES_DIR.",
			);
		});
	});
}

describe.skipIf(!present)(present ? "real pi files" : "real pi files (set PI_FIXTURES_DIR)", () => {
	let temp: string;
	beforeAll(() => {
		temp = mkdtempSync(join(tmpdir(), "pi-fixtures-"));
	});
	afterAll(() => {
		if (temp) rmSync(temp, { recursive: true, force: true });
	});

	/** pi's reading of the file; pi rewrites a file it migrates, so it opens a copy. */
	function openWithPi(file: RealFile): SessionManager {
		const copy = join(temp, file.name);
		copyFileSync(join(dir, file.name), copy);
		return SessionManager.open(copy, temp);
	}

	describe.each(FILES)("$name", (file) => {
		let text: string;
		let store: MemoryStore;
		let sessionId: string;
		let pi: SessionManager;

		beforeAll(async () => {
			text = readFileSync(join(dir, file.name), "utf8");
			store = new MemoryStore();
			sessionId = (await store.importSession(WS, text)).sessionId;
			pi = openWithPi(file);
		});
		afterAll(async () => {
			await store?.close();
		});

		it("imports every line as one entry, with the counts of the README", async () => {
			const session = await store.getSession(WS, sessionId);
			const entries = file.lines - 1;
			expect(session).toMatchObject({ entryCount: entries, lastSeq: entries, headerExtra: file.headerExtra });
			for (const [type, count] of Object.entries(file.counts)) {
				expect(await store.countEntries(WS, sessionId, [type as EntryType]), type).toBe(count);
			}
			expect(pi.getEntries()).toHaveLength(entries);
		});

		it("puts the pointer on the last entry, as pi does", async () => {
			const session = await store.getSession(WS, sessionId);
			const [last] = await store.listEntries(WS, sessionId, { limit: 1, fromEnd: true });
			expect(last?.seq).toBe(file.lines - 1);
			expect(session?.leafId).toBe(last?.entry.id);
			const piEntries = pi.getEntries();
			expect(pi.getLeafId()).toBe(piEntries[piEntries.length - 1]?.id);
			// the active path is the whole chain
			const path = await store.activePath(WS, sessionId, { full: true });
			expect(path.map((e) => e.seq)).toEqual(piEntries.map((_, i) => i + 1));
			expect(pi.getBranch()).toHaveLength(path.length);
		});

		it("keeps the compactions' firstKeptEntryIndex as the ids pi gives", async () => {
			const compactions = await store.listEntries(WS, sessionId, { types: ["compaction"] });
			const kept = await Promise.all(
				compactions.map(async (c) => {
					const id = (c.entry as { firstKeptEntryId?: string }).firstKeptEntryId;
					return id === undefined ? undefined : (await store.getEntry(WS, sessionId, id))?.seq;
				}),
			);
			// header = index 0, so index n is the entry at seq n
			expect(kept).toEqual(file.keptIndexes);
			const piEntries = pi.getEntries();
			const piKept = piEntries
				.filter((e) => e.type === "compaction")
				.map(
					(c) =>
						piEntries.findIndex((e) => e.id === (c as { firstKeptEntryId?: string }).firstKeptEntryId) + 1,
				);
			expect(piKept).toEqual(file.keptIndexes);
		});

		it("gives the context pi builds", async () => {
			const ours = await store.context(WS, sessionId);
			const theirs = asJson(pi.buildSessionContext());
			expect(theirs.messages[0]?.role).toBe(file.keptIndexes.length > 0 ? "compactionSummary" : "user");
			expect(asJson(withoutTools(ours))).toEqual(theirs);
			expect(ours.activeToolNames).toBeNull();
		});

		it("bounds the active path at the latest compaction's kept entry", async () => {
			const bounded = await store.activePath(WS, sessionId);
			const start = file.keptIndexes.length === 0 ? 1 : Math.max(...file.keptIndexes);
			expect(bounded[0]?.seq).toBe(start);
			expect(bounded.at(-1)?.seq).toBe(file.lines - 1);
		});

		it("exports version 3 that re-imports to the same tree, pointer and context", async () => {
			const exported = await store.exportSession(WS, sessionId);
			const header = JSON.parse(exported.slice(0, exported.indexOf("\n")));
			expect(header).toMatchObject({ type: "session", version: 3, id: sessionId, ...file.headerExtra });

			const other = new MemoryStore();
			const again = await other.importSession(WS, exported);
			const original = await store.getSession(WS, sessionId);
			expect(again).toMatchObject({
				sessionId,
				leafId: original?.leafId,
				entryCount: original?.entryCount,
				cwd: original?.cwd,
				createdAt: original?.createdAt,
				headerExtra: original?.headerExtra,
			});
			expect(await other.listEntries(WS, sessionId)).toEqual(await store.listEntries(WS, sessionId));
			expect(await other.context(WS, sessionId)).toEqual(await store.context(WS, sessionId));
			expect(await other.exportSession(WS, sessionId)).toBe(exported);
		});
	});
});
