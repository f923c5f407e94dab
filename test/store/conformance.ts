/**
 * The store conformance suite: every behaviour of SessionStore, specified
 * once and run unchanged on memory, PGlite and Postgres. Each case works in
 * a workspace of its own, so cases never see each other's data.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MetricsQuery } from "../../src/session/analytics/metrics.js";
import type { DraftEntry, Entry, StoredEntry } from "../../src/session/entry.js";
import { stringifyWithRaw } from "../../src/session/raw-json.js";
import { replayLeaf } from "../../src/session/tree.js";
import { sessionQuery } from "../../src/store/session-query.js";
import type { ActivityRecord, SessionStore } from "../../src/store/store.js";
import { fidelityProperty } from "../fidelity/trials.js";
import { rejectsWithCode } from "../support/expect.js";
import { paidAnswer } from "../support/messages.js";
import { buildSessionContext, SessionManager } from "../support/pi-oracle.js";
import { piDirectory } from "../support/pi-sessions.js";
import { propertyRuns } from "../support/runs.js";
import { archiveSuite } from "./archive.js";
import type { Backend } from "./backends.js";
import { continuationSuite } from "./continuation.js";
import { deleteSuite } from "./delete.js";
import { metricsProperty } from "./metrics-property.js";
import { piTodaySuite } from "./pi-today.js";
import { randomTreeProperty } from "./random-trees.js";

export const fixture = (name: string) =>
	readFileSync(new URL(`../fixtures/pi-small/${name}`, import.meta.url), "utf8");

export const user = (text: string): DraftEntry => ({
	type: "message",
	message: { role: "user", content: text, timestamp: 1_764_000_000_000 },
});

export const assistant = (text: string, model = "claude-sonnet-4-5"): DraftEntry => ({
	type: "message",
	message: {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "anthropic",
		model,
		stopReason: "stop",
		timestamp: 1_764_000_000_001,
	},
});

/** Timestamps have millisecond resolution; this makes the next write's time differ from the last. */
async function nextMillisecond(): Promise<void> {
	const start = Date.now();
	while (Date.now() === start) await new Promise((resolve) => setImmediate(resolve));
}

const withId = (id: string, draft: DraftEntry): DraftEntry => ({ ...draft, id });

