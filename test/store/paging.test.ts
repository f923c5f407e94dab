/**
 * The paging module on its own: windows from connection arguments, pages from
 * the store's limit+1 rows, and the opaque strings clients keep between calls
 * (which must never change: a client's stored cursor or id has to keep working).
 */
import { describe, expect, it } from "vitest";
import { SessionError } from "../../src/session/errors.js";
import { decodeOpaque, encodeOpaque } from "../../src/store/opaque.js";
import {
	DEFAULT_ENTRY_PAGE_SIZE,
	decodeSeqCursor,
	decodeSessionCursor,
	entryPage,
	entryWindow,
	seqCursor,
	sessionCursor,
	sessionWindow,
} from "../../src/store/paging.js";

function rejection(run: () => unknown): { code: string; field: string | undefined; message: string } {
	try {
		run();
	} catch (error) {
		if (error instanceof SessionError)
			return { code: error.code, field: error.field, message: error.message };
		throw error;
	}
	throw new Error("expected a SessionError");
}

const rows = (...seqs: number[]) => seqs.map((seq) => ({ seq }));
const seqsOf = (page: { items: Array<{ node: { seq: number } }> }) => page.items.map((i) => i.node.seq);

describe("opaque strings stay byte-identical", () => {
	// Literals taken from the codecs before they shared one implementation.
	it("entry cursors are base64 of seq:N", () => {
		expect(seqCursor(0)).toBe("c2VxOjA=");
		expect(seqCursor(7)).toBe("c2VxOjc=");
		expect(seqCursor(2_147_483_647)).toBe("c2VxOjIxNDc0ODM2NDc=");
		expect(decodeSeqCursor("c2VxOjc=", "after")).toBe(7);
	});

	it("session cursors are base64url of a JSON array", () => {
		const key = { updatedAt: "2026-01-31T12:00:00.000Z", sessionId: "s/é?~>" };
		expect(sessionCursor(key)).toBe("WyIyMDI2LTAxLTMxVDEyOjAwOjAwLjAwMFoiLCJzL8OpP34-Il0");
		expect(decodeSessionCursor(sessionCursor(key), "after")).toEqual(key);
	});

	it("global ids are standard base64 of a JSON array", () => {
		expect(encodeOpaque(["Session", "s/é?~>"], "base64")).toBe("WyJTZXNzaW9uIiwicy/DqT9+PiJd");
		expect(encodeOpaque(["Entry", "sess-1", "a1b2c3d4"], "base64")).toBe(
			"WyJFbnRyeSIsInNlc3MtMSIsImExYjJjM2Q0Il0=",
		);
		expect(decodeOpaque("WyJTZXNzaW9uIiwicy/DqT9+PiJd", "base64")).toEqual(["Session", "s/é?~>"]);
	});

	it("anything but a base64 JSON array decodes to nothing", () => {
		expect(decodeOpaque("not base64 at all!", "base64")).toBeUndefined();
		expect(decodeOpaque(Buffer.from('{"a":1}').toString("base64url"), "base64url")).toBeUndefined();
		expect(decodeOpaque(Buffer.from("[1,").toString("base64"), "base64")).toBeUndefined();
		expect(decodeOpaque(seqCursor(3), "base64")).toBeUndefined();
	});
});

describe("entry windows", () => {
	it("default to the first page of 50 from the start of the log", () => {
		expect(entryWindow({})).toEqual({ afterSeq: 0, limit: DEFAULT_ENTRY_PAGE_SIZE, backward: false });
		expect(DEFAULT_ENTRY_PAGE_SIZE).toBe(50);
		expect(entryWindow({ first: null, after: null, last: null, before: null })).toEqual(entryWindow({}));
	});

	it("read after/before cursors and last as a backward window", () => {
		expect(entryWindow({ first: 3, after: seqCursor(9) })).toEqual({
			afterSeq: 9,
			limit: 3,
			backward: false,
		});
		expect(entryWindow({ last: 4, before: seqCursor(12) })).toEqual({
			afterSeq: 0,
			beforeSeq: 12,
			limit: 4,
			backward: true,
		});
		expect(entryWindow({ first: 0 }).limit).toBe(0);
	});

	it("refuse first with last, with the same message as session windows", () => {
		const entries = rejection(() => entryWindow({ first: 1, last: 1 }));
		const sessions = rejection(() => sessionWindow({ first: 1, last: 1 }));
		expect(entries).toEqual({
			code: "INVALID_INPUT",
			field: "last",
			message: "last: cannot be combined with first",
		});
		expect(sessions).toEqual(entries);
	});

	it("check page sizes and cursors", () => {
		expect(rejection(() => entryWindow({ first: -1 }))).toMatchObject({
			code: "INVALID_INPUT",
			field: "first",
		});
		expect(rejection(() => entryWindow({ last: 501 }))).toMatchObject({
			code: "LIMIT_EXCEEDED",
			field: "last",
		});
		expect(rejection(() => entryWindow({ after: "bm9wZQ" }))).toEqual({
			code: "INVALID_INPUT",
			field: "after",
			message: "after: is not an entry cursor from this API",
		});
		// A session cursor is not an entry cursor, and seq is a Postgres integer.
		const sessionKey = sessionCursor({ updatedAt: "2026-01-31T12:00:00.000Z", sessionId: "s" });
		expect(rejection(() => entryWindow({ before: sessionKey }))).toMatchObject({ field: "before" });
		const tooBig = Buffer.from("seq:2147483648").toString("base64");
		expect(rejection(() => entryWindow({ after: tooBig }))).toMatchObject({ field: "after" });
	});
});

describe("entry pages from limit+1 rows in seq order", () => {
	it("forward: the extra row means a next page; after means a previous one", () => {
		const page = entryPage(rows(1, 2, 3), entryWindow({ first: 2 }));
		expect(seqsOf(page)).toEqual([1, 2]);
		expect(page.items.map((i) => i.cursor)).toEqual([seqCursor(1), seqCursor(2)]);
		expect(page).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

		const last = entryPage(rows(3, 4), entryWindow({ first: 2, after: seqCursor(2) }));
		expect(seqsOf(last)).toEqual([3, 4]);
		expect(last).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
		// after seq 0 is the start of the log: nothing before it.
		expect(entryPage(rows(1), entryWindow({ after: seqCursor(0) })).hasPreviousPage).toBe(false);
	});

	it("backward: keeps the newest rows; the extra row means a previous page; before means a next one", () => {
		const page = entryPage(rows(2, 3, 4), entryWindow({ last: 2 }));
		expect(seqsOf(page)).toEqual([3, 4]);
		expect(page).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

		const first = entryPage(rows(1, 2), entryWindow({ last: 2, before: seqCursor(3) }));
		expect(seqsOf(first)).toEqual([1, 2]);
		expect(first).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
	});

	it("an empty or zero-sized page still says whether there is more", () => {
		expect(entryPage([], entryWindow({}))).toEqual({ items: [], hasNextPage: false, hasPreviousPage: false });
		const none = entryPage(rows(5), entryWindow({ last: 0, before: seqCursor(9) }));
		expect(none).toEqual({ items: [], hasNextPage: true, hasPreviousPage: true });
	});
});
