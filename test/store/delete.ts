/**
 * Deleting a session, on every backend (the conformance suite runs this):
 * the session and what derives from it leave every read (its log, the list,
 * search, metrics, the activity log), metrics equal those of a workspace
 * that never held it, a racing write lands before the delete or is
 * NOT_FOUND, and its id may be used again by a new, empty session.
 */
import { describe, expect, it } from "vitest";
import type { MetricsQuery } from "../../src/session/analytics/metrics.js";
import type { DraftEntry } from "../../src/session/entry.js";
import { deleteWorkspaceSessions } from "../../src/store/offboard.js";
import type { SessionStore } from "../../src/store/store.js";
import { rejectsWithCode } from "../support/expect.js";
import { paidAnswer } from "../support/messages.js";

const user = (text: string): DraftEntry =>
	({ type: "message", message: { role: "user", content: text, timestamp: 1 } }) as DraftEntry;

/** An assistant turn with usage, so that the session has rollups and turns to remove. */
const paid = (text: string, model: string, cost: number) => paidAnswer(text, model, cost, 15);

/** Read from the workspace's rollups where a backend keeps them (no per-session measure or filter). */
const BY_MODEL: MetricsQuery = {
	measures: ["entries", "assistantTurns", "totalTokens", "cost", "maxCostPerAssistantTurn"],
	dimensions: ["model"],
	granularity: "day",
	timeZone: "UTC",
	filter: {},
	orderBy: [],
	limit: 100,
};

/** Read from the sessions' own rollups. */
const SESSIONS_BY_MODEL: MetricsQuery = { ...BY_MODEL, measures: [...BY_MODEL.measures, "activeSessions"] };

/** Folds rollups now where the backend keeps workspace rollups, so a delete meets folded rows. */
async function foldNow(store: SessionStore): Promise<void> {
	await (store as { foldRollups?: () => Promise<number> }).foldRollups?.();
}

