/**
 * How the session page draws its viewers (web/src/presence/avatars.ts): one
 * avatar per subject with a count of its tabs, one per anonymous viewer, the
 * page's own marked, and other viewers' focus by entry.
 */
import { describe, expect, it } from "vitest";
import {
	colourOf,
	describeGroup,
	focusByEntry,
	groupViewers,
	initialsOf,
} from "../../web/src/presence/avatars.js";

const viewers = [
	{ viewerId: "v1", subject: "alice@example.com", focusEntryId: "e1" },
	{ viewerId: "v2", subject: null, focusEntryId: "e1" },
	{ viewerId: "v3", subject: "alice@example.com", focusEntryId: "e2" },
	{ viewerId: "v4", subject: null, focusEntryId: null },
];

describe("presence avatars", () => {
	it("groups one subject's viewers with a count, keeps anonymous viewers apart, marks the page's own", () => {
		const groups = groupViewers(viewers, "v3");
		expect(groups.map((g) => [g.name, g.viewerIds, g.isYou])).toEqual([
			["alice@example.com", ["v1", "v3"], true],
			["anonymous", ["v2"], false],
			["anonymous", ["v4"], false],
		]);
		expect(groups.map(describeGroup)).toEqual([
			"alice@example.com, 2 viewers (you)",
			"anonymous",
			"anonymous",
		]);
		// Two anonymous viewers are told apart by colour; a subject's colour is the same on every page.
		expect(groups[1]?.colour).not.toBe(groups[2]?.colour);
		expect(groups[0]?.colour).toBe(colourOf("alice@example.com"));
	});

	it("takes initials from a subject's words before any @", () => {
		expect(initialsOf("alice@example.com")).toBe("AL");
		expect(initialsOf("Alice Smith")).toBe("AS");
		expect(initialsOf("ci-bot")).toBe("CB");
		expect(initialsOf("x")).toBe("X");
	});

	it("lists other viewers by the entry they focus, never the page's own", () => {
		const byEntry = focusByEntry(viewers, "v1");
		expect([...byEntry].map(([entry, list]) => [entry, list.map((v) => v.viewerId)])).toEqual([
			["e1", ["v2"]],
			["e2", ["v3"]],
		]);
	});
});
