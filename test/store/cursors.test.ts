/**
 * Cursors a client could forge are refused as INVALID_INPUT before any
 * statement sees them (a value Postgres cannot hold would otherwise be an
 * internal error), and the tree's path cache reads a path once however many
 * pages ask for it at the same time.
 */
import { describe, expect, it } from "vitest";
import { isSessionError } from "../../src/session/errors.js";
import { activityCursor, parseActivityCursor } from "../../src/store/activity-cursor.js";
import { encodeOpaque } from "../../src/store/opaque.js";
import { PathCache } from "../../src/store/postgres/tree.js";
import { sessionQuery } from "../../src/store/session-query.js";

const refused = (run: () => unknown, field: string) => {
	try {
		run();
	} catch (error) {
		expect(isSessionError(error, "INVALID_INPUT")).toBe(true);
		expect((error as { field?: string }).field).toBe(field);
		return;
	}
	throw new Error("not refused");
};

describe("forged cursors", () => {
	it("an activity cursor past what xid8 and integer columns hold is refused", () => {
		const fine = activityCursor({ xid: "18446744073709551615", key: 2_147_483_647, toSeq: 1 });
		expect(parseActivityCursor(fine).xid).toBe("18446744073709551615");
		refused(
			() => parseActivityCursor(activityCursor({ xid: "18446744073709551616", key: 1, toSeq: 1 })),
			"afterCursor",
		);
		refused(
			() => parseActivityCursor(activityCursor({ xid: "1", key: 2_147_483_648, toSeq: 1 })),
			"afterCursor",
		);
		refused(() => parseActivityCursor(activityCursor({ xid: "1", key: 1, toSeq: 2 ** 40 })), "afterCursor");
	});

	it("a sessions cursor whose value does not fit its order is refused", () => {
		const cursor = (value: unknown, field = "cost") =>
			encodeOpaque(["sessions", field, true, value, "s"], "base64url");
		expect(sessionQuery({ orderBy: { field: "cost" }, after: cursor(1.5) }).after).toEqual({
			value: 1.5,
			sessionId: "s",
		});
		refused(() => sessionQuery({ orderBy: { field: "cost" }, after: cursor("abc") }), "after");
		refused(() => sessionQuery({ orderBy: { field: "activity" }, after: cursor(5, "activity") }), "after");
		refused(
			() => sessionQuery({ orderBy: { field: "activity" }, after: cursor("yesterday", "activity") }),
			"after",
		);
	});

	it("an empty name filter is no filter", () => {
		expect(sessionQuery({ filter: { nameContains: "" } }).filter.nameContains).toBeNull();
	});
});

describe("the tree's path cache", () => {
	it("reads a path once for concurrent pages and keeps its count of ids right", async () => {
		const cache = new PathCache(10);
		let reads = 0;
		const read = (ids: string[]) => async () => {
			reads += 1;
			await new Promise((resolve) => setImmediate(resolve));
			return ids;
		};
		const four = ["a", "b", "c", "d"];
		const sets = await Promise.all([1, 2, 3].map(() => cache.pathOf(["w", "s", "l"], read(four))));
		expect(reads).toBe(1);
		for (const set of sets) expect([...set]).toEqual(four);
		// 4 + 4 ids fit in 10: both stay, so neither is read again.
		await cache.pathOf(["w", "s", "m"], read(["e", "f", "g", "h"]));
		await cache.pathOf(["w", "s", "l"], read(four));
		await cache.pathOf(["w", "s", "m"], read(["e", "f", "g", "h"]));
		expect(reads).toBe(2);
		// A third path makes room by dropping the least recently used (l).
		await cache.pathOf(["w", "s", "n"], read(["i", "j", "k"]));
		await cache.pathOf(["w", "s", "m"], read(["e", "f", "g", "h"]));
		expect(reads).toBe(3);
		await cache.pathOf(["w", "s", "l"], read(four));
		expect(reads).toBe(4);
	});
});