/** JSON equality, as a client sees it (undefined fields vanish). */
export const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function conformanceSuite(open: () => Promise<Backend>): void {
	let backend: Backend;
	const store = (): SessionStore => backend.store;
	const workspace = () => `ws-${randomBytes(5).toString("hex")}`;

	beforeAll(async () => {
		backend = await open();
	});
	afterAll(async () => {
		await backend?.dispose();
	});

	/** Everything a rejected write must leave untouched. */
	async function snapshot(ws: string, sessionId: string) {
		return {
			session: await store().getSession(ws, sessionId),
			log: await store().listEntries(ws, sessionId),
		};
	}

	async function expectPointerIsReplay(ws: string, sessionId: string) {
		const session = await store().getSession(ws, sessionId);
		const log = await store().listEntries(ws, sessionId);
		expect(session?.leafId).toBe(replayLeaf(log.map((e) => e.entry)));
		// The stored leaf depth places the next append without a lookup; it must match the leaf entry.
		const leaf = log.find((e) => e.entry.id === session?.leafId);
		expect(session?.leafDepth).toBe(leaf ? leaf.depth : null);
		expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
		expect(session?.lastSeq).toBe(log.length);
	}

	/** The seed example (design/tree-rules.md#the-seed-example): u1, a1, u2, a2, move to u1, a3. */
	async function seed(ws: string, sessionId = "seed") {
		const s = store();
		await s.createSession(ws, { sessionId });
		await s.appendEntry(ws, sessionId, withId("u1", user("u1")));
		await s.appendEntry(ws, sessionId, withId("a1", assistant("a1")));
		await s.appendEntry(ws, sessionId, withId("u2", user("u2")));
		await s.appendEntry(ws, sessionId, withId("a2", assistant("a2")));
		const move = await s.moveLeaf(ws, sessionId, { targetId: "u1" });
		await s.appendEntry(ws, sessionId, withId("a3", assistant("a3")));
		return { sessionId, move };
	}

	piTodaySuite(store, workspace);
	continuationSuite(store, workspace);
	archiveSuite(store, workspace);
	deleteSuite(store, workspace);

	describe("sessions", () => {
		it("creates a session with a generated UUIDv7 id and an empty pointer", async () => {
			const ws = workspace();
			const created = await store().createSession(ws, { cwd: "/tmp/x" });
			expect(created.sessionId).toMatch(
				/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
			);
			expect(created).toMatchObject({
				workspaceId: ws,
				leafId: null,
				lastSeq: 0,
				entryCount: 0,
				cwd: "/tmp/x",
				name: null,
			});
			expect(await store().getSession(ws, created.sessionId)).toEqual(created);
		});

		it("keeps a caller's session id and rejects a taken one, changing nothing", async () => {
			const ws = workspace();
			const first = await store().createSession(ws, { sessionId: "mine", name: "First" });
			await rejectsWithCode(
				store().createSession(ws, { sessionId: "mine", name: "Second" }),
				"ALREADY_EXISTS",
			);
			expect(await store().getSession(ws, "mine")).toEqual(first);
			expect(first.name).toBe("First");
		});

		it("rejects an empty session id", async () => {
			const ws = workspace();
			await rejectsWithCode(store().createSession(ws, { sessionId: "" }), "INVALID_INPUT", "sessionId");
			expect((await store().listSessions(ws, {})).totalCount).toBe(0);
		});

		it("scopes every call to the workspace", async () => {
			const ws = workspace();
			const other = workspace();
			await seed(ws, "private");
			expect(await store().getSession(other, "private")).toBeNull();
			expect((await store().listSessions(other, {})).items).toEqual([]);
			await rejectsWithCode(store().appendEntry(other, "private", user("intruder")), "NOT_FOUND");
			await rejectsWithCode(store().listEntries(other, "private"), "NOT_FOUND");
			await rejectsWithCode(store().activePath(other, "private"), "NOT_FOUND");
			await rejectsWithCode(store().context(other, "private"), "NOT_FOUND");
			await rejectsWithCode(store().tips(other, "private"), "NOT_FOUND");
			await rejectsWithCode(store().exportSession(other, "private"), "NOT_FOUND");
			await rejectsWithCode(store().getEntries(other, "private", ["u1"]), "NOT_FOUND");
			expect((await store().getSession(ws, "private"))?.lastSeq).toBe(6);
		});

		it("pages sessions newest activity first, forwards and backwards", async () => {
			const ws = workspace();
			for (const id of ["s1", "s2", "s3", "s4", "s5"]) {
				await store().createSession(ws, { sessionId: id });
				await nextMillisecond();
			}
			// Activity reorders: s2 becomes the most recently active.
			await store().appendEntry(ws, "s2", user("bump"));
			const all = await store().listSessions(ws, { first: 10 });
			expect(all.items.map((i) => i.node.sessionId)).toEqual(["s2", "s5", "s4", "s3", "s1"]);
			expect(all).toMatchObject({ totalCount: 5, hasNextPage: false, hasPreviousPage: false });

			const page1 = await store().listSessions(ws, { first: 2 });
			expect(page1.items.map((i) => i.node.sessionId)).toEqual(["s2", "s5"]);
			expect(page1.hasNextPage).toBe(true);
			const page2 = await store().listSessions(ws, { first: 2, after: page1.items[1]?.cursor ?? "" });
			expect(page2.items.map((i) => i.node.sessionId)).toEqual(["s4", "s3"]);
			expect(page2).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
			const page3 = await store().listSessions(ws, { first: 2, after: page2.items[1]?.cursor ?? "" });
			expect(page3.items.map((i) => i.node.sessionId)).toEqual(["s1"]);
			expect(page3.hasNextPage).toBe(false);
			const beyond = await store().listSessions(ws, { first: 2, after: page3.items[0]?.cursor ?? "" });
			expect(beyond.items).toEqual([]);
			expect(beyond.hasNextPage).toBe(false);

			const lastTwo = await store().listSessions(ws, { last: 2 });
			expect(lastTwo.items.map((i) => i.node.sessionId)).toEqual(["s3", "s1"]);
			expect(lastTwo.hasPreviousPage).toBe(true);
			const before = await store().listSessions(ws, { last: 2, before: lastTwo.items[0]?.cursor ?? "" });
			expect(before.items.map((i) => i.node.sessionId)).toEqual(["s5", "s4"]);
		});

		it("rejects bad page arguments with coded errors", async () => {
			const ws = workspace();
			await rejectsWithCode(store().listSessions(ws, { after: "not-a-cursor" }), "INVALID_INPUT", "after");
			const forged = Buffer.from(JSON.stringify(["yesterday", "s1"])).toString("base64url");
			await rejectsWithCode(store().listSessions(ws, { after: forged }), "INVALID_INPUT", "after");
			await rejectsWithCode(store().listSessions(ws, { first: -1 }), "INVALID_INPUT", "first");
			await rejectsWithCode(store().listSessions(ws, { first: 10_000 }), "LIMIT_EXCEEDED", "first");
			await rejectsWithCode(store().listSessions(ws, { first: 1, last: 1 }), "INVALID_INPUT", "last");
		});
	});

	describe("appending and moving the leaf", () => {
		it("runs the seed example: six log entries, the path is u1, a3", async () => {
			const ws = workspace();
			const { sessionId, move } = await seed(ws);
			const log = await store().listEntries(ws, sessionId);
			expect(log.map((e) => [e.seq, e.entry.type, e.entry.parentId])).toEqual([
				[1, "message", null],
				[2, "message", "u1"],
				[3, "message", "a1"],
				[4, "message", "u2"],
				[5, "leaf", "a2"],
				[6, "message", "u1"],
			]);
			expect(log[4]?.entry).toMatchObject({ type: "leaf", parentId: "a2", targetId: "u1" });
			expect(move.leafEntry.entry.id).toBe(log[4]?.entry.id);
			expect(move.session.leafId).toBe("u1");
			expect((await store().activePath(ws, sessionId)).map((e) => e.entry.id)).toEqual(["u1", "a3"]);
			const session = await store().getSession(ws, sessionId);
			expect(session).toMatchObject({ leafId: "a3", lastSeq: 6, entryCount: 6 });
			expect((await store().tips(ws, sessionId)).map((e) => e.entry.id)).toEqual(["a2", "a3"]);
			const children = await store().children(ws, sessionId, ["u1", "a2"]);
			expect(children.get("u1")?.map((e) => e.entry.id)).toEqual(["a1", "a3"]);
			// The leaf record hangs off a2 in parentId terms but is not a child node.
			expect(children.get("a2")).toEqual([]);
			expect((await store().getEntry(ws, sessionId, "a3"))?.depth).toBe(1);
			expect((await store().getEntry(ws, sessionId, "a2"))?.depth).toBe(3);
			const context = await store().context(ws, sessionId);
			expect(context.messages.map((m) => m.content)).toEqual(["u1", [{ type: "text", text: "a3" }]]);
		});

		it("assigns parent = current leaf, timestamps and ids, and keeps unknown fields", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			const before = Date.now();
			const first = await store().appendEntry(ws, "s", {
				...user("hi"),
				extensionField: { keep: [1, 2] },
			} as DraftEntry);
			expect(first.created).toBe(true);
			expect(first.entry).toMatchObject({ seq: 1, depth: 0, sessionId: "s" });
			expect(first.entry.entry.parentId).toBeNull();
			expect(first.entry.entry.id).toMatch(/^[0-9a-f]{16}$/);
			expect(Date.parse(first.entry.entry.timestamp)).toBeGreaterThanOrEqual(before - 1000);
			expect(first.session.leafId).toBe(first.entry.entry.id);
			const stored = await store().getEntry(ws, "s", first.entry.entry.id);
			expect(stored?.entry.extensionField).toEqual({ keep: [1, 2] });
			const second = await store().appendEntry(ws, "s", {
				type: "thinking_level_change",
				thinkingLevel: "high",
			});
			expect(second.entry.entry.parentId).toBe(first.entry.entry.id);
			expect(second.entry.depth).toBe(1);
			await expectPointerIsReplay(ws, "s");
		});

		it("a leaf record's parent is the previous leaf and it never becomes the leaf", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			await store().appendEntry(ws, "s", withId("x", user("x")));
			await store().appendEntry(ws, "s", withId("y", assistant("y")));
			const move = await store().moveLeaf(ws, "s", { targetId: "x" });
			expect(move.leafEntry.entry).toMatchObject({ type: "leaf", parentId: "y", targetId: "x" });
			expect(move.session.leafId).toBe("x");
			expect(move.summaryEntry).toBeNull();
			const again = await store().moveLeaf(ws, "s", { targetId: "y" });
			// The parent is the leaf before the move (x), not the previous leaf record.
			expect(again.leafEntry.entry.parentId).toBe("x");
			await rejectsWithCode(
				store().moveLeaf(ws, "s", { targetId: move.leafEntry.entry.id }),
				"INVALID_INPUT",
				"targetId",
			);
			await rejectsWithCode(
				store().setLabel(ws, "s", move.leafEntry.entry.id, "nope"),
				"INVALID_INPUT",
				"targetId",
			);
			await rejectsWithCode(
				store().activePath(ws, "s", { fromId: move.leafEntry.entry.id }),
				"INVALID_INPUT",
				"fromId",
			);
			await expectPointerIsReplay(ws, "s");
		});

		it("moves to null: empty path and context, the next entry is a new root", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			const move = await store().moveLeaf(ws, sessionId, { targetId: null });
			expect(move.leafEntry.entry).toMatchObject({ targetId: null, parentId: "a3" });
			expect(move.session.leafId).toBeNull();
			expect(await store().activePath(ws, sessionId)).toEqual([]);
			expect(await store().context(ws, sessionId)).toEqual({
				messages: [],
				thinkingLevel: "off",
				model: null,
				activeToolNames: null,
			});
			const root = await store().appendEntry(ws, sessionId, user("again"));
			expect(root.entry.entry.parentId).toBeNull();
			expect(root.entry.depth).toBe(0);
			await expectPointerIsReplay(ws, sessionId);
		});

		it("moves with a summary: the summary hangs under the target and becomes the leaf", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			const move = await store().moveLeaf(ws, sessionId, {
				targetId: "a1",
				summary: { summary: "Tried u2/a2 and a3.", details: { files: ["a.ts"] } },
			});
			expect(move.leafEntry.entry).toMatchObject({ parentId: "a3", targetId: "a1" });
			expect(move.leafEntry.seq).toBe(7);
			expect(move.summaryEntry?.seq).toBe(8);
			expect(move.summaryEntry?.entry).toMatchObject({
				type: "branch_summary",
				parentId: "a1",
				fromId: "a1",
				summary: "Tried u2/a2 and a3.",
				details: { files: ["a.ts"] },
			});
			expect(move.session.leafId).toBe(move.summaryEntry?.entry.id);
			const context = await store().context(ws, sessionId);
			expect(context.messages.at(-1)).toMatchObject({
				role: "branchSummary",
				summary: "Tried u2/a2 and a3.",
				fromId: "a1",
			});
			const toRoot = await store().moveLeaf(ws, sessionId, {
				targetId: null,
				summary: { summary: "Start over." },
			});
			expect(toRoot.summaryEntry?.entry).toMatchObject({ parentId: null, fromId: "root" });
			expect(toRoot.summaryEntry?.depth).toBe(0);
			await expectPointerIsReplay(ws, sessionId);
		});

		it("a move or label to a missing entry is NOT_FOUND and writes nothing", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			const before = await snapshot(ws, sessionId);
			await rejectsWithCode(store().moveLeaf(ws, sessionId, { targetId: "ghost" }), "NOT_FOUND", "targetId");
			await rejectsWithCode(
				store().moveLeaf(ws, sessionId, { targetId: "ghost", summary: { summary: "s" } }),
				"NOT_FOUND",
				"targetId",
			);
			await rejectsWithCode(store().setLabel(ws, sessionId, "ghost", "x"), "NOT_FOUND", "targetId");
			await rejectsWithCode(
				store().moveLeaf(ws, "no-such-session", { targetId: null }),
				"NOT_FOUND",
				"sessionId",
			);
			expect(await snapshot(ws, sessionId)).toEqual(before);
		});

		it("expectedLeafId: a match writes, a conflict is LEAF_CONFLICT and writes nothing", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			await store().appendEntry(ws, "s", withId("a", user("a")), { expectedLeafId: null });
			await store().appendEntry(ws, "s", withId("b", assistant("b")), { expectedLeafId: "a" });
			const before = await snapshot(ws, "s");
			await rejectsWithCode(
				store().appendEntry(ws, "s", user("late"), { expectedLeafId: "a" }),
				"LEAF_CONFLICT",
				"expectedLeafId",
			);
			await rejectsWithCode(
				store().appendEntry(ws, "s", user("late"), { expectedLeafId: null }),
				"LEAF_CONFLICT",
			);
			await rejectsWithCode(
				store().moveLeaf(ws, "s", { targetId: "a", expectedLeafId: "a" }),
				"LEAF_CONFLICT",
			);
			await rejectsWithCode(
				store().moveLeaf(ws, "s", { targetId: "a", expectedLeafId: "a", summary: { summary: "s" } }),
				"LEAF_CONFLICT",
			);
			expect(await snapshot(ws, "s")).toEqual(before);
			const moved = await store().moveLeaf(ws, "s", { targetId: "a", expectedLeafId: "b" });
			expect(moved.session.leafId).toBe("a");
		});

		it("a re-sent entry returns the stored one; the same id with other content is ALREADY_EXISTS", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			const first = await store().appendEntry(ws, "s", withId("e1", user("once")));
			await store().appendEntry(ws, "s", withId("e2", assistant("reply")));
			const again = await store().appendEntry(ws, "s", withId("e1", user("once")), { expectedLeafId: "e1" });
			expect(again.created).toBe(false);
			expect(again.entry).toEqual(first.entry);
			const before = await snapshot(ws, "s");
			expect(before.session?.lastSeq).toBe(2);
			await rejectsWithCode(
				store().appendEntry(ws, "s", withId("e1", user("changed"))),
				"ALREADY_EXISTS",
				"entryId",
			);
			await rejectsWithCode(
				store().appendEntry(ws, "s", withId("e1", { type: "custom", customType: "x" })),
				"ALREADY_EXISTS",
				"entryId",
			);
			expect(await snapshot(ws, "s")).toEqual(before);
		});

		it("appends to one session are serialised: 50 concurrent appends make one chain", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "busy" });
			await Promise.all(Array.from({ length: 50 }, (_, i) => store().appendEntry(ws, "busy", user(`m${i}`))));
			const log = await store().listEntries(ws, "busy");
			expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
			const parents = log.map((e) => e.entry.parentId);
			expect(new Set(parents).size).toBe(50);
			log.forEach((e, i) => {
				expect(e.entry.parentId).toBe(i === 0 ? null : log[i - 1]?.entry.id);
				expect(e.depth).toBe(i);
			});
			await expectPointerIsReplay(ws, "busy");
		});

		it("the stored pointer equals the replay of the log after every step", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			const steps: Array<() => Promise<unknown>> = [
				() => store().appendEntry(ws, "s", withId("a", user("a"))),
				() => store().appendEntry(ws, "s", withId("b", assistant("b"))),
				() => store().setLabel(ws, "s", "a", "first"),
				() => store().moveLeaf(ws, "s", { targetId: "a" }),
				() => store().renameSession(ws, "s", "named"),
				() => store().moveLeaf(ws, "s", { targetId: null, summary: { summary: "from scratch" } }),
				() => store().appendEntry(ws, "s", { type: "model_change", provider: "openai", modelId: "gpt-5" }),
				() => store().moveLeaf(ws, "s", { targetId: "b" }),
			];
			for (const step of steps) {
				await step();
				await expectPointerIsReplay(ws, "s");
			}
		});

		it("an invalid entry is INVALID_INPUT naming the field and writes nothing", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			await store().appendEntry(ws, "s", user("ok"));
			const before = await snapshot(ws, "s");
			const bad: Array<[unknown, string]> = [
				[{ type: "message", message: "text" }, "entry.message"],
				[{ type: "message", message: { content: "no role" } }, "entry.message.role"],
				[{ type: "thinking_level_change" }, "entry.thinkingLevel"],
				[{ type: "model_change", provider: "p" }, "entry.modelId"],
				[{ type: "active_tools_change", activeToolNames: ["a", 1] }, "entry.activeToolNames"],
				[{ type: "compaction", summary: "s", firstKeptEntryId: "x", tokensBefore: -1 }, "entry.tokensBefore"],
				[{ type: "compaction", summary: 3, tokensBefore: 1 }, "entry.summary"],
				[{ type: "branch_summary", summary: "s" }, "entry.fromId"],
				[{ type: "custom" }, "entry.customType"],
				[{ type: "custom_message", customType: "c", content: "x", display: "yes" }, "entry.display"],
				[{ type: "custom_message", customType: "c", content: 5, display: true }, "entry.content"],
				[{ type: "label", targetId: "" }, "entry.targetId"],
				[{ type: "session_info", name: 5 }, "entry.name"],
				[{ type: "leaf", targetId: null }, "entry.type"],
				[{ type: "session" }, "entry.type"],
				[{ type: "" }, "entry.type"],
				[{ type: "usage", kind: "k", provider: "p", model: "m" }, "entry.usage"],
				[{ type: "usage", kind: "", provider: "p", model: "m", usage: {} }, "entry.kind"],
				[{ type: "context_edit", targetId: "x", replacement: "shorter" }, "entry.replacement"],
				[{ type: "context_edit", replacement: null }, "entry.targetId"],
				[{ type: "compaction", summary: "s", tokensBefore: 1, usage: 3 }, "entry.usage"],
				[
					{ type: "compaction", summary: "s", tokensBefore: 1, systemMessage: { role: "user" } },
					"entry.systemMessage.role",
				],
				[{ ...user("x"), parentId: null }, "entry.parentId"],
				[{ ...user("x"), timestamp: "2020-01-01T00:00:00Z" }, "entry.timestamp"],
				[{ ...user("x"), id: "" }, "entry.id"],
				[{ type: "custom", customType: "c", data: { "half \ud800 key": 1 } }, "entry.data"],
				[{ type: "custom", customType: "c", data: { text: "nul \u0000 byte" } }, "entry.data.text"],
				[{ type: "custom", customType: "c", data: { text: "half \ud800 pair" } }, "entry.data.text"],
			];
			for (const [draft, field] of bad) {
				await rejectsWithCode(store().appendEntry(ws, "s", draft as DraftEntry), "INVALID_INPUT", field);
			}
			await rejectsWithCode(store().renameSession(ws, "s", 5 as unknown as string), "INVALID_INPUT", "name");
			expect(await snapshot(ws, "s")).toEqual(before);
		});

		it("a missing session is NOT_FOUND for writes and reads", async () => {
			const ws = workspace();
			await rejectsWithCode(store().appendEntry(ws, "nope", user("x")), "NOT_FOUND", "sessionId");
			await rejectsWithCode(store().setLabel(ws, "nope", "x", "y"), "NOT_FOUND");
			await rejectsWithCode(store().renameSession(ws, "nope", "y"), "NOT_FOUND");
			await rejectsWithCode(store().listEntries(ws, "nope"), "NOT_FOUND");
			await rejectsWithCode(store().children(ws, "nope", ["x"]), "NOT_FOUND");
			await rejectsWithCode(store().labels(ws, "nope", ["x"]), "NOT_FOUND");
			await rejectsWithCode(store().forkSession(ws, "nope"), "NOT_FOUND");
			expect(await store().getSession(ws, "nope")).toBeNull();
		});
	});

	describe("sessions in other orders, filtered", () => {
		const paid = paidAnswer;

		it("orders by cost, tokens, entries, creation and activity, filters, and pages forward without repeats", async () => {
			const ws = workspace();
			const s = store();
			await s.createSession(ws, { sessionId: "a", name: "Alpha deploy" });
			await s.appendEntry(ws, "a", user("go"));
			await s.appendEntry(ws, "a", paid("done", "m1", 0.5, 100));
			await s.createSession(ws, { sessionId: "b", name: "beta" });
			await s.appendEntry(ws, "b", paid("x", "m2", 2, 50));
			await s.appendEntry(ws, "b", paid("y", "m2", 1, 50));
			await s.createSession(ws, { sessionId: "c" });
			await s.forkSession(ws, "a", { newSessionId: "d" });
			await s.createSession(workspace(), { sessionId: "elsewhere" });
			const ids = async (query: Parameters<typeof sessionQuery>[0]) =>
				(await s.findSessions(ws, sessionQuery(query))).items.map((i) => i.node.sessionId);
			// Ties (a and d cost the same: d copies a's path) go by id, in the same direction.
			expect(await ids({ orderBy: { field: "cost" } })).toEqual(["b", "d", "a", "c"]);
			expect(await ids({ orderBy: { field: "cost", direction: "ASC" } })).toEqual(["c", "a", "d", "b"]);
			expect(await ids({ orderBy: { field: "tokens" } })).toEqual(["d", "b", "a", "c"]);
			expect(await ids({ orderBy: { field: "entries", direction: "ASC" } })).toEqual(["c", "a", "b", "d"]);
			expect(await ids({ orderBy: { field: "created", direction: "ASC" } })).toEqual(["a", "b", "c", "d"]);
			expect((await ids({ orderBy: { field: "activity" } }))[0]).toBe("d");
			expect(await ids({ filter: { model: "m2" } })).toEqual(["b"]);
			expect(await ids({ filter: { nameContains: "DEPLOY" } })).toEqual(["a"]);
			expect(await ids({ filter: { nameContains: "%" } })).toEqual([]);
			expect(await ids({ filter: { parentSessionId: "a" } })).toEqual(["d"]);
			expect(await ids({ filter: { updatedAfter: "2999-01-01T00:00:00Z" } })).toEqual([]);
			const filtered = await s.findSessions(ws, sessionQuery({ filter: { model: "m1" }, first: 1 }));
			expect(filtered.totalCount).toBe(2);
			const paged: string[] = [];
			let after: string | null = null;
			for (let i = 0; i < 10; i++) {
				const page = await s.findSessions(ws, sessionQuery({ orderBy: { field: "cost" }, first: 1, after }));
				expect(page.totalCount).toBe(4);
				paged.push(...page.items.map((item) => item.node.sessionId));
				if (!page.hasNextPage) break;
				after = page.items.at(-1)?.cursor ?? null;
			}
			expect(paged).toEqual(["b", "d", "a", "c"]);
			const cost = await s.findSessions(ws, sessionQuery({ orderBy: { field: "cost" }, first: 1 }));
			expect(() =>
				sessionQuery({ orderBy: { field: "tokens" }, after: cost.items[0]?.cursor ?? null }),
			).toThrow(/after/);
			expect(() => sessionQuery({ filter: { updatedAfter: "yesterday" } })).toThrow(/updatedAfter/);
		});
	});

	describe("tree view, comparison and search", () => {
		/** u1 a1 u2 a2; back to a1 with a summary (bs), u3; a1 labelled, u2's label cleared. */
		async function branched(ws: string, sessionId = "t") {
			const s = store();
			await s.createSession(ws, { sessionId });
			for (const [id, draft] of [
				["u1", user("deploy the service")],
				["a1", assistant("deploying now")],
				["u2", user("try the old path")],
				["a2", assistant("old path failed")],
			] as const)
				await s.appendEntry(ws, sessionId, withId(id, draft));
			await s.moveLeaf(ws, sessionId, { targetId: "a1", summary: { summary: "The old path failed." } });
			await s.appendEntry(ws, sessionId, withId("u3", user("use the new deploy path")));
			await s.setLabel(ws, sessionId, "a1", "checkpoint");
			await s.setLabel(ws, sessionId, "u2", "dead end");
			await s.setLabel(ws, sessionId, "u2", "");
			return s.listEntries(ws, sessionId);
		}

		it("pages through every node once in log order, with child counts, labels and the active path", async () => {
			const ws = workspace();
			const log = await branched(ws);
			const all = [];
			let afterSeq = 0;
			for (let page = 0; page < 20; page++) {
				const { nodes, hasNextPage } = await store().sessionTree(ws, "t", { afterSeq, first: 3 });
				expect(nodes.length).toBeLessThanOrEqual(3);
				all.push(...nodes);
				if (!hasNextPage) break;
				afterSeq = nodes.at(-1)?.node.seq ?? afterSeq;
			}
			const nodes = log.filter((e) => e.entry.type !== "leaf");
			expect(all.map((n) => n.node)).toEqual(nodes);
			const byId = new Map(all.map((n) => [n.node.entry.id, n]));
			const summary = nodes.find((e) => e.entry.type === "branch_summary")?.entry.id as string;
			expect(byId.get("a1")).toMatchObject({ childCount: 2, label: "checkpoint", onActivePath: true });
			expect(byId.get("u2")).toMatchObject({ childCount: 1, label: null, onActivePath: false });
			expect(byId.get("a2")).toMatchObject({ childCount: 0, onActivePath: false });
			expect(byId.get(summary)).toMatchObject({ childCount: 1, onActivePath: true });
			expect(byId.get("u3")?.onActivePath).toBe(true);
			const session = await store().getSession(ws, "t");
			expect(byId.get(session?.leafId as string)?.onActivePath).toBe(true);
			const whole = await store().sessionTree(ws, "t", { afterSeq: 0, first: 100 });
			expect(whole.hasNextPage).toBe(false);
			expect(whole.nodes).toEqual(all);
			expect((await store().sessionTree(ws, "t", { afterSeq: log.length, first: 5 })).nodes).toEqual([]);
			await rejectsWithCode(store().sessionTree(ws, "nope", { afterSeq: 0, first: 5 }), "NOT_FOUND");
			await rejectsWithCode(store().sessionTree(workspace(), "t", { afterSeq: 0, first: 5 }), "NOT_FOUND");
			const empty = await store().createSession(ws, { sessionId: "empty" });
			expect(await store().sessionTree(ws, empty.sessionId, { afterSeq: 0, first: 5 })).toEqual({
				nodes: [],
				hasNextPage: false,
			});
		});

		it("compares two nodes: their deepest common ancestor and each one's path below it", async () => {
			const ws = workspace();
			const log = await branched(ws);
			const ids = (path: readonly StoredEntry[]) => path.map((e) => e.entry.id);
			const summary = log.find((e) => e.entry.type === "branch_summary")?.entry.id as string;
			const diverged = await store().compareNodes(ws, "t", "a2", "u3");
			expect(diverged.ancestor?.entry.id).toBe("a1");
			expect(ids(diverged.a)).toEqual(["u2", "a2"]);
			expect(ids(diverged.b)).toEqual([summary, "u3"]);
			expect(diverged.a[0]).toEqual(log.find((e) => e.entry.id === "u2"));
			const below = await store().compareNodes(ws, "t", "u1", "u3");
			expect([below.ancestor?.entry.id, ids(below.a), ids(below.b)]).toEqual([
				"u1",
				[],
				["a1", summary, "u3"],
			]);
			const same = await store().compareNodes(ws, "t", "a2", "a2");
			expect([same.ancestor?.entry.id, same.a, same.b]).toEqual(["a2", [], []]);
			const leafRecord = log.find((e) => e.entry.type === "leaf")?.entry.id as string;
			await rejectsWithCode(store().compareNodes(ws, "t", "ghost", "u3"), "NOT_FOUND", "a");
			await rejectsWithCode(store().compareNodes(ws, "t", "u3", "ghost"), "NOT_FOUND", "b");
			await rejectsWithCode(store().compareNodes(ws, "t", leafRecord, "u3"), "INVALID_INPUT", "a");
			await rejectsWithCode(store().compareNodes(ws, "nope", "u1", "u3"), "NOT_FOUND", "sessionId");
			await rejectsWithCode(store().compareNodes(workspace(), "t", "u1", "u3"), "NOT_FOUND", "sessionId");
		});

		it("searches message text, summaries and labels of the caller's workspace only, paged without repeats", async () => {
			const ws = workspace();
			await branched(ws, "t");
			await store().createSession(ws, { sessionId: "other" });
			await store().appendEntry(ws, "other", withId("o1", user("Deploy failed: DEPLOY again")));
			const elsewhere = workspace();
			await branched(elsewhere, "t");
			const found = await store().search(ws, { text: "deploy", first: 20 });
			const hits = found.hits.map((h) => `${h.sessionId}/${h.entry.entry.id}`);
			expect(new Set(hits)).toEqual(new Set(["t/u1", "t/u3", "other/o1"]));
			expect(found.hasNextPage).toBe(false);
			const o1 = found.hits.find((h) => h.entry.entry.id === "o1");
			expect(o1?.snippet.text).toBe("Deploy failed: DEPLOY again");
			expect(o1?.snippet.highlights.map((r) => o1.snippet.text.slice(r.start, r.end).toLowerCase())).toEqual([
				"deploy",
				"deploy",
			]);
			const paged: string[] = [];
			let after = null;
			for (let i = 0; i < 10; i++) {
				const page = await store().search(ws, { text: "deploy", first: 1, after });
				paged.push(...page.hits.map((h) => `${h.sessionId}/${h.entry.entry.id}`));
				if (!page.hasNextPage) break;
				after = page.hits.at(-1) ?? null;
			}
			expect(paged).toEqual(hits);
			const inOne = await store().search(ws, { text: "deploy", sessionId: "other", first: 20 });
			expect(inOne.hits.map((h) => h.entry.entry.id)).toEqual(["o1"]);
			const labelled = await store().search(ws, { text: "checkpoint", first: 20 });
			expect(labelled.hits.map((h) => h.entry.entry.type)).toEqual(["label"]);
			const summarised = await store().search(ws, { text: "failed", sessionId: "t", first: 20 });
			expect(new Set(summarised.hits.map((h) => h.entry.entry.type))).toEqual(
				new Set(["message", "branch_summary"]),
			);
			// -word leaves out the entries that hold it; an entry without searchable text is never a hit.
			const without = await store().search(ws, { text: "path -deploy", sessionId: "t", first: 20 });
			expect(new Set(without.hits.map((h) => h.entry.entry.id)).has("u3")).toBe(false);
			expect(
				without.hits
					.filter((h) => h.entry.entry.type === "message")
					.map((h) => h.entry.entry.id)
					.sort(),
			).toEqual(["a2", "u2"]);
			expect(without.hits.map((h) => h.entry.entry.type)).toContain("branch_summary");
			expect((await store().search(ws, { text: "nothing-like-this", first: 20 })).hits).toEqual([]);
			expect((await store().search(ws, { text: "  ", first: 20 })).hits).toEqual([]);
		});
	});

	describe("labels and names", () => {
		it("the latest label wins; empty or absent clears", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			await store().setLabel(ws, sessionId, "u1", "start");
			await store().setLabel(ws, sessionId, "a2", "dead end");
			await store().setLabel(ws, sessionId, "u1", "beginning");
			expect(await store().labels(ws, sessionId, ["u1", "a2", "a3"])).toEqual(
				new Map([
					["u1", "beginning"],
					["a2", "dead end"],
				]),
			);
			const cleared = await store().setLabel(ws, sessionId, "a2", "");
			expect(cleared.entry.entry).toMatchObject({ type: "label", targetId: "a2" });
			expect("label" in cleared.entry.entry).toBe(false);
			await store().setLabel(ws, sessionId, "u1", null);
			expect(await store().labels(ws, sessionId, ["u1", "a2"])).toEqual(new Map());
			// Labels are nodes: the label entry became the leaf.
			expect((await store().getSession(ws, sessionId))?.leafId).toBe(
				(await store().listEntries(ws, sessionId)).at(-1)?.entry.id,
			);
		});

		it("the name is the latest session_info, trimmed; empty means none", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s", name: "  Initial  " });
			expect((await store().getSession(ws, "s"))?.name).toBe("Initial");
			const renamed = await store().renameSession(ws, "s", "  Better name ");
			expect(renamed.entry.entry).toMatchObject({ type: "session_info", name: "Better name" });
			expect(renamed.session.name).toBe("Better name");
			await store().renameSession(ws, "s", "   ");
			expect((await store().getSession(ws, "s"))?.name).toBeNull();
		});
	});

	describe("paths and context", () => {
		/** u1 a1 [thinking high] u2 a2 [compaction keeping from u2] u3 a3 */
		async function compacted(ws: string) {
			const s = store();
			await s.createSession(ws, { sessionId: "c" });
			await s.appendEntry(ws, "c", withId("u1", user("u1")));
			await s.appendEntry(ws, "c", { type: "thinking_level_change", thinkingLevel: "high", id: "t1" });
			await s.appendEntry(ws, "c", { type: "active_tools_change", activeToolNames: ["read"], id: "at1" });
			await s.appendEntry(ws, "c", withId("a1", assistant("a1", "old-model")));
			await s.appendEntry(ws, "c", withId("u2", user("u2")));
			await s.appendEntry(ws, "c", withId("a2", assistant("a2", "mid-model")));
			await s.appendEntry(ws, "c", {
				type: "compaction",
				id: "cp",
				summary: "Earlier: u1/a1.",
				firstKeptEntryId: "u2",
				tokensBefore: 999,
			});
			await s.appendEntry(ws, "c", withId("u3", user("u3")));
			await s.appendEntry(ws, "c", { type: "custom", customType: "bookkeeping", data: { n: 1 }, id: "cu" });
			await s.appendEntry(ws, "c", withId("a3", assistant("a3", "mid-model")));
		}

		it("the active path stops at the latest compaction's first kept entry unless full", async () => {
			const ws = workspace();
			await compacted(ws);
			const bounded = await store().activePath(ws, "c");
			expect(bounded.map((e) => e.entry.id)).toEqual(["u2", "a2", "cp", "u3", "cu", "a3"]);
			const full = await store().activePath(ws, "c", { full: true });
			expect(full.map((e) => e.entry.id)).toEqual([
				"u1",
				"t1",
				"at1",
				"a1",
				"u2",
				"a2",
				"cp",
				"u3",
				"cu",
				"a3",
			]);
			expect(full.map((e) => e.depth)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
			const fromA2 = await store().activePath(ws, "c", { fromId: "a2" });
			expect(fromA2.map((e) => e.entry.id)).toEqual(["u1", "t1", "at1", "a1", "u2", "a2"]);
			await rejectsWithCode(store().activePath(ws, "c", { fromId: "ghost" }), "NOT_FOUND", "fromId");
		});

		it("projects the context with compaction, keeping settings from before the bound", async () => {
			const ws = workspace();
			await compacted(ws);
			const context = await store().context(ws, "c");
			expect(context.thinkingLevel).toBe("high");
			expect(context.activeToolNames).toEqual(["read"]);
			expect(context.model).toEqual({ provider: "anthropic", modelId: "mid-model" });
			expect(context.messages.map((m) => m.role)).toEqual([
				"compactionSummary",
				"user",
				"assistant",
				"user",
				"assistant",
			]);
			expect(context.messages[0]).toEqual({
				role: "compactionSummary",
				summary: "Earlier: u1/a1.",
				tokensBefore: 999,
				timestamp: Date.parse((await store().getEntry(ws, "c", "cp"))?.entry.timestamp as string),
			});
			const fromA1 = await store().context(ws, "c", { fromId: "a1" });
			expect(fromA1.model).toEqual({ provider: "anthropic", modelId: "old-model" });
			expect(fromA1.messages).toHaveLength(2);
			// The same answer as pi's own buildSessionContext over the log.
			const log = (await store().listEntries(ws, "c")).map((e) => e.entry);
			expect(asJson({ ...context, activeToolNames: undefined })).toEqual(
				asJson(buildSessionContext(log as never, "a3")),
			);
		});

		it("a context with messages as stored text encodes exactly as the parsed one, settings read the same", async () => {
			const ws = workspace();
			await compacted(ws);
			const s = store();
			// Provider and model as JSON must escape (a quote, a backslash, a control character): read back as written.
			await s.appendEntry(ws, "c", {
				type: "message",
				id: "odd",
				message: { role: "assistant", content: "x", provider: 'we"ird\\', model: "m\u0007é" },
			});
			// An assistant whose provider is null and whose model is absent: the projection reads them as they are.
			await s.appendEntry(ws, "c", {
				type: "message",
				message: { role: "assistant", content: [{ type: "text", text: 'é \u2028 \\ "' }], provider: null },
			});
			for (const fromId of [null, "a1", "odd"]) {
				const parsed = await s.context(ws, "c", { fromId });
				const raw = await s.context(ws, "c", { fromId, rawMessages: true });
				expect(raw.model).toEqual(parsed.model);
				expect(raw.thinkingLevel).toBe(parsed.thinkingLevel);
				expect(raw.messages.map((m) => m.role)).toEqual(parsed.messages.map((m) => m.role));
				expect(JSON.parse(stringifyWithRaw(raw))).toEqual(asJson(parsed));
				// Any other encoder gets the parsed value.
				expect(asJson(raw)).toEqual(asJson(parsed));
			}
			const odd = await s.context(ws, "c", { fromId: "odd", rawMessages: true });
			expect(odd.model).toEqual({ provider: 'we"ird\\', modelId: "m\u0007é" });
		});

		it("projects branch summaries, custom messages and nothing for custom, label, info or settings", async () => {
			const ws = workspace();
			const s = store();
			await s.createSession(ws, { sessionId: "p" });
			await s.appendEntry(ws, "p", withId("u1", user("u1")));
			await s.appendEntry(ws, "p", withId("a1", assistant("a1")));
			await s.moveLeaf(ws, "p", { targetId: "u1", summary: { summary: "went back" } });
			await s.appendEntry(ws, "p", {
				type: "custom_message",
				customType: "note",
				content: [{ type: "text", text: "for the model" }],
				display: false,
				details: { x: 1 },
			});
			await s.appendEntry(ws, "p", { type: "custom", customType: "state", data: { hidden: true } });
			await s.setLabel(ws, "p", "u1", "here");
			await s.renameSession(ws, "p", "name");
			await s.appendEntry(ws, "p", { type: "model_change", provider: "openai", modelId: "gpt-5" });
			const context = await s.context(ws, "p");
			expect(context.messages.map((m) => m.role)).toEqual(["user", "branchSummary", "custom"]);
			expect(context.messages[2]).toMatchObject({
				role: "custom",
				customType: "note",
				content: [{ type: "text", text: "for the model" }],
				display: false,
				details: { x: 1 },
			});
			expect(typeof context.messages[2]?.timestamp).toBe("number");
			expect(context.model).toEqual({ provider: "openai", modelId: "gpt-5" });
			const log = (await s.listEntries(ws, "p")).map((e) => e.entry);
			const leaf = (await s.getSession(ws, "p"))?.leafId;
			expect(asJson({ ...context, activeToolNames: undefined })).toEqual(
				asJson(buildSessionContext(log as never, leaf)),
			);
		});

		it("reads the append log by afterSeq, limit, types and from the end", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			const ids = async (q: Parameters<SessionStore["listEntries"]>[2]) =>
				(await store().listEntries(ws, sessionId, q)).map((e) => e.seq);
			expect(await ids({ afterSeq: 2, limit: 2 })).toEqual([3, 4]);
			expect(await ids({ afterSeq: 6 })).toEqual([]);
			expect(await ids({ types: ["leaf"] })).toEqual([5]);
			expect(await ids({ limit: 2, fromEnd: true })).toEqual([5, 6]);
			expect(await ids({ beforeSeq: 3 })).toEqual([1, 2]);
			expect(await store().countEntries(ws, sessionId)).toBe(6);
			expect(await store().countEntries(ws, sessionId, ["message"])).toBe(5);
			const many = await store().getEntries(ws, sessionId, ["u1", "a3", "ghost"]);
			expect([...many.keys()].sort()).toEqual(["a3", "u1"]);
			// Lists have no size limit (Postgres takes at most 65,535 parameters a statement).
			const huge = Array.from({ length: 70_000 }, (_, i) => `missing-${i}`).concat(["a1"]);
			expect([...(await store().getEntries(ws, sessionId, huge)).keys()]).toEqual(["a1"]);
			expect((await store().labels(ws, sessionId, huge)).size).toBe(0);
		});

		it("reads a session with a window of its log as getSession and listEntries do", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			await store().createSession(ws, { sessionId: "empty" });
			const read = store().sessionWithEntries?.bind(store());
			expect(read).toBeDefined();
			if (!read) return;
			const queries: Array<Parameters<SessionStore["listEntries"]>[2]> = [
				undefined,
				{ afterSeq: 2, limit: 2 },
				{ limit: 2, fromEnd: true },
				{ beforeSeq: 3 },
				{ afterSeq: 1, beforeSeq: 6, limit: 3, fromEnd: true },
				{ types: ["leaf"] },
				{ types: ["message"], limit: 2, fromEnd: true },
				{ types: [] },
				{ afterSeq: 6 },
			];
			for (const query of queries) {
				expect(await read(ws, sessionId, query)).toEqual({
					session: await store().getSession(ws, sessionId),
					entries: await store().listEntries(ws, sessionId, query),
				});
			}
			expect(await read(ws, "empty", { limit: 10 })).toEqual({
				session: await store().getSession(ws, "empty"),
				entries: [],
			});
			// Where listEntries is NOT_FOUND, there is no session: null.
			expect(await read(ws, "nope")).toBeNull();
			expect(await read(workspace(), sessionId)).toBeNull();
			expect(await read(ws, "bad\u0000id")).toBeNull();
		});

		it("leaves out payloads and timestamps only when asked, and nothing else", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			await compacted(ws);
			/** Every field an omission must keep. */
			const kept = (e: StoredEntry, timestamp: boolean) => ({
				sessionId: e.sessionId,
				seq: e.seq,
				depth: e.depth,
				author: e.author,
				id: e.entry.id,
				type: e.entry.type,
				parentId: e.entry.parentId,
				...(timestamp ? { timestamp: e.entry.timestamp } : {}),
			});
			const same = (brief: StoredEntry[], full: StoredEntry[], timestamp: boolean) =>
				expect(brief.map((e) => kept(e, timestamp))).toEqual(full.map((e) => kept(e, timestamp)));
			for (const omit of [{ payload: true }, { payload: true, timestamp: true }, { timestamp: true }]) {
				const timestamp = !omit.timestamp;
				for (const query of [{}, { afterSeq: 1, limit: 3, fromEnd: true }, { types: ["message" as const] }]) {
					same(
						await store().listEntries(ws, sessionId, { ...query, omit }),
						await store().listEntries(ws, sessionId, query),
						timestamp,
					);
					const both = await store().sessionWithEntries?.(ws, sessionId, { ...query, omit });
					same(both?.entries ?? [], await store().listEntries(ws, sessionId, query), timestamp);
				}
				for (const path of [{}, { full: true }, { fromId: "a2" }, { fromId: "u3", full: true }]) {
					same(
						await store().activePath(ws, "c", { ...path, omit }),
						await store().activePath(ws, "c", path),
						timestamp,
					);
				}
				same(
					await store().activePath(ws, sessionId, { omit }),
					await store().activePath(ws, sessionId),
					timestamp,
				);
				// The same refusals as a whole read.
				await rejectsWithCode(store().activePath(ws, "c", { fromId: "ghost", omit }), "NOT_FOUND", "fromId");
				const leafRecord = (await store().listEntries(ws, sessionId, { types: ["leaf"] }))[0]?.entry
					.id as string;
				await rejectsWithCode(
					store().activePath(ws, sessionId, { fromId: leafRecord, omit }),
					"INVALID_INPUT",
					"fromId",
				);
				await rejectsWithCode(store().activePath(ws, "nope", { omit }), "NOT_FOUND");
				await rejectsWithCode(store().listEntries(ws, "nope", { omit }), "NOT_FOUND");
				await store().createSession(ws, { sessionId: `empty-${Object.keys(omit).join("-")}` });
				expect(await store().activePath(ws, `empty-${Object.keys(omit).join("-")}`, { omit })).toEqual([]);
			}
		});
	});

	describe("a second instance on the same database", () => {
		it("sees the same pointer, log and context", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			await store().setLabel(ws, sessionId, "u1", "start");
			const session = await store().getSession(ws, sessionId);
			const log = await store().listEntries(ws, sessionId);
			const context = await store().context(ws, sessionId);
			await backend.withSecondInstance(async (second) => {
				expect(await second.getSession(ws, sessionId)).toEqual(session);
				expect(await second.listEntries(ws, sessionId)).toEqual(log);
				expect(await second.context(ws, sessionId)).toEqual(context);
				expect(await second.labels(ws, sessionId, ["u1"])).toEqual(new Map([["u1", "start"]]));
				const next = await second.appendEntry(ws, sessionId, user("from the second"));
				expect(next.entry.entry.parentId).toBe(session?.leafId);
				expect(next.entry.seq).toBe(8);
			});
			expect((await store().getSession(ws, sessionId))?.lastSeq).toBe(8);
		});
	});

	describe("pi JSONL import and export", () => {
		it.each([
			["v1.jsonl", 1],
			["v2.jsonl", 2],
			["v3-harness.jsonl", 3],
		])(
			"imports %s, and its lossless export re-imports to the same tree, pointer and context",
			async (file, version) => {
				const ws = workspace();
				const text = fixture(file);
				const imported = await store().importSession(ws, text);
				const log = await store().listEntries(ws, imported.sessionId);
				expect(log.length).toBe(text.trim().split("\n").length - 1);
				await expectPointerIsReplay(ws, imported.sessionId);
				const exported = await store().exportSession(ws, imported.sessionId, { format: "lossless" });
				expect(JSON.parse(exported.split("\n")[0] as string)).toMatchObject({
					type: "session",
					version: 3,
					id: imported.sessionId,
				});
				const again = await store().importSession(ws, exported, { sessionId: `${imported.sessionId}-copy` });
				const logAgain = await store().listEntries(ws, again.sessionId);
				const shape = (entries: StoredEntry[]) => entries.map((e) => [e.seq, e.depth, e.entry]);
				expect(shape(logAgain)).toEqual(shape(log));
				expect(again.leafId).toBe(imported.leafId);
				expect(again.name).toBe(imported.name);
				expect(await store().context(ws, again.sessionId)).toEqual(
					await store().context(ws, imported.sessionId),
				);
				expect(await store().exportSession(ws, again.sessionId, { format: "lossless" })).toBe(
					exported.replace(imported.sessionId, again.sessionId),
				);
				expect(version).toBeGreaterThan(0);
			},
		);

		it("migrates v1 like pi: chained ids, firstKeptEntryIndex → firstKeptEntryId, header fields kept", async () => {
			const ws = workspace();
			const imported = await store().importSession(ws, fixture("v1.jsonl"));
			expect(imported.headerExtra).toEqual({
				provider: "anthropic",
				modelId: "claude-sonnet-4-5",
				thinkingLevel: "off",
			});
			expect(imported.cwd).toBe("/work/demo");
			const log = await store().listEntries(ws, imported.sessionId);
			log.forEach((e, i) => {
				expect(e.entry.parentId).toBe(i === 0 ? null : log[i - 1]?.entry.id);
			});
			const compaction = log.find((e) => e.entry.type === "compaction")?.entry as Entry & {
				firstKeptEntryId: string;
			};
			// Index 5 counts the header as line 0: it names the fifth entry, the second user message.
			expect(compaction.firstKeptEntryId).toBe(log[4]?.entry.id);
			expect("firstKeptEntryIndex" in compaction).toBe(false);
			const context = await store().context(ws, imported.sessionId);
			expect(context.messages.map((m) => m.role)).toEqual([
				"compactionSummary",
				"user",
				"assistant",
				"user",
				"assistant",
			]);
			expect(context).toMatchObject({
				thinkingLevel: "high",
				model: { provider: "openai", modelId: "gpt-5.1-codex" },
			});
			// Importing the same file elsewhere gives the same ids (they derive from the session id).
			const other = workspace();
			const again = await store().importSession(other, fixture("v1.jsonl"), {
				sessionId: `${imported.sessionId}-b`,
			});
			expect((await store().listEntries(other, again.sessionId)).length).toBe(log.length);
		});

		it("migrates v2's hookMessage role to custom and reads branches and labels", async () => {
			const ws = workspace();
			const imported = await store().importSession(ws, fixture("v2.jsonl"));
			expect((await store().getEntry(ws, imported.sessionId, "m3"))?.entry).toMatchObject({
				message: { role: "custom" },
			});
			expect(imported).toMatchObject({ leafId: "s1", name: "Second try", lastSeq: 8 });
			expect((await store().activePath(ws, imported.sessionId)).map((e) => e.entry.id)).toEqual([
				"m1",
				"m2",
				"b1",
				"l1",
				"m5",
				"s1",
			]);
			expect(await store().labels(ws, imported.sessionId, ["m1"])).toEqual(new Map([["m1", "start"]]));
			expect((await store().tips(ws, imported.sessionId)).map((e) => e.entry.id)).toEqual(["m4", "s1"]);
		});

		it("reads harness files with leaf records and keeps unknown fields", async () => {
			const ws = workspace();
			const imported = await store().importSession(ws, fixture("v3-harness.jsonl"));
			expect(imported).toMatchObject({
				leafId: "u3",
				parentSessionId: "0195f3a0-0000-7000-8000-000000000002",
			});
			expect(imported.headerExtra).toEqual({ origin: "harness-test" });
			expect((await store().getEntry(ws, imported.sessionId, "c1"))?.entry.extensionVersion).toBe("1.2");
			expect((await store().activePath(ws, imported.sessionId)).map((e) => e.entry.id)).toEqual([
				"bs1",
				"c1",
				"cm1",
				"lb1",
				"cp1",
				"u3",
			]);
			const context = await store().context(ws, imported.sessionId);
			expect(context.messages.map((m) => m.role)).toEqual([
				"compactionSummary",
				"branchSummary",
				"custom",
				"user",
			]);
			expect(context.activeToolNames).toEqual(["read", "bash"]);
			expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
			expect((await store().tips(ws, imported.sessionId)).map((e) => e.entry.id)).toEqual(["a2", "u3", "r1"]);
		});

		it("a bad file is INVALID_INPUT naming the line, and nothing is stored", async () => {
			const ws = workspace();
			const good = fixture("v2.jsonl").trimEnd().split("\n");
			const cases: Array<[string, RegExp]> = [
				[[...good.slice(0, 3), "{not json", ...good.slice(3)].join("\n"), /^line 4: not valid JSON/],
				[good.slice(1).join("\n"), /^line 1: the first line must be a session header/],
				[[good[0], good[1], good[1]].join("\n"), /^line 3: id "m1" is used twice \(first on line 2\)/],
				[[good[0], good[2], good[1]].join("\n"), /^line 2: parentId "m1" names a later entry \(line 3\)/],
				[
					[
						good[0],
						good[1],
						'{"type":"message","id":"x","parentId":"m1","timestamp":"2025-01-01T00:00:00Z","message":{}}',
					].join("\n"),
					/^line 3: message.role/,
				],
				[
					[
						good[0],
						good[1],
						'{"type":"leaf","id":"n","parentId":"m1","timestamp":"2025-01-01T00:00:00Z","targetId":"zz"}',
					].join("\n"),
					/^line 3: targetId "zz" does not name an earlier entry/,
				],
				[
					[
						good[0],
						good[1],
						'{"type":"leaf","id":"n","parentId":"m1","timestamp":"2025-01-01T00:00:00Z","targetId":"m1"}',
						'{"type":"label","id":"l","parentId":"m1","timestamp":"2025-01-01T00:00:00Z","targetId":"n","label":"a"}',
					].join("\n"),
					/^line 4: targetId "n" names a leaf record/,
				],
				[
					[(good[0] as string).replace('"version":2', '"version":9')].join("\n"),
					/^line 1: version 9 is not supported/,
				],
			];
			for (const [text, message] of cases) {
				const error = await rejectsWithCode(store().importSession(ws, text), "INVALID_INPUT");
				expect(error.message).toMatch(message);
			}
			expect((await store().listSessions(ws, {})).totalCount).toBe(0);
		});

		it("importing a session id that exists is ALREADY_EXISTS and changes nothing", async () => {
			const ws = workspace();
			const imported = await store().importSession(ws, fixture("v2.jsonl"));
			const before = await snapshot(ws, imported.sessionId);
			await rejectsWithCode(
				store().importSession(ws, fixture("v3-harness.jsonl"), { sessionId: imported.sessionId }),
				"ALREADY_EXISTS",
			);
			expect(await snapshot(ws, imported.sessionId)).toEqual(before);
		});

		it.each(["v1.jsonl", "v2.jsonl", "v3-harness.jsonl"])(
			"re-importing %s, or its own export, returns the stored session (created: false) and writes nothing",
			async (file) => {
				const ws = workspace();
				const first = await store().importSession(ws, fixture(file), { author: "alice" });
				expect(first.created).toBe(true);
				const { created: _, ...record } = first;
				const before = await snapshot(ws, first.sessionId);
				expect(record).toEqual(before.session);
				const exported = await store().exportSession(ws, first.sessionId);
				// Another importer, the same file again, the version-3 export of a migrated file.
				for (const text of [fixture(file), exported]) {
					const again = await store().importSession(ws, text, { author: "bob" });
					expect(again).toEqual({ ...before.session, created: false });
				}
				expect(await snapshot(ws, first.sessionId)).toEqual(before);
				expect((await store().listSessions(ws, {})).totalCount).toBe(1);
			},
		);

		it("a file differing from the stored session in one entry, the header or length is ALREADY_EXISTS, changing nothing", async () => {
			const ws = workspace();
			const text = fixture("v2.jsonl");
			const imported = await store().importSession(ws, text);
			const lines = text.trimEnd().split("\n");
			const edited = (i: number, edit: (value: Record<string, unknown>) => void) => {
				const value = JSON.parse(lines[i] as string) as Record<string, unknown>;
				edit(value);
				return lines.map((line, j) => (j === i ? JSON.stringify(value) : line)).join("\n");
			};
			const variants = [
				edited(0, (h) => {
					h.cwd = "/elsewhere";
				}),
				edited(2, (e) => {
					(e.message as Record<string, unknown>).model = "another-model";
				}),
				edited(1, (e) => {
					e.timestamp = "2025-12-01T09:00:01.001Z";
				}),
				lines.slice(0, -1).join("\n"),
			];
			const before = await snapshot(ws, imported.sessionId);
			for (const variant of variants) {
				const error = await rejectsWithCode(store().importSession(ws, variant), "ALREADY_EXISTS");
				expect(error.message).toMatch(/already exists with different content/);
			}
			expect(await snapshot(ws, imported.sessionId)).toEqual(before);
			// A session written to since its import is no longer the file's.
			await store().appendEntry(ws, imported.sessionId, user("more"));
			await rejectsWithCode(store().importSession(ws, text), "ALREADY_EXISTS");
		});

		it("two identical imports at once store the session once: one is created, the other finds it", async () => {
			const ws = workspace();
			const results = await Promise.all([
				store().importSession(ws, fixture("v3-harness.jsonl")),
				store().importSession(ws, fixture("v3-harness.jsonl")),
			]);
			expect(results.map((r) => r.created).sort()).toEqual([false, true]);
			const log = await store().listEntries(ws, results[0]?.sessionId as string);
			expect(log.length).toBe(fixture("v3-harness.jsonl").trim().split("\n").length - 1);
		});

		it("reports import progress up to the total", async () => {
			const ws = workspace();
			const seen: Array<[number, number]> = [];
			await store().importSession(ws, fixture("v1.jsonl"), {
				onProgress: (done, total) => seen.push([done, total]),
			});
			expect(seen.at(-1)).toEqual([10, 10]);
		});
	});

	describe("the activity log", () => {
		const shape = (records: ActivityRecord[]) =>
			records.map((r) => [r.sessionId, r.fromSeq, r.toSeq, r.created] as const);

		it("holds every committed write of the workspace in order; resuming after any cursor gives the rest, once", async () => {
			const ws = workspace();
			const other = workspace();
			await store().createSession(ws, { sessionId: "a" });
			await store().appendEntry(ws, "a", withId("u1", user("one")));
			await store().createSession(other, { sessionId: "elsewhere" });
			await store().importSession(ws, fixture("v2.jsonl"), { sessionId: "b" });
			await store().appendEntry(ws, "a", assistant("two"));
			await store().moveLeaf(ws, "a", { targetId: "u1", summary: { summary: "back" } });
			await store().forkSession(ws, "a", { newSessionId: "c" });
			// Nothing written, nothing logged: a re-sent entry, a re-import, a refused write.
			await store().appendEntry(ws, "a", withId("u1", user("one")));
			await store().importSession(ws, fixture("v2.jsonl"), { sessionId: "b" });
			await rejectsWithCode(
				store().appendEntry(ws, "a", user("x"), { expectedLeafId: "nope" }),
				"LEAF_CONFLICT",
			);
			await store().renameSession(ws, "b", "Bee");

			// A transaction still running anywhere on the server (another test file's import of 100,000
			// entries, a background fold) holds later records back until it ends, as the contract allows:
			// read until all seven are in.
			let all = await store().activity(ws, { limit: 100 });
			for (const deadline = Date.now() + 25_000; all.length < 7 && Date.now() < deadline; ) {
				await new Promise((resolve) => setTimeout(resolve, 10));
				all = await store().activity(ws, { limit: 100 });
			}
			const forkLength = (await store().getSession(ws, "c"))?.lastSeq;
			expect(shape(all)).toEqual([
				["a", 1, 0, true],
				["a", 1, 1, false],
				["b", 1, 8, true],
				["a", 2, 2, false],
				["a", 3, 4, false],
				["c", 1, forkLength, true],
				["b", 9, 9, false],
			]);
			for (let i = 0; i < all.length; i++) {
				expect(await store().activity(ws, { after: all[i]?.cursor ?? null, limit: 100 })).toEqual(
					all.slice(i + 1),
				);
			}
			const paged: ActivityRecord[] = [];
			for (let page = await store().activity(ws, { limit: 2 }); page.length > 0; ) {
				paged.push(...page);
				page = await store().activity(ws, { after: page.at(-1)?.cursor ?? null, limit: 2 });
			}
			expect(paged).toEqual(all);
			// The latest records, in log order (where a feed of recent activity starts), and all when fewer.
			expect(await store().activity(ws, { latest: true, limit: 3 })).toEqual(all.slice(-3));
			expect(await store().activity(ws, { latest: true, limit: 100 })).toEqual(all);
			expect(shape(await store().activity(other, { latest: true, limit: 5 }))).toEqual([
				["elsewhere", 1, 0, true],
			]);
			expect(shape(await store().activity(other, { limit: 100 }))).toEqual([["elsewhere", 1, 0, true]]);
			// Now is after every record read so far: reading after it finds nothing yet.
			expect(await store().activity(ws, { after: await store().activityNow(), limit: 100 })).toEqual([]);
		});

		it("activityNow is a cursor like the records' own: reading after it gives what was written after it (perhaps a little before), also on a workspace with no activity", async () => {
			const ws = workspace();
			const empty = await store().activityNow();
			expect(await store().activity(ws, { after: empty, limit: 100 })).toEqual([]);
			await store().createSession(ws, { sessionId: "a" });
			const now = await store().activityNow();
			await store().appendEntry(ws, "a", user("one"));
			await store().createSession(ws, { sessionId: "b" });
			await store().createSession(workspace(), { sessionId: "elsewhere" });
			/** The records after `cursor` once all three writes are readable (see the test above). */
			const recordsAfter = async (cursor: string) => {
				let records = await store().activity(ws, { after: cursor, limit: 100 });
				for (const deadline = Date.now() + 25_000; !records.some((r) => r.sessionId === "b"); ) {
					if (Date.now() > deadline) break;
					await new Promise((resolve) => setTimeout(resolve, 10));
					records = await store().activity(ws, { after: cursor, limit: 100 });
				}
				return shape(records);
			};
			expect(await recordsAfter(empty)).toEqual([
				["a", 1, 0, true],
				["a", 1, 1, false],
				["b", 1, 0, true],
			]);
			// A write that committed before the call may follow it when a transaction older than it was
			// still running somewhere on the server then; a write after it always does.
			const later = await recordsAfter(now);
			expect(later.filter(([id, , , created]) => !(id === "a" && created))).toEqual([
				["a", 1, 1, false],
				["b", 1, 0, true],
			]);
		});

		it("a reader resuming while writes to many sessions commit sees each write exactly once, each session in seq order", async () => {
			const ws = workspace();
			const ids = ["s0", "s1", "s2", "s3"];
			for (const id of ids) await store().createSession(ws, { sessionId: id });
			const seen: ActivityRecord[] = [];
			let cursor: string | undefined;
			let writing = true;
			const read = async () => {
				const page = await store().activity(ws, { after: cursor ?? null, limit: 7 });
				seen.push(...page);
				cursor = page.at(-1)?.cursor ?? cursor;
				return page.length;
			};
			const reader = (async () => {
				while (writing) await read();
				// After the writes, a transaction still running elsewhere on the server may hold the last
				// records back a moment (the contract allows it): read until they are in, within a bound.
				const deadline = Date.now() + 25_000;
				while (seen.length < ids.length * 7 && Date.now() < deadline)
					if ((await read()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
				while ((await read()) > 0);
			})();
			await Promise.all(
				ids.map(async (id) => {
					for (let i = 0; i < 6; i++) await store().appendEntry(ws, id, user(`${id}-${i}`));
				}),
			);
			writing = false;
			await reader;
			expect(seen.length).toBe(ids.length * 7);
			for (const id of ids) {
				expect(seen.filter((r) => r.sessionId === id).map((r) => r.toSeq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
			}
		});

		it("a cursor that is not one of this feed is INVALID_INPUT naming afterCursor", async () => {
			const ws = workspace();
			for (const after of ["", "nope", Buffer.from('["a","x",1,1]').toString("base64url")]) {
				await rejectsWithCode(store().activity(ws, { after, limit: 10 }), "INVALID_INPUT", "afterCursor");
			}
		});
	});

	describe("fork", () => {
		it("imports a fork written by pi itself, and one with a parent the file lacks as a root, as pi reads them", async () => {
			const ws = workspace();
			const dir = mkdtempSync(join(tmpdir(), "pi-fork-"));
			try {
				// pi's createBranchedSession drops label entries from the path and writes them
				// again after it; pi 1.6 re-chains the entry after a label to the label's parent
				// (pi before 0.84 left it naming the dropped label: a root, as below).
				const pi = SessionManager.create("/work/pi", dir);
				const u1 = pi.appendMessage({ role: "user", content: "u1", timestamp: 1 } as never);
				pi.appendMessage({
					role: "assistant",
					content: [],
					provider: "p",
					model: "m",
					timestamp: 2,
				} as never);
				pi.appendLabelChange(u1, "start");
				const a2 = pi.appendMessage({
					role: "assistant",
					content: [],
					provider: "p",
					model: "m2",
					timestamp: 3,
				} as never);
				const file = pi.createBranchedSession(a2) as string;
				const text = readFileSync(file, "utf8");
				const imported = await store().importSession(ws, text);
				const expected = SessionManager.open(file).buildSessionContext();
				const { activeToolNames: _, ...ours } = await store().context(ws, imported.sessionId);
				expect(asJson(ours)).toEqual(asJson(expected));
				const forked = SessionManager.open(file);
				const stored = (await store().listEntries(ws, imported.sessionId)).find((e) => e.entry.id === a2);
				expect(stored?.entry.parentId).toBe(forked.getEntry(a2)?.parentId);
				expect(stored?.depth).toBe(forked.getBranch(a2).length - 1);
				expect(await store().labels(ws, imported.sessionId, [u1])).toEqual(new Map([[u1, "start"]]));

				// The same file as older pi wrote it: a2 names the dropped label, which the file lacks.
				const older = text
					.split("\n")
					.map((line) =>
						line.includes(`"id":"${a2}"`) ? line.replace(/"parentId":"[^"]*"/, '"parentId":"dropped"') : line,
					)
					.join("\n")
					.replace(/"id":"[0-9a-f-]{36}"/, '"id":"older-fork"');
				const olderFork = await store().importSession(ws, older);
				const orphan = (await store().listEntries(ws, olderFork.sessionId)).find((e) => e.entry.id === a2);
				expect(orphan?.depth).toBe(0);
				const olderPath = join(dir, "older.jsonl");
				writeFileSync(olderPath, older);
				const { activeToolNames: _o, ...olderOurs } = await store().context(ws, olderFork.sessionId);
				expect(asJson(olderOurs)).toEqual(asJson(SessionManager.open(olderPath).buildSessionContext()));
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		});

		it("a fork's export re-imports, labels of entries on other branches included", async () => {
			const ws = workspace();
			const s = store();
			await s.createSession(ws, { sessionId: "src" });
			await s.appendEntry(ws, "src", withId("u1", user("u1")));
			await s.appendEntry(ws, "src", withId("a1", assistant("a1")));
			await s.moveLeaf(ws, "src", { targetId: "u1" });
			// The label entry lands on the new branch but names a1, which the fork does not copy.
			await s.setLabel(ws, "src", "a1", "elsewhere");
			await s.appendEntry(ws, "src", withId("u2", user("u2")));
			const fork = await s.forkSession(ws, "src", { newSessionId: "fork" });
			const again = await s.importSession(ws, await s.exportSession(ws, "fork"), { sessionId: "fork-again" });
			expect(again.leafId).toBe(fork.leafId);
			expect(await s.context(ws, "fork-again")).toEqual(await s.context(ws, "fork"));
			expect((await s.activePath(ws, "fork-again")).map((e) => e.entry.id)).toEqual(
				(await s.activePath(ws, "fork")).map((e) => e.entry.id),
			);
		});

		it("copies the path root → entry into a new session naming its parent, with its labels", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			await store().setLabel(ws, sessionId, "u1", "start");
			await store().setLabel(ws, sessionId, "a2", "elsewhere");
			const fork = await store().forkSession(ws, sessionId, { entryId: "a3", newSessionId: "forked" });
			expect(fork).toMatchObject({ sessionId: "forked", parentSessionId: sessionId, cwd: null });
			const log = await store().listEntries(ws, "forked");
			expect(log.slice(0, 2).map((e) => [e.seq, e.depth, e.entry.id, e.entry.parentId])).toEqual([
				[1, 0, "u1", null],
				[2, 1, "a3", "u1"],
			]);
			expect(log.slice(2).map((e) => e.entry)).toMatchObject([
				{ type: "label", targetId: "u1", label: "start", parentId: "a3" },
			]);
			expect(await store().labels(ws, "forked", ["u1", "a2"])).toEqual(new Map([["u1", "start"]]));
			expect(fork.leafId).toBe(log.at(-1)?.entry.id);
			await expectPointerIsReplay(ws, "forked");
			const exported = await store().exportSession(ws, "forked");
			expect(JSON.parse(exported.split("\n")[0] as string)).toMatchObject({
				id: "forked",
				parentSession: sessionId,
			});
			expect((await store().context(ws, "forked")).messages).toEqual(
				(await store().context(ws, sessionId)).messages,
			);
		});

		it("forks from the current leaf by default and rejects bad targets, writing nothing", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			const fork = await store().forkSession(ws, sessionId);
			expect((await store().activePath(ws, fork.sessionId)).map((e) => e.entry.id)).toEqual(["u1", "a3"]);
			const leafRecord = (await store().listEntries(ws, sessionId, { types: ["leaf"] }))[0]?.entry
				.id as string;
			await rejectsWithCode(
				store().forkSession(ws, sessionId, { entryId: "ghost", newSessionId: "f1" }),
				"NOT_FOUND",
				"entryId",
			);
			await rejectsWithCode(
				store().forkSession(ws, sessionId, { entryId: leafRecord, newSessionId: "f2" }),
				"INVALID_INPUT",
				"entryId",
			);
			await rejectsWithCode(
				store().forkSession(ws, sessionId, { newSessionId: fork.sessionId }),
				"ALREADY_EXISTS",
			);
			expect(await store().getSession(ws, "f1")).toBeNull();
			expect(await store().getSession(ws, "f2")).toBeNull();
			expect((await store().listSessions(ws, {})).totalCount).toBe(2);
		});
	});

	describe("authors: who wrote each entry", () => {
		/** Each entry's id and author, in log order. */
		const authors = (entries: readonly StoredEntry[]) => entries.map((e) => [e.entry.id, e.author]);

		/** The export as pi objects must not know about authors: they are a column, not payload. */
		function expectNoAuthorIn(jsonl: string) {
			for (const line of jsonl.trimEnd().split("\n")) expect("author" in JSON.parse(line)).toBe(false);
		}

		it("every tree write records its author, null when absent, and every read returns it", async () => {
			const ws = workspace();
			const s = store();
			await s.createSession(ws, { sessionId: "s" });
			const u1 = await s.appendEntry(ws, "s", withId("u1", user("u1")), { author: "alice" });
			expect(u1.entry.author).toBe("alice");
			const a1 = await s.appendEntry(ws, "s", withId("a1", assistant("a1")));
			expect(a1.entry.author).toBeNull();
			const moved = await s.moveLeaf(ws, "s", {
				targetId: "u1",
				summary: { summary: "back to u1" },
				author: "bob",
			});
			expect(moved.leafEntry.author).toBe("bob");
			expect(moved.summaryEntry?.author).toBe("bob");
			const bare = await s.moveLeaf(ws, "s", { targetId: "a1" });
			expect(bare.leafEntry.author).toBeNull();
			const labelled = await s.setLabel(ws, "s", "u1", "start", { author: "carol" });
			expect(labelled.entry.author).toBe("carol");
			const cleared = await s.setLabel(ws, "s", "a1", null);
			expect(cleared.entry.author).toBeNull();
			const renamed = await s.renameSession(ws, "s", "named", { author: "dave" });
			expect(renamed.entry.author).toBe("dave");
			const unnamed = await s.renameSession(ws, "s", "");
			expect(unnamed.entry.author).toBeNull();

			const expected = [
				["u1", "alice"],
				["a1", null],
				[moved.leafEntry.entry.id, "bob"],
				[moved.summaryEntry?.entry.id, "bob"],
				[bare.leafEntry.entry.id, null],
				[labelled.entry.entry.id, "carol"],
				[cleared.entry.entry.id, null],
				[renamed.entry.entry.id, "dave"],
				[unnamed.entry.entry.id, null],
			];
			const log = await s.listEntries(ws, "s");
			expect(authors(log)).toEqual(expected);
			// The pi object is the payload alone.
			for (const e of log) expect("author" in e.entry).toBe(false);
			expect(authors(await s.listEntries(ws, "s", { fromEnd: true, limit: 2 }))).toEqual(expected.slice(-2));
			expect((await s.getEntry(ws, "s", "u1"))?.author).toBe("alice");
			const byId = await s.getEntries(ws, "s", ["u1", "a1"]);
			expect([byId.get("u1")?.author, byId.get("a1")?.author]).toEqual(["alice", null]);
			expect(authors((await s.children(ws, "s", ["u1"])).get("u1") ?? [])).toEqual([
				["a1", null],
				[moved.summaryEntry?.entry.id, "bob"],
			]);
			expect(authors(await s.activePath(ws, "s", { full: true }))).toEqual([
				["u1", "alice"],
				["a1", null],
				[labelled.entry.entry.id, "carol"],
				[cleared.entry.entry.id, null],
				[renamed.entry.entry.id, "dave"],
				[unnamed.entry.entry.id, null],
			]);
			expect(authors(await s.tips(ws, "s"))).toEqual([
				[moved.summaryEntry?.entry.id, "bob"],
				[unnamed.entry.entry.id, null],
			]);
			// The second instance replaces the first on PGlite: store() from here on.
			await backend.withSecondInstance(async (second) => {
				expect(await second.listEntries(ws, "s")).toEqual(log);
			});
			expectNoAuthorIn(await store().exportSession(ws, "s"));
		});

		it("a re-sent entry keeps its original author, whoever re-sends it", async () => {
			const ws = workspace();
			await store().createSession(ws, { sessionId: "s" });
			const first = await store().appendEntry(ws, "s", withId("e1", user("once")), { author: "alice" });
			const bySomeoneElse = await store().appendEntry(ws, "s", withId("e1", user("once")), {
				author: "mallory",
			});
			expect(bySomeoneElse.created).toBe(false);
			expect(bySomeoneElse.entry).toEqual(first.entry);
			expect(bySomeoneElse.entry.author).toBe("alice");
			const anonymously = await store().appendEntry(ws, "s", withId("e1", user("once")));
			expect(anonymously.created).toBe(false);
			expect(anonymously.entry.author).toBe("alice");
			expect(authors(await store().listEntries(ws, "s"))).toEqual([["e1", "alice"]]);
		});

		it("an import's rows are the importer's; the export is byte for byte the one without authors", async () => {
			// The same file under the same session id in two workspaces: v1 entry ids derive from the session id.
			const ws = workspace();
			const anonymousWs = workspace();
			for (const file of ["v1.jsonl", "v2.jsonl", "v3-harness.jsonl"]) {
				const text = fixture(file);
				const mine = await store().importSession(ws, text, { author: "importer" });
				const anonymous = await store().importSession(anonymousWs, text);
				const log = await store().listEntries(ws, mine.sessionId);
				expect(log.length).toBe(text.trim().split("\n").length - 1);
				expect(new Set(log.map((e) => e.author))).toEqual(new Set(["importer"]));
				const anonymousLog = await store().listEntries(anonymousWs, anonymous.sessionId);
				expect(new Set(anonymousLog.map((e) => e.author))).toEqual(new Set([null]));
				const exported = await store().exportSession(ws, mine.sessionId);
				expect(exported).toBe(await store().exportSession(anonymousWs, anonymous.sessionId));
				expectNoAuthorIn(exported);
			}
		});

		it("an author no text column can hold is INVALID_INPUT naming author, and writes nothing", async () => {
			const ws = workspace();
			const { sessionId } = await seed(ws);
			const before = await snapshot(ws, sessionId);
			for (const author of ["nul \u0000 byte", "half \ud800 pair", 5 as unknown as string]) {
				const writes = [
					store().appendEntry(ws, sessionId, user("x"), { author }),
					store().moveLeaf(ws, sessionId, { targetId: "u1", author }),
					store().setLabel(ws, sessionId, "u1", "x", { author }),
					store().renameSession(ws, sessionId, "x", { author }),
					store().importSession(ws, fixture("v2.jsonl"), { sessionId: "imported", author }),
					store().forkSession(ws, sessionId, { newSessionId: "forked", author }),
				];
				for (const write of writes) await rejectsWithCode(write, "INVALID_INPUT", "author");
			}
			expect(await snapshot(ws, sessionId)).toEqual(before);
			expect((await store().listSessions(ws, {})).totalCount).toBe(1);
		});

		it("a fork keeps the authors of the copied path; the labels it appends are the forker's", async () => {
			const ws = workspace();
			const s = store();
			await s.createSession(ws, { sessionId: "src" });
			await s.appendEntry(ws, "src", withId("u1", user("u1")), { author: "alice" });
			await s.appendEntry(ws, "src", withId("a1", assistant("a1")), { author: "bob" });
			await s.moveLeaf(ws, "src", { targetId: "u1", author: "carol" });
			await s.appendEntry(ws, "src", withId("a3", assistant("a3")));
			await s.setLabel(ws, "src", "u1", "start", { author: "dave" });
			const fork = await s.forkSession(ws, "src", { entryId: "a3", newSessionId: "f", author: "erin" });
			const log = await s.listEntries(ws, "f");
			expect(authors(log)).toEqual([
				["u1", "alice"],
				["a3", null],
				[fork.leafId, "erin"],
			]);
			expect(log[2]?.entry).toMatchObject({ type: "label", targetId: "u1", label: "start" });
			await s.forkSession(ws, "src", { entryId: "a3", newSessionId: "g" });
			expect((await s.listEntries(ws, "g")).map((e) => e.author)).toEqual(["alice", null, null]);
			expectNoAuthorIn(await s.exportSession(ws, "f"));
		});
	});

	describe("metrics equal a recomputation from the append logs", () => {
		it("holds for random workspaces of imports, appends, moves, labels and forks, and random queries", async () => {
			await metricsProperty(
				() => store(),
				workspace,
				backend.name === "memory" ? 40 : backend.name === "pglite" ? 6 : 8,
			);
		});

		it("refuses a malformed query with INVALID_INPUT naming the field", async () => {
			const ws = workspace();
			const base = {
				measures: ["entries"],
				dimensions: [],
				granularity: "day",
				timeZone: "UTC",
				filter: {},
				orderBy: [],
				limit: 10,
			} as const satisfies MetricsQuery;
			const cases: Array<[Partial<MetricsQuery>, string]> = [
				[{ measures: [] }, "measures"],
				[{ dimensions: ["model", "model"] }, "dimensions"],
				[{ timeZone: "Mars/Olympus" }, "timeZone"],
				[{ limit: 0 }, "limit"],
				[{ limit: 10_001 }, "limit"],
				[{ filter: { from: "2026-01-01T00:07:00Z" } }, "filter.from"],
				[{ filter: { to: "yesterday" } }, "filter.to"],
				[{ orderBy: [{ by: "cost", descending: true }] }, "orderBy"],
				[{ orderBy: [{ by: "model", descending: false }] }, "orderBy"],
			];
			for (const [change, field] of cases)
				await rejectsWithCode(store().metrics(ws, { ...base, ...change }), "INVALID_INPUT", field);
			expect((await store().metrics(ws, base)).rows).toEqual([
				{
					time: null,
					sessionId: null,
					entryType: null,
					role: null,
					provider: null,
					model: null,
					toolName: null,
					author: null,
					values: { entries: 0 },
				},
			]);
		});
	});

	describe("context equals pi's buildSessionContext on random trees", () => {
		it("holds for random sequences of appends, moves, summaries, compactions and labels", async () => {
			await randomTreeProperty(
				() => store(),
				workspace,
				backend.name === "memory" ? 300 : propertyRuns(100, 30),
			);
		});

		it("holds for random sessions written by pi 1.6.0 and by the harness 0.83.0 (npm run test:fidelity: 1,000 each)", async () => {
			const files = piDirectory();
			try {
				await fidelityProperty(
					() => store(),
					workspace,
					() => files.dir,
					backend.name === "memory" ? 40 : 15,
				);
			} finally {
				files.dispose();
			}
		});
	});
}
