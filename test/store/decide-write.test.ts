/**
 * The tree-write rules as one pure decision (src/store/write.ts decideWrite,
 * src/store/continuation.ts decideContinuation): given a snapshot and a
 * write, the same rows or the same coded refusal, without a store. The
 * conformance suite proves every backend calls them; these cases pin the
 * order of checks and that a decision touches nothing it was given.
 */
import { describe, expect, it } from "vitest";
import type { PlanClock } from "../../src/session/append.js";
import type { StoredEntry } from "../../src/session/entry.js";
import { DEFAULT_INPUT_LIMITS } from "../../src/session/limits.js";
import { decideContinuation, readContinuation } from "../../src/store/continuation.js";
import { newSessionRecord } from "../../src/store/records.js";
import type { SessionRecord } from "../../src/store/store.js";
import {
	appendWrite,
	decideWrite,
	labelWrite,
	moveWrite,
	renameWrite,
	type WriteSnapshot,
} from "../../src/store/write.js";

const limits = DEFAULT_INPUT_LIMITS;
const user = (text: string) => ({ type: "message", message: { role: "user", content: text } });
let ids = 0;
const clock: PlanClock = { now: () => "2026-12-04T00:00:00.000Z", newId: () => `e${++ids}` };

function emptySession(): SessionRecord {
	return newSessionRecord("ws", { sessionId: "s1" }, "2026-12-04T00:00:00.000Z", limits);
}

/** The snapshot after committing a decision, as a backend would. */
function committed(
	snapshot: WriteSnapshot,
	rows: readonly StoredEntry[],
	session: SessionRecord,
): WriteSnapshot {
	const found = new Map(snapshot.found);
	for (const row of rows) found.set(row.entry.id, row);
	return { session, found };
}

describe("decideWrite, the tree-write rules as one pure decision", () => {
	it("plans an append under the leaf with the next seq and moves the pointer, changing nothing it was given", () => {
		const snapshot: WriteSnapshot = { session: emptySession(), found: new Map() };
		const before = structuredClone(snapshot);
		const first = decideWrite(snapshot, appendWrite("s1", user("hi"), {}, limits), clock);
		expect(first.rows.map((r) => [r.seq, r.depth, r.entry.parentId])).toEqual([[1, 0, null]]);
		expect(first.session).toMatchObject({ leafId: first.rows[0]?.entry.id, lastSeq: 1, entryCount: 1 });
		expect(snapshot).toEqual(before);
		const next = committed(snapshot, first.rows, first.session);
		const second = decideWrite(next, appendWrite("s1", user("again"), {}, limits), clock);
		expect(second.rows.map((r) => [r.seq, r.depth, r.entry.parentId])).toEqual([
			[2, 1, first.rows[0]?.entry.id],
		]);
	});

	it("refuses in its order: no session, then a re-sent entry, then the expected leaf, then the target", () => {
		const write = appendWrite("s1", user("hi"), { expectedLeafId: "elsewhere" }, limits);
		expect(() => decideWrite(null, write, clock)).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
		const snapshot: WriteSnapshot = { session: emptySession(), found: new Map() };
		expect(() => decideWrite(snapshot, write, clock)).toThrow(
			expect.objectContaining({ code: "LEAF_CONFLICT" }),
		);
		const stored = decideWrite(snapshot, appendWrite("s1", { ...user("hi"), id: "x1" }, {}, limits), clock);
		const after = committed(snapshot, stored.rows, stored.session);
		// The same entry re-sent under a stale expectation is the stored one, not a conflict.
		const again = decideWrite(
			after,
			appendWrite("s1", { ...user("hi"), id: "x1" }, { expectedLeafId: null }, limits),
		);
		expect(again.replayed?.entry.id).toBe("x1");
		expect(again.rows).toEqual([]);
		expect(() =>
			decideWrite(after, appendWrite("s1", { ...user("other"), id: "x1" }, {}, limits), clock),
		).toThrow(expect.objectContaining({ code: "ALREADY_EXISTS" }));
		expect(() => decideWrite(after, labelWrite("s1", "missing", "l", {}, limits), clock)).toThrow(
			expect.objectContaining({ code: "NOT_FOUND" }),
		);
	});

	it("checks each call's input once, before any snapshot: INVALID_INPUT, and NOT_FOUND for an id no store can hold", () => {
		expect(() => appendWrite("s1", { type: "leaf", targetId: null }, {}, limits)).toThrow(
			expect.objectContaining({ code: "INVALID_INPUT", field: "entry.type" }),
		);
		expect(() => moveWrite("s1", { targetId: "" }, limits)).toThrow(
			expect.objectContaining({ code: "INVALID_INPUT", field: "targetId" }),
		);
		expect(() => renameWrite("s1", 7 as unknown as string, {}, limits)).toThrow(
			expect.objectContaining({ code: "INVALID_INPUT", field: "name" }),
		);
		expect(() => appendWrite("s1", user("hi"), { author: 3 as unknown as string }, limits)).toThrow(
			expect.objectContaining({ code: "INVALID_INPUT", field: "author" }),
		);
		expect(() => appendWrite("bad\u0000id", user("hi"), {}, limits)).toThrow(
			expect.objectContaining({ code: "NOT_FOUND", field: "sessionId" }),
		);
	});
});

