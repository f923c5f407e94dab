/**
 * Today's pi, on every backend (part of the conformance suite): files pi's
 * coding agent 1.6.0 writes with every entry type it has (usage entries,
 * context edits, system messages, compactions with a system checkpoint and
 * usage, summaries with usage) and types the service does not know import,
 * project, total and export as pi itself reads them; exports in the default
 * form open in pi with the pointer's leaf and context, and pi's next entry
 * continues them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DraftEntry } from "../../src/session/entry.js";
import { LEAF_ANCHOR_TYPE } from "../../src/session/export.js";
import { readSessionStats } from "../../src/store/analytics/session-stats.js";
import type { SessionStore } from "../../src/store/store.js";
import { rejectsWithCode } from "../support/expect.js";
import { harnessReader, JsonlSessionStorage, Session } from "../support/pi-harness.js";
import { buildSessionContext, getUsageCostBreakdown, SessionManager } from "../support/pi-oracle.js";
import {
	appendUnknownLine,
	asJson,
	comparableContext,
	fileText,
	jsonLines,
	piAssistant,
	piDirectory,
	piSystem,
	piUsage,
	piUser,
	readWithPi,
} from "../support/pi-sessions.js";

/** pi's totals of some entries: its cost breakdown adds what its session stats add. */
function piTotals(entries: readonly unknown[]) {
	const rows = getUsageCostBreakdown(entries as never);
	return { tokens: rows.reduce((n, r) => n + r.tokens, 0), cost: rows.reduce((n, r) => n + r.cost, 0) };
}

/**
 * A session pi 1.6.0 writes with every entry type it has, a branch made by
 * `branchWithSummary`, one by `branch` (which pi records only by the next
 * entry's parent), and a line of a type pi does not know, which pi reopened
 * on the file takes as its leaf and continues under.
 */
function writeRichSession(dir: string): { file: string; u1: string; a1: string; u2: string } {
	let pi = SessionManager.create("/work/pi-today", dir);
	pi.appendModelChange("anthropic", "claude-sonnet-4-5");
	pi.appendThinkingLevelChange("medium");
	const u1 = pi.appendMessage(piUser("u1"));
	pi.appendMessage(
		piSystem("Be brief.", {
			sections: { rules: "<rules>no emoji</rules>" },
			toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object" } }],
		}),
	);
	const a1 = pi.appendMessage(
		piAssistant("a1", piUsage(10, 20, 300, 40, 0.25), { responseModel: "claude-sonnet-4-5-20250929" }),
	);
	pi.appendMessage({
		role: "toolResult",
		toolCallId: "c1",
		toolName: "ask_model",
		content: [{ type: "text", text: "answer" }],
		isError: false,
		usage: piUsage(1, 2, 0, 0, 0.125),
		timestamp: 4,
	} as never);
	pi.appendUsage("cache_warm", "anthropic", "claude-haiku-4-5", piUsage(0, 0, 500, 0, 0.0625), "warmed");
	pi.appendContextEdit(u1, { content: "u1 (edited)" });
	pi.appendCustomEntry("my-extension", { n: 1 });
	pi.appendCustomMessageEntry("note", "for the model", true, { x: 1 });
	const u2 = pi.appendMessage(piUser("u2"));
	pi.appendLabelChange(u1, "start");
	pi.appendSessionInfo("Two\r\n\r\nlines ");
	pi.appendCompaction(
		"what came before",
		u1,
		12_345,
		{ readFiles: ["a.ts"] },
		false,
		piUsage(5, 6, 0, 0, 0.5),
	);
	const a2 = pi.appendMessage(piAssistant("a2", piUsage(3, 4, 0, 0, 0.125)));
	pi.appendContextEdit(a2, null);
	pi.branchWithSummary(a1, "left the compaction behind", { files: [] }, true, piUsage(2, 2, 0, 0, 0.25));
	pi.appendMessage(piUser("u3"));
	pi.branch(u2);
	pi.appendMessage(piAssistant("a3", piUsage(1, 1, 1, 1, 0.125)));
	pi = appendUnknownLine(pi, {
		type: "checkpoint",
		id: "ck1",
		files: ["a.ts"],
		nested: { keep: [1, "two"] },
	});
	pi.appendMessage(piUser("after the checkpoint"));
	return { file: pi.getSessionFile() as string, u1, a1, u2 };
}

