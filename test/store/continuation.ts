/**
 * Continuing a session from its pi file (store/continuation.ts), on every
 * backend (part of the conformance suite): a file pi keeps appending to is
 * taken line by line, or whole, each line stored once; pi's moves back
 * become leaf records; an export pi resumed is taken back into the same
 * session; a file that no longer matches the session is a coded conflict
 * naming its line, and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionStore } from "../../src/store/store.js";
import { rejectsWithCode } from "../support/expect.js";
import { SessionManager } from "../support/pi-oracle.js";
import {
	asJson,
	comparableContext,
	fileText,
	jsonLines,
	piAssistant,
	piDirectory,
	piUsage,
	piUser,
	readWithPi,
} from "../support/pi-sessions.js";

/** The lines of a file after its first `skip` lines (the header counts), as text. */
const linesAfter = (text: string, skip: number) =>
	`${text
		.split("\n")
		.filter((line) => line.trim() !== "")
		.slice(skip)
		.join("\n")}\n`;

export function continuationSuite(store: () => SessionStore, workspace: () => string): void {
	let pi: ReturnType<typeof piDirectory>;
	beforeAll(() => {
		pi = piDirectory();
	});
	afterAll(() => pi?.dispose());

	/** The service's session equals pi's file: its export line by line, its leaf and context as pi reads them. */
	async function expectLikePiFile(ws: string, sessionId: string, file: string) {
		const text = fileText(file);
		expect(jsonLines(await store().exportSession(ws, sessionId))).toEqual(jsonLines(text));
		const read = readWithPi(pi.dir, text);
		expect((await store().getSession(ws, sessionId))?.leafId).toBe(read.leafId);
		expect(comparableContext(await store().context(ws, sessionId))).toEqual(asJson(read.context));
	}

	describe("continuing a session from its pi file", () => {
		it("takes a file pi keeps appending to, whole or line by line, storing each line once", async () => {
			const ws = workspace();
			const s = store();
			const writer = SessionManager.create("/work/follow", pi.dir);
			writer.appendMessage(piUser("u1"));
			writer.appendMessage(piAssistant("a1", piUsage(1, 1, 0, 0, 0.125)));
			const file = writer.getSessionFile() as string;
			const first = await s.continueSession(ws, { jsonl: fileText(file) });
			expect(first).toMatchObject({ created: true, appended: 2, held: 0, lastSeq: 2 });
			const { sessionId } = first;
			// The same file again: nothing new, nothing written.
			expect(await s.continueSession(ws, { jsonl: fileText(file) })).toMatchObject({
				created: false,
				appended: 0,
				held: 2,
				lastSeq: 2,
			});
			writer.appendMessage(piUser("u2"));
			writer.appendThinkingLevelChange("high");
			// The whole file again: the two new lines.
			expect(await s.continueSession(ws, { jsonl: fileText(file) })).toMatchObject({
				appended: 2,
				held: 2,
				lastSeq: 4,
			});
			await expectLikePiFile(ws, sessionId, file);
			// Line by line: the lines after the last one sent, and a repeat of them.
			const u3 = writer.appendMessage(piUser("u3"));
			writer.appendMessage(piAssistant("a3", piUsage(2, 2, 0, 0, 0.25)));
			const last = (await s.getSession(ws, sessionId))?.leafId as string;
			const lines = linesAfter(fileText(file), 5);
			const input = { sessionId, afterEntryId: last, jsonl: lines };
			expect(await s.continueSession(ws, input)).toMatchObject({ appended: 2, held: 0, lastSeq: 6 });
			expect(await s.continueSession(ws, input)).toMatchObject({ appended: 0, held: 2, lastSeq: 6 });
			// Lines the session holds already, sent again from an earlier entry: held, not doubled.
			expect(
				await s.continueSession(ws, { sessionId, afterEntryId: u3, jsonl: linesAfter(fileText(file), 6) }),
			).toMatchObject({ appended: 0, held: 1 });
			expect(
				await s.continueSession(ws, { sessionId, afterEntryId: null, jsonl: linesAfter(fileText(file), 1) }),
			).toMatchObject({ appended: 0, held: 6 });
			await expectLikePiFile(ws, sessionId, file);
		});

		it("records pi's moves back as leaf records before the entry that made them", async () => {
			const ws = workspace();
			const s = store();
			const writer = SessionManager.create("/work/follow", pi.dir);
			const u1 = writer.appendMessage(piUser("u1"));
			writer.appendMessage(piAssistant("a1", piUsage(1, 1, 0, 0, 0)));
			const file = writer.getSessionFile() as string;
			const { sessionId } = await s.continueSession(ws, { jsonl: fileText(file) });
			writer.branch(u1);
			const a2 = writer.appendMessage(piAssistant("a2", piUsage(1, 1, 0, 0, 0)));
			writer.resetLeaf();
			const root = writer.appendMessage(piUser("again"));
			writer.branchWithSummary(a2, "went back", undefined, false);
			const continuedSession = await s.continueSession(ws, { jsonl: fileText(file) });
			// Three lines; a leaf record before each: a2 (to u1), the new root (to null), the summary (to a2).
			expect(continuedSession).toMatchObject({ appended: 3, lastSeq: 8 });
			const log = await s.listEntries(ws, sessionId);
			expect(log.map((e) => [e.entry.type, e.entry.type === "leaf" ? e.entry.targetId : e.entry.id])).toEqual(
				[
					["message", u1],
					["message", expect.any(String)],
					["leaf", u1],
					["message", a2],
					["leaf", null],
					["message", root],
					["leaf", a2],
					["branch_summary", expect.any(String)],
				],
			);
			expect(log[5]?.depth).toBe(0);
			await expectLikePiFile(ws, sessionId, file);
		});

		it("takes back an export pi resumed: the anchor and pi's lines, into the same session", async () => {
			const ws = workspace();
			const s = store();
			const { sessionId } = await s.createSession(ws, { cwd: "/work/resume" });
			const u1 = (await s.appendEntry(ws, sessionId, { type: "message", message: piUser("u1") })).entry.entry
				.id;
			await s.appendEntry(ws, sessionId, {
				type: "message",
				message: piAssistant("a1", piUsage(1, 1, 0, 0, 0)),
			});
			await s.moveLeaf(ws, sessionId, { targetId: u1 });
			const read = readWithPi(pi.dir, await s.exportSession(ws, sessionId), "resumed.jsonl");
			read.manager.appendMessage(piAssistant("a2 from pi", piUsage(1, 1, 0, 0, 0)));
			read.manager.appendMessage(piUser("u3 from pi"));
			expect(await s.continueSession(ws, { jsonl: fileText(read.file) })).toMatchObject({
				appended: 3,
				held: 2,
			});
			await expectLikePiFile(ws, sessionId, read.file);
		});

		it("takes a harness file's lines, leaf records and all, as they are", async () => {
			const ws = workspace();
			const s = store();
			const lines = [
				{
					type: "message",
					id: "u1",
					parentId: null,
					timestamp: "2026-11-20T10:00:00.000Z",
					message: piUser("u1"),
				},
				{
					type: "message",
					id: "a1",
					parentId: "u1",
					timestamp: "2026-11-20T10:00:01.000Z",
					message: piUser("a1"),
				},
				{ type: "leaf", id: "m1", parentId: "a1", timestamp: "2026-11-20T10:00:02.000Z", targetId: "u1" },
				{
					type: "message",
					id: "a2",
					parentId: "u1",
					timestamp: "2026-11-20T10:00:03.000Z",
					message: piUser("a2"),
				},
			];
			const header = {
				type: "session",
				version: 3,
				id: "harness-file",
				timestamp: "2026-11-20T10:00:00.000Z",
				cwd: "/h",
			};
			const text = (n: number) =>
				`${[header, ...lines.slice(0, n)].map((l) => JSON.stringify(l)).join("\n")}\n`;
			await s.continueSession(ws, { jsonl: text(2) });
			expect(await s.continueSession(ws, { jsonl: text(4) })).toMatchObject({ appended: 2, leafId: "a2" });
			expect((await s.listEntries(ws, "harness-file")).map((e) => e.entry)).toEqual(lines);
		});

		it("takes a file's lines as an import of the whole file takes them, whatever pieces they come in", async () => {
			const [whole, pieces] = [workspace(), workspace()];
			const s = store();
			const at = (n: number) => `2026-11-20T10:00:0${n}.000Z`;
			const header = { type: "session", version: 3, id: "pieces", timestamp: at(0), cwd: "/p" };
			const lines = [
				{ type: "message", id: "u1", parentId: null, timestamp: at(1), message: piUser("u1") },
				{ type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: piUser("a1") },
				// An orphan (older pi's forks left them): a root, as pi and an import read it.
				{ type: "message", id: "o1", parentId: "ghost", timestamp: at(3), message: piUser("o1") },
				{ type: "message", id: "b1", parentId: "o1", timestamp: at(4), message: piUser("b1") },
				{ type: "label", id: "l1", parentId: "b1", timestamp: at(5), targetId: "a1", label: "kept" },
			];
			const text = [header, ...lines].map((line) => JSON.stringify(line)).join("\n");
			await s.importSession(whole, `${text}\n`);
			await s.continueSession(pieces, { jsonl: `${text.split("\n").slice(0, 3).join("\n")}\n` });
			expect(
				await s.continueSession(pieces, {
					sessionId: "pieces",
					afterEntryId: "a1",
					jsonl: `${text.split("\n").slice(3).join("\n")}\n`,
				}),
			).toMatchObject({ appended: 3, leafId: "l1" });
			expect(jsonLines(await s.exportSession(pieces, "pieces"))).toEqual(jsonLines(text));
			const [one, other] = await Promise.all([whole, pieces].map((ws) => s.getSession(ws, "pieces")));
			expect(other).toMatchObject({ leafId: one?.leafId, leafDepth: one?.leafDepth });
			expect(await s.context(pieces, "pieces")).toEqual(await s.context(whole, "pieces"));
			const depths = async (ws: string) =>
				(await s.listEntries(ws, "pieces")).filter((e) => e.entry.type !== "leaf").map((e) => e.depth);
			expect(await depths(pieces)).toEqual(await depths(whole));
		});

		it("refuses the lines an import of the whole file refuses, with the same code, writing nothing", async () => {
			const ws = workspace();
			const s = store();
			const at = (n: number) => `2026-11-20T10:00:0${n}.000Z`;
			const header = { type: "session", version: 3, id: "refused", timestamp: at(0), cwd: "/r" };
			const held = [
				{ type: "message", id: "u1", parentId: null, timestamp: at(1), message: piUser("u1") },
				{ type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: piUser("a1") },
				{ type: "leaf", id: "m1", parentId: "a1", timestamp: at(3), targetId: "u1" },
			];
			const asText = (entries: readonly object[]) => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
			await s.continueSession(ws, { jsonl: asText([header, ...held]) });
			const before = await s.listEntries(ws, "refused");
			const message = (id: string, parentId: string) => ({
				type: "message",
				id,
				parentId,
				timestamp: at(4),
				message: piUser(id),
			});
			const refused: Array<[string, object[]]> = [
				[
					"a label of a leaf record",
					[{ type: "label", id: "l1", parentId: "u1", timestamp: at(4), targetId: "m1", label: "x" }],
				],
				["a node under a leaf record", [message("x1", "m1")]],
				[
					"a move to no entry",
					[{ type: "leaf", id: "m2", parentId: "u1", timestamp: at(4), targetId: "nowhere" }],
				],
				["a parent defined later", [message("x2", "x3"), message("x3", "u1")]],
			];
			for (const [what, lines] of refused) {
				const imported = await rejectsWithCode(
					s.importSession(workspace(), asText([header, ...held, ...lines])),
					"INVALID_INPUT",
				);
				const continuedError = await rejectsWithCode(
					s.continueSession(ws, { sessionId: "refused", afterEntryId: "m1", jsonl: asText(lines) }),
					"INVALID_INPUT",
				);
				expect(continuedError.message, what).toMatch(/^line \d+: /);
				expect(imported.message, what).toMatch(/^line \d+: /);
			}
			expect(await s.listEntries(ws, "refused")).toEqual(before);
		});

		it("two followers sending the same lines at once store them once", async () => {
			const ws = workspace();
			const s = store();
			const writer = SessionManager.create("/work/follow", pi.dir);
			writer.appendMessage(piUser("u1"));
			for (let i = 0; i < 20; i++) writer.appendMessage(piUser(`line ${i}`));
			const text = fileText(writer.getSessionFile() as string);
			const results = await Promise.all([1, 2, 3].map(() => s.continueSession(ws, { jsonl: text })));
			expect(results.filter((r) => r.created)).toHaveLength(1);
			expect(results.map((r) => r.appended + r.held)).toEqual([21, 21, 21]);
			expect(results.reduce((n, r) => n + r.appended, 0)).toBe(21);
			const { sessionId } = results[0] as { sessionId: string };
			expect(await s.countEntries(ws, sessionId)).toBe(21);
		});

		it("two followers sending a new file as each read it, one before pi's last lines, store it whole", async () => {
			const ws = workspace();
			const s = store();
			const writer = SessionManager.create("/work/follow", pi.dir);
			writer.appendMessage(piUser("u1"));
			for (let i = 0; i < 20; i++) writer.appendMessage(piUser(`line ${i}`));
			const whole = fileText(writer.getSessionFile() as string);
			const earlier = `${whole.split("\n").slice(0, 11).join("\n")}\n`;
			const results = await Promise.all(
				[earlier, whole, earlier].map((jsonl) => s.continueSession(ws, { jsonl })),
			);
			expect(results.filter((r) => r.created)).toHaveLength(1);
			expect(results.reduce((n, r) => n + r.appended, 0)).toBe(21);
			const { sessionId } = results[1] as { sessionId: string };
			expect(await s.countEntries(ws, sessionId)).toBe(21);
		});

		it("is a coded conflict naming the line when the file no longer matches, and writes nothing", async () => {
			const ws = workspace();
			const s = store();
			const writer = SessionManager.create("/work/follow", pi.dir);
			writer.appendMessage(piUser("u1"));
			writer.appendMessage(piUser("u2"));
			const text = fileText(writer.getSessionFile() as string);
			const { sessionId } = await s.continueSession(ws, { jsonl: text });
			const before = await s.listEntries(ws, sessionId);
			// Rewritten differently: its second entry is another.
			const rewritten = text.replace('"content":"u2"', '"content":"u2, edited"');
			const error = await rejectsWithCode(
				s.continueSession(ws, { jsonl: rewritten }),
				"ALREADY_EXISTS",
				"jsonl",
			);
			expect(error.message).toMatch(/^line 3: the file no longer matches the stored session/);
			// The line named is the text's own: blank lines count.
			const [, u1Line, u2Line] = rewritten.split("\n");
			const blank = await rejectsWithCode(
				s.continueSession(ws, { sessionId, afterEntryId: null, jsonl: `${u1Line}\n\n${u2Line}\n` }),
				"ALREADY_EXISTS",
				"jsonl",
			);
			expect(blank.message).toMatch(/^line 3: /);
			// Written to through the API, then pi wrote on: pi's line is where they part.
			await s.appendEntry(ws, sessionId, { type: "message", message: piUser("from the API") });
			writer.appendMessage(piUser("u3"));
			const after = await s.listEntries(ws, sessionId);
			await rejectsWithCode(
				s.continueSession(ws, { jsonl: fileText(writer.getSessionFile() as string) }),
				"ALREADY_EXISTS",
				"jsonl",
			);
			await rejectsWithCode(
				s.continueSession(ws, {
					sessionId,
					afterEntryId: before[1]?.entry.id as string,
					jsonl: linesAfter(fileText(writer.getSessionFile() as string), 3),
				}),
				"ALREADY_EXISTS",
				"jsonl",
			);
			// Another header under the same id.
			await rejectsWithCode(
				s.continueSession(ws, { jsonl: text.replace('"cwd":"/work/follow"', '"cwd":"/elsewhere"') }),
				"ALREADY_EXISTS",
				"jsonl",
			);
			expect(await s.listEntries(ws, sessionId)).toEqual(after);
			expect(after).toHaveLength(before.length + 1);
		});

		it("refuses what is not a continuation with a code, writing nothing", async () => {
			const ws = workspace();
			const s = store();
			const writer = SessionManager.create("/work/follow", pi.dir);
			const u1 = writer.appendMessage(piUser("u1"));
			const text = fileText(writer.getSessionFile() as string);
			const { sessionId } = await s.continueSession(ws, { jsonl: text });
			const before = await s.listEntries(ws, sessionId);
			const line = (fields: Record<string, unknown>) =>
				`${JSON.stringify({ type: "message", id: "n1", timestamp: "2026-11-20T10:00:00.000Z", message: piUser("n"), ...fields })}\n`;
			await rejectsWithCode(
				s.continueSession(ws, { sessionId, afterEntryId: "nope", jsonl: line({ parentId: u1 }) }),
				"NOT_FOUND",
				"afterEntryId",
			);
			await rejectsWithCode(
				s.continueSession(ws, { sessionId: "missing", afterEntryId: null, jsonl: line({ parentId: null }) }),
				"NOT_FOUND",
				"sessionId",
			);
			await rejectsWithCode(
				s.continueSession(ws, {
					sessionId,
					afterEntryId: u1,
					jsonl: `${line({ parentId: u1 }).slice(0, 30)}\n`,
				}),
				"INVALID_INPUT",
			);
			await rejectsWithCode(
				s.continueSession(ws, { jsonl: line({ parentId: u1 }), afterEntryId: u1 }),
				"INVALID_INPUT",
				"sessionId",
			);
			await rejectsWithCode(
				s.continueSession(ws, { jsonl: line({ parentId: u1 }), sessionId }),
				"INVALID_INPUT",
				"afterEntryId",
			);
			await rejectsWithCode(
				s.continueSession(ws, { jsonl: text, afterEntryId: u1 }),
				"INVALID_INPUT",
				"afterEntryId",
			);
			await rejectsWithCode(
				s.continueSession(ws, { sessionId, afterEntryId: u1, jsonl: line({ id: u1, parentId: u1 }) }),
				"ALREADY_EXISTS",
				"jsonl",
			);
			expect(await s.listEntries(ws, sessionId)).toEqual(before);
		});
	});
}