describe("decideContinuation, a pi file's continuation as one pure decision", () => {
	const header = JSON.stringify({
		type: "session",
		version: 3,
		id: "s1",
		timestamp: "2026-12-04T00:00:00.000Z",
		cwd: "/w",
	});
	const line = (id: string, parentId: string | null, text: string) =>
		JSON.stringify({ ...user(text), id, parentId, timestamp: "2026-12-04T00:00:01.000Z" });

	it("appends the lines after the entry they follow, holds what the session has, and refuses a missing anchor", () => {
		const request = readContinuation(
			{ sessionId: "s1", afterEntryId: null, jsonl: `${line("a", null, "one")}\n${line("b", "a", "two")}\n` },
			null,
			limits,
		);
		const session = emptySession();
		const outcome = decideContinuation(
			{ session, after: null, tail: [], found: new Map() },
			request,
			null,
			clock,
		);
		expect(outcome.rows.map((r) => r.entry.id)).toEqual(["a", "b"]);
		expect(outcome).toMatchObject({ appended: 2, held: 0, session: { leafId: "b", lastSeq: 2 } });
		const upToDate = decideContinuation(
			{ session: outcome.session, after: null, tail: outcome.rows, found: new Map() },
			request,
			null,
			clock,
		);
		expect(upToDate).toMatchObject({ rows: [], appended: 0, held: 2 });
		const later = readContinuation(
			{ sessionId: "s1", afterEntryId: "zz", jsonl: `${line("c", "zz", "x")}\n` },
			null,
			limits,
		);
		expect(() =>
			decideContinuation({ session, after: undefined, tail: [], found: new Map() }, later, null, clock),
		).toThrow(expect.objectContaining({ code: "NOT_FOUND", field: "afterEntryId" }));
		expect(() => decideContinuation(null, later, null, clock)).toThrow(
			expect.objectContaining({ code: "NOT_FOUND" }),
		);
	});

	it("refuses a whole file whose header is not the stored session's (ALREADY_EXISTS on jsonl)", () => {
		const other = header.replace('"/w"', '"/elsewhere"');
		const request = readContinuation({ jsonl: `${other}\n${line("a", null, "one")}\n` }, null, limits);
		const session = { ...emptySession(), cwd: "/w" };
		expect(() =>
			decideContinuation({ session, after: null, tail: [], found: new Map() }, request, null, clock),
		).toThrow(expect.objectContaining({ code: "ALREADY_EXISTS", field: "jsonl" }));
	});
});
