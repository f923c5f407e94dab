/**
 * Archived sessions, on every backend (the conformance suite runs this):
 * read-only (every write ARCHIVED, nothing written, a re-sent entry still
 * answered), hidden from the list and the filtered list unless a filter asks
 * for archived ones, readable by id, and writable again once unarchived.
 */
import { describe, expect, it } from "vitest";
import type { DraftEntry } from "../../src/session/entry.js";
import { exportSessionFile } from "../../src/session/export.js";
import { sessionQuery } from "../../src/store/session-query.js";
import { headerOf, type SessionStore } from "../../src/store/store.js";
import { rejectsWithCode } from "../support/expect.js";

const user = (text: string, id?: string): DraftEntry =>
	({ type: "message", ...(id ? { id } : {}), message: { role: "user", content: text } }) as DraftEntry;

export function archiveSuite(store: () => SessionStore, workspace: () => string): void {
	describe("archived sessions", () => {
		async function archivedSession(ws: string) {
			const s = store();
			await s.createSession(ws, { sessionId: "old" });
			await s.appendEntry(ws, "old", user("one", "u1"));
			await s.appendEntry(ws, "old", user("two", "u2"));
			await s.createSession(ws, { sessionId: "live" });
			const archived = await s.setArchived(ws, "old", true);
			return { archived, log: await s.listEntries(ws, "old") };
		}

		it("refuses every write with ARCHIVED and writes nothing; a re-sent entry is still the stored one", async () => {
			const ws = workspace();
			const s = store();
			const { archived, log } = await archivedSession(ws);
			expect(archived.archivedAt).toEqual(expect.any(String));
			expect(archived).toMatchObject({ sessionId: "old", lastSeq: 2 });
			await rejectsWithCode(s.appendEntry(ws, "old", user("three")), "ARCHIVED", "sessionId");
			await rejectsWithCode(s.moveLeaf(ws, "old", { targetId: "u1" }), "ARCHIVED", "sessionId");
			await rejectsWithCode(s.setLabel(ws, "old", "u1", "start"), "ARCHIVED", "sessionId");
			await rejectsWithCode(s.renameSession(ws, "old", "renamed"), "ARCHIVED", "sessionId");
			const file = exportSessionFile(
				headerOf(archived),
				[...log.map((e) => e.entry), { ...log[1]?.entry, id: "u3", parentId: "u2" } as never],
				"lossless",
			);
			await rejectsWithCode(s.continueSession(ws, { jsonl: file }), "ARCHIVED", "sessionId");
			const again = await s.appendEntry(ws, "old", user("two", "u2"));
			expect(again).toMatchObject({ created: false, entry: { seq: 2 } });
			expect(await s.listEntries(ws, "old")).toEqual(log);
			expect(await s.getSession(ws, "old")).toEqual(archived);
			// Reads and a fork of it still work: archiving hides, it does not remove.
			expect((await s.context(ws, "old")).messages).toHaveLength(2);
			const fork = await s.forkSession(ws, "old", { newSessionId: "revived" });
			expect(fork).toMatchObject({ archivedAt: null, lastSeq: 2 });
		});

		it("hides it from the list and the filtered list unless the filter asks for archived ones", async () => {
			const ws = workspace();
			const s = store();
			await archivedSession(ws);
			const listed = await s.listSessions(ws, { first: 10 });
			expect(listed.items.map((i) => i.node.sessionId)).toEqual(["live"]);
			expect(listed.totalCount).toBe(1);
			const found = await s.findSessions(ws, sessionQuery({ orderBy: { field: "created" } }));
			expect(found.items.map((i) => i.node.sessionId)).toEqual(["live"]);
			const archived = await s.findSessions(ws, sessionQuery({ filter: { archived: true } }));
			expect(archived.items.map((i) => i.node.sessionId)).toEqual(["old"]);
			expect(archived.totalCount).toBe(1);
			expect((await s.getSession(ws, "old"))?.archivedAt).toEqual(expect.any(String));
		});

		it("keeps the first archivedAt, and unarchiving makes it writable and listed again", async () => {
			const ws = workspace();
			const s = store();
			const { archived } = await archivedSession(ws);
			expect((await s.setArchived(ws, "old", true)).archivedAt).toBe(archived.archivedAt);
			const back = await s.setArchived(ws, "old", false);
			expect(back).toEqual({ ...archived, archivedAt: null });
			expect((await s.appendEntry(ws, "old", user("three"))).entry.seq).toBe(3);
			const listed = await s.listSessions(ws, { first: 10 });
			expect(listed.items.map((i) => i.node.sessionId).sort()).toEqual(["live", "old"]);
			expect((await s.setArchived(ws, "live", false)).archivedAt).toBeNull();
		});

		it("NOT_FOUND for a session the workspace lacks, and another workspace's stays as it is", async () => {
			const ws = workspace();
			await archivedSession(ws);
			await rejectsWithCode(store().setArchived(ws, "missing", true), "NOT_FOUND");
			await rejectsWithCode(store().setArchived(workspace(), "old", false), "NOT_FOUND");
			expect((await store().getSession(ws, "old"))?.archivedAt).toEqual(expect.any(String));
		});
	});
}
