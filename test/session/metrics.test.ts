import { describe, expect, it } from "vitest";
import { compareCodePoints, timeBucket } from "../../src/session/analytics/metrics.js";

describe("metrics rules", () => {
	it("orders text by code point, as PostgreSQL's C collation does", () => {
		// U+FF5E (one UTF-16 unit) comes before U+1F600 (two units starting at 0xD83D) by code point.
		const words = ["😀", "～", "a", "ab", ""];
		expect([...words].sort(compareCodePoints)).toEqual(["", "a", "ab", "～", "😀"]);
		expect([...words].sort()).not.toEqual([...words].sort(compareCodePoints));
	});

	it("buckets time in a zone: days from local midnight, weeks from Monday, hours apart across a fall-back", () => {
		expect(timeBucket("2026-03-01T23:30:00.000Z", "day", "Europe/Berlin")).toBe("2026-03-01T23:00:00.000Z");
		expect(timeBucket("2026-03-01T23:30:00.000Z", "day", "Asia/Kolkata")).toBe("2026-03-01T18:30:00.000Z");
		// 2026-03-04 is a Wednesday.
		expect(timeBucket("2026-03-04T12:00:00.000Z", "week", "UTC")).toBe("2026-03-02T00:00:00.000Z");
		expect(timeBucket("2026-03-04T12:00:00.000Z", "month", "America/New_York")).toBe(
			"2026-03-01T05:00:00.000Z",
		);
		// New York's 1:30 happens twice on 2026-11-01: two hours, as PostgreSQL's date_trunc makes them.
		expect(timeBucket("2026-11-01T05:30:00.000Z", "hour", "America/New_York")).toBe(
			"2026-11-01T05:00:00.000Z",
		);
		expect(timeBucket("2026-11-01T06:30:00.000Z", "hour", "America/New_York")).toBe(
			"2026-11-01T06:00:00.000Z",
		);
		// Santiago skips midnight on 2026-09-06: that day starts at 01:00 local.
		expect(timeBucket("2026-09-06T12:00:00.000Z", "day", "America/Santiago")).toBe(
			"2026-09-06T04:00:00.000Z",
		);
	});
});
