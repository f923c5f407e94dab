import { describe, expect, it } from "vitest";
import { newEntryId, newSessionId } from "../../src/session/ids.js";

describe("new ids", () => {
	it("entry ids are 16 hex characters, none repeated across many draws of random bytes", () => {
		// 512 ids share one draw: 5,000 cross ten of them.
		const ids = Array.from({ length: 5_000 }, () => newEntryId());
		for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
		expect(new Set(ids).size).toBe(ids.length);
	});

	it("session ids are UUIDv7, ordered by their time", () => {
		const [early, late] = [newSessionId(1_000), newSessionId(2_000)] as [string, string];
		expect(early).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(early < late).toBe(true);
	});
});