export function piTodaySuite(store: () => SessionStore, workspace: () => string): void {
	let pi: ReturnType<typeof piDirectory>;
	beforeAll(() => {
		pi = piDirectory();
	});
	afterAll(() => pi?.dispose());

	describe("today's pi (1.6.0)", () => {
		it("imports a file pi writes with every entry type: the tree, leaf, context, name and totals are pi's", async () => {
			const ws = workspace();
			const { file, u1, u2 } = writeRichSession(pi.dir);
			const text = fileText(file);
			const imported = await store().importSession(ws, text);
			const ours = store();
			const piRead = readWithPi(pi.dir, text);
			const log = await ours.listEntries(ws, imported.sessionId);

			// The log is the file's lines, each as pi wrote it (the unknown type's fields too).
			expect(log.map((e) => asJson(e.entry))).toEqual(jsonLines(text).slice(1));
			expect(log.find((e) => e.entry.id === "ck1")?.entry).toEqual({
				type: "checkpoint",
				id: "ck1",
				parentId: expect.any(String),
				timestamp: expect.any(String),
				files: ["a.ts"],
				nested: { keep: [1, "two"] },
			});
			expect(imported.leafId).toBe(piRead.leafId);
			expect(imported.name).toBe(piRead.name);
			expect(comparableContext(await ours.context(ws, imported.sessionId))).toEqual(asJson(piRead.context));
			for (const from of [u1, u2, "ck1", ...log.map((e) => e.entry.id).filter((_, i) => i % 3 === 0)]) {
				expect(comparableContext(await ours.context(ws, imported.sessionId, { fromId: from })), from).toEqual(
					asJson(buildSessionContext(piRead.entries, from)),
				);
			}
			// An unknown type is a tree node: a parent, a tip's ancestor, on the active path.
			const children = await ours.children(ws, imported.sessionId, ["ck1"]);
			expect(children.get("ck1")?.map((e) => e.entry.type)).toEqual(["message"]);
			const path = await ours.activePath(ws, imported.sessionId, { full: true });
			expect(path.map((e) => e.entry.id)).toEqual(piRead.manager.getBranch().map((e) => e.id));

			// Totals as pi counts them: assistant messages, the tool result's, the summaries', the usage entry's.
			const stats = await readSessionStats(ours, ws, imported.sessionId);
			const pis = piTotals(piRead.entries);
			expect(stats.tree.totalTokens).toBe(pis.tokens);
			expect(stats.tree.cost).toBeCloseTo(pis.cost, 12);
			const onPath = piTotals(piRead.manager.getBranch());
			expect(stats.path.totalTokens).toBe(onPath.tokens);
			expect(stats.path.cost).toBeCloseTo(onPath.cost, 12);

			// The export is the file again, line by line; pi reads it as it read the file.
			const exported = await ours.exportSession(ws, imported.sessionId);
			expect(jsonLines(exported)).toEqual(jsonLines(text));
			const again = readWithPi(pi.dir, exported);
			expect(again.leafId).toBe(piRead.leafId);
			expect(asJson(again.context)).toEqual(asJson(piRead.context));
			// …and a re-import of either form is the same import.
			expect((await ours.importSession(ws, exported)).created).toBe(false);
			const lossless = await ours.exportSession(ws, imported.sessionId, { format: "lossless" });
			expect((await ours.importSession(ws, lossless)).created).toBe(false);
		});

		it("projects the context as pi 1.6 does: system checkpoint first, kept system messages dropped, edits applied", async () => {
			const ws = workspace();
			const writer = SessionManager.create("/work/context", pi.dir);
			const u1 = writer.appendMessage(piUser("u1"));
			writer.appendMessage(piSystem("Answer in French."));
			const a1 = writer.appendMessage(piAssistant("a1", piUsage(1, 1, 0, 0, 0)));
			writer.appendContextEdit(u1, { content: "u1 (edited)" });
			writer.appendMessage(piUser("u2"));
			writer.appendCompaction("summary", u1, 100);
			const text = fileText(writer.getSessionFile() as string);
			const { sessionId } = await store().importSession(ws, text);
			const context = comparableContext(await store().context(ws, sessionId));
			expect(context).toEqual(asJson(readWithPi(pi.dir, text).context));
			// The service's answer before pi 1.6: compactionSummary, "u1", a1, u2.
			expect(
				context.messages.map((m) => [
					m.role,
					typeof m.content === "string" ? m.content : (m.summary ?? m.content),
				]),
			).toEqual([
				["system", "Answer in French."],
				["compactionSummary", "summary"],
				["user", "u1 (edited)"],
				["assistant", [{ type: "text", text: "a1" }]],
				["user", "u2"],
			]);
			expect(a1).toBeTruthy();
		});

		it("exports what pi resumes on the pointer's branch: after moves with and without a summary, and to the root", async () => {
			const ws = workspace();
			const s = store();
			const { sessionId } = await s.createSession(ws, { cwd: "/work/resume" });
			const step = async (draft: DraftEntry) => (await s.appendEntry(ws, sessionId, draft)).entry.entry.id;
			const u1 = await step({ type: "message", message: piUser("u1") });
			const a1 = await step({ type: "message", message: piAssistant("a1", piUsage(1, 1, 0, 0, 0)) });
			await step({ type: "message", message: piUser("u2") });

			const resumeAfter = async (move: () => Promise<unknown>) => {
				await move();
				const session = await s.getSession(ws, sessionId);
				const ours = comparableContext(await s.context(ws, sessionId));
				const exported = await s.exportSession(ws, sessionId);
				expect(exported).not.toContain('"type":"leaf"');
				const read = readWithPi(pi.dir, exported);
				// pi's leaf is the pointer, or an anchor right under it that adds nothing to the context.
				const leaf = read.manager.getLeafEntry();
				if (read.leafId !== session?.leafId) {
					expect(leaf).toMatchObject({
						type: "custom",
						customType: LEAF_ANCHOR_TYPE,
						parentId: session?.leafId,
					});
				}
				expect(asJson(read.context)).toEqual(ours);
				// pi's next entry continues the pointer's branch, and the file is one the service takes.
				const next = read.manager.appendMessage(piUser("from pi"));
				const continued = fileText(read.file);
				expect(read.manager.getEntry(next)?.parentId).toBe(read.leafId);
				const taken = await s.importSession(ws, continued, { sessionId: `${sessionId}-${next}` });
				expect(taken.leafId).toBe(next);
				expect(comparableContext(await s.context(ws, taken.sessionId))).toEqual(
					asJson(readWithPi(pi.dir, continued).context),
				);
				const path = await s.activePath(ws, taken.sessionId, { full: true });
				expect(path.map((e) => e.entry.id)).toEqual(read.manager.getBranch().map((e) => e.id));
				// The harness replays the lossless form to the same pointer and context.
				const lossless = join(pi.dir, `lossless-${next}.jsonl`);
				writeFileSync(lossless, await s.exportSession(ws, sessionId, { format: "lossless" }));
				const storage = await JsonlSessionStorage.open(harnessReader, lossless);
				const harness = new Session(storage);
				expect(await harness.getLeafId()).toBe(session?.leafId);
				expect(comparableContext(await harness.buildContext())).toEqual(ours);
				// Both forms re-import as the same session.
				expect((await s.importSession(ws, exported)).created).toBe(false);
			};
			await resumeAfter(() => s.moveLeaf(ws, sessionId, { targetId: a1 }));
			await resumeAfter(() =>
				s.moveLeaf(ws, sessionId, { targetId: u1, summary: { summary: "back to u1" } }),
			);
			await resumeAfter(() => s.moveLeaf(ws, sessionId, { targetId: null }));
			await resumeAfter(() =>
				s.moveLeaf(ws, sessionId, { targetId: null, summary: { summary: "from scratch" } }),
			);
			// Two exports of the same log are the same file (the anchor is made from the log).
			await s.moveLeaf(ws, sessionId, { targetId: u1 });
			expect(await s.exportSession(ws, sessionId)).toBe(await s.exportSession(ws, sessionId));
		});

		it("appends pi 1.6's entry types through the store: usage, context edits, and types it does not know", async () => {
			const ws = workspace();
			const s = store();
			const { sessionId } = await s.createSession(ws);
			const u1 = (await s.appendEntry(ws, sessionId, { type: "message", message: piUser("long question") }))
				.entry;
			const usage = piUsage(0, 0, 900, 0, 0.01);
			await s.appendEntry(ws, sessionId, {
				type: "usage",
				kind: "cache_warm",
				provider: "anthropic",
				model: "claude-haiku-4-5",
				usage,
			});
			await s.appendEntry(ws, sessionId, {
				type: "context_edit",
				targetId: u1.entry.id,
				replacement: { content: "short question" },
			});
			const other = await s.appendEntry(ws, sessionId, { type: "checkpoint", files: ["x"] } as DraftEntry);
			expect(other.entry.entry).toMatchObject({
				type: "checkpoint",
				files: ["x"],
				parentId: expect.any(String),
			});
			const context = await s.context(ws, sessionId);
			expect(context.messages).toEqual([{ role: "user", content: "short question", timestamp: 1 }]);
			expect((await readSessionStats(s, ws, sessionId)).tree).toMatchObject({
				cacheReadTokens: 900,
				cost: 0.01,
			});
			// "other" keeps every type the service does not know.
			expect((await s.listEntries(ws, sessionId, { types: ["other"] })).map((e) => e.entry.type)).toEqual([
				"checkpoint",
			]);
			expect(await s.countEntries(ws, sessionId, ["other", "usage"])).toBe(2);
			// An unknown entry is a node: a leaf target, a label target.
			await s.moveLeaf(ws, sessionId, { targetId: other.entry.entry.id });
			await s.setLabel(ws, sessionId, other.entry.entry.id, "here");
			expect(await s.labels(ws, sessionId, [other.entry.entry.id])).toEqual(
				new Map([[other.entry.entry.id, "here"]]),
			);
		});

		it("refuses a context edit of a missing entry or of a leaf record, writing nothing", async () => {
			const ws = workspace();
			const s = store();
			const { sessionId } = await s.createSession(ws);
			await s.appendEntry(ws, sessionId, { type: "message", message: piUser("u") });
			const move = await s.moveLeaf(ws, sessionId, { targetId: null });
			const before = await s.listEntries(ws, sessionId);
			const edit = (targetId: string): DraftEntry => ({ type: "context_edit", targetId, replacement: null });
			await rejectsWithCode(s.appendEntry(ws, sessionId, edit("missing")), "NOT_FOUND", "targetId");
			await rejectsWithCode(
				s.appendEntry(ws, sessionId, edit(move.leafEntry.entry.id)),
				"INVALID_INPUT",
				"targetId",
			);
			expect(await s.listEntries(ws, sessionId)).toEqual(before);
		});

		it("names a session on one line as pi does, and keeps a summary's usage and fromHook", async () => {
			const ws = workspace();
			const s = store();
			const { sessionId } = await s.createSession(ws);
			const renamed = await s.renameSession(ws, sessionId, "  Two\r\n\r\nlines\nhere  ");
			expect(renamed.entry.entry).toMatchObject({ name: "Two lines here" });
			expect(renamed.session.name).toBe("Two lines here");
			const u = await s.appendEntry(ws, sessionId, { type: "message", message: piUser("u") });
			const usage = piUsage(7, 3, 0, 0, 0.5);
			const moved = await s.moveLeaf(ws, sessionId, {
				targetId: u.entry.entry.id,
				summary: { summary: "s", usage, fromHook: true },
			});
			expect(moved.summaryEntry?.entry).toMatchObject({ fromId: u.entry.entry.id, usage, fromHook: true });
			expect((await readSessionStats(s, ws, sessionId)).tree).toMatchObject({ totalTokens: 10, cost: 0.5 });
		});
	});
}