export function deleteSuite(store: () => SessionStore, workspace: () => string): void {
	describe("deleting a session", () => {
		/** Two sessions with the same kind of activity (the same model), so their rollups share keys. */
		async function twoSessions(ws: string) {
			const s = store();
			for (const [id, cost] of [
				["kept", 0.5],
				["doomed", 2],
			] as const) {
				await s.createSession(ws, { sessionId: id, name: `${id} deploy notes` });
				await s.appendEntry(ws, id, user(`deploy question ${id}`));
				await s.appendEntry(ws, id, paid(`deploy answer ${id}`, "m1", cost));
				await s.appendEntry(ws, id, paid(`second answer ${id}`, id === "doomed" ? "m2" : "m1", cost));
			}
			await foldNow(s);
		}

		it("removes the session from every read, and metrics equal a workspace that never held it", async () => {
			const ws = workspace();
			const s = store();
			await twoSessions(ws);
			const kept = await s.exportSession(ws, "kept", { format: "lossless" });
			const before = await s.metrics(ws, BY_MODEL);
			expect(before.rows.map((r) => r.model)).toEqual(["m1", "m2", null]);

			const deleted = await s.deleteSession(ws, "doomed");
			expect(deleted).toMatchObject({ sessionId: "doomed", lastSeq: 3 });
			expect(await s.getSession(ws, "doomed")).toBeNull();
			expect((await s.getSessions(ws, ["doomed", "kept"])).has("doomed")).toBe(false);
			await rejectsWithCode(s.listEntries(ws, "doomed"), "NOT_FOUND");
			await rejectsWithCode(s.listEntries(ws, "doomed", { afterSeq: 1 }), "NOT_FOUND");
			await rejectsWithCode(s.context(ws, "doomed"), "NOT_FOUND");
			await rejectsWithCode(s.exportSession(ws, "doomed"), "NOT_FOUND");
			expect((await s.listSessions(ws, { first: 10 })).items.map((i) => i.node.sessionId)).toEqual(["kept"]);
			const hits = await s.search(ws, { text: "deploy", first: 20 });
			expect(hits.hits.map((h) => h.entry.sessionId).sort()).toEqual(["kept", "kept"]);
			const activity = await s.activity(ws, { after: null, limit: 100 });
			expect(activity.map((r) => r.sessionId)).not.toContain("doomed");
			expect(activity.filter((r) => r.sessionId === "kept")).toHaveLength(4);

			// The same metrics as a workspace holding only the kept session, written the same way.
			const alone = workspace();
			await s.importSession(alone, kept);
			await foldNow(s);
			for (const query of [BY_MODEL, SESSIONS_BY_MODEL]) {
				const expected = await s.metrics(alone, query);
				expect((await s.metrics(ws, query)).rows).toEqual(expected.rows);
				expect(expected.rows.map((r) => r.model)).toEqual(["m1", null]);
				await foldNow(s);
				expect((await s.metrics(ws, query)).rows).toEqual(expected.rows);
			}
			// The kept session is whole.
			expect((await s.listEntries(ws, "kept")).map((e) => e.seq)).toEqual([1, 2, 3]);
		});

		it("a write racing the delete lands before it or is NOT_FOUND; the id then names a new, empty session", async () => {
			const ws = workspace();
			const s = store();
			await s.createSession(ws, { sessionId: "raced" });
			await s.appendEntry(ws, "raced", user("first"));
			const results = await Promise.allSettled([
				...Array.from({ length: 10 }, (_, i) => s.appendEntry(ws, "raced", user(`w${i}`))),
				s.deleteSession(ws, "raced"),
				...Array.from({ length: 10 }, (_, i) => s.appendEntry(ws, "raced", user(`x${i}`))),
			]);
			const deleted = results[10];
			expect(deleted?.status).toBe("fulfilled");
			const landed = results.filter((r, i) => i !== 10 && r.status === "fulfilled").length;
			for (const [i, r] of results.entries())
				if (i !== 10 && r.status === "rejected")
					expect((r.reason as { code?: string }).code).toBe("NOT_FOUND");
			// What landed was deleted with the session: the record the delete answers counts it.
			expect((deleted as PromiseFulfilledResult<{ lastSeq: number }>).value.lastSeq).toBe(1 + landed);
			await rejectsWithCode(s.appendEntry(ws, "raced", user("after")), "NOT_FOUND");

			const again = await s.createSession(ws, { sessionId: "raced" });
			expect(again).toMatchObject({ lastSeq: 0, leafId: null, archivedAt: null });
			expect(await s.listEntries(ws, "raced")).toEqual([]);
			expect((await s.appendEntry(ws, "raced", user("new life"))).entry.seq).toBe(1);
			expect(
				(await s.sessionTree(ws, "raced", { afterSeq: 0, first: 10 })).nodes.map((n) => n.onActivePath),
			).toEqual([true]);
		});

		it("NOT_FOUND for a session the workspace lacks, and another workspace's session of that id stays", async () => {
			const ws = workspace();
			const other = workspace();
			const s = store();
			await s.createSession(other, { sessionId: "shared-id" });
			await s.appendEntry(other, "shared-id", user("theirs"));
			await rejectsWithCode(s.deleteSession(ws, "shared-id"), "NOT_FOUND");
			await rejectsWithCode(s.deleteSession(ws, "bad\u0000id"), "NOT_FOUND");
			expect((await s.getSession(other, "shared-id"))?.lastSeq).toBe(1);
			await s.deleteSession(other, "shared-id");
			await rejectsWithCode(s.deleteSession(other, "shared-id"), "NOT_FOUND");
		});

		it("offboarding deletes every session of the workspace, archived ones included, a batch per call, until none remains", async () => {
			const ws = workspace();
			const other = workspace();
			const s = store();
			for (const id of ["o1", "o2", "o3", "o4", "o5"]) {
				await s.createSession(ws, { sessionId: id });
				await s.appendEntry(ws, id, paid(`answer ${id}`, "m1", 1));
			}
			await s.setArchived(ws, "o5", true);
			await s.createSession(other, { sessionId: "o1" });
			await rejectsWithCode(deleteWorkspaceSessions(s, ws, 0), "INVALID_INPUT", "first");
			await rejectsWithCode(deleteWorkspaceSessions(s, ws, 1_001), "INVALID_INPUT", "first");
			expect(await deleteWorkspaceSessions(s, ws, 2)).toEqual({ deleted: 2, remaining: 3 });
			// An interrupted run leaves whole sessions: the next call goes on with the rest.
			expect(await deleteWorkspaceSessions(s, ws, 2)).toEqual({ deleted: 2, remaining: 1 });
			expect(await deleteWorkspaceSessions(s, ws, 10)).toEqual({ deleted: 1, remaining: 0 });
			expect(await deleteWorkspaceSessions(s, ws, 10)).toEqual({ deleted: 0, remaining: 0 });
			for (const id of ["o1", "o2", "o3", "o4", "o5"]) expect(await s.getSession(ws, id)).toBeNull();
			expect((await s.metrics(ws, BY_MODEL)).rows.every((r) => r.values.entries === 0)).toBe(true);
			expect(await s.getSession(other, "o1")).not.toBeNull();
		});
	});
}
