/**
 * The pi JSONL codec (src/session/jsonl.ts): line handling, header checks,
 * the v1/v2 migrations (held against pi's own `migrateSessionEntries`), leaf
 * records, header round trip and the session id override.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/session/entry.js";
import { SessionError } from "../../src/session/errors.js";
import { formatSessionFile, headerLine } from "../../src/session/export.js";
import { type ParsedSessionFile, parseSessionFile, type SessionHeader } from "../../src/session/jsonl.js";
import { replayLeaf } from "../../src/session/tree.js";
import { migrateSessionEntries, parseSessionEntries } from "../support/pi-oracle.js";

const fixture = (name: string) =>
	readFileSync(new URL(`../fixtures/pi-small/${name}`, import.meta.url), "utf8");

type Json = Record<string, unknown>;

const HEADER_V3: Json = {
	type: "session",
	version: 3,
	id: "s-jsonl",
	timestamp: "2026-01-01T00:00:00.000Z",
	cwd: "/w",
};
const HEADER_V1: Json = { type: "session", id: "s-v1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" };

const userEntry = (id: string, parentId: string | null, text: string, second = 1): Json => ({
	type: "message",
	id,
	parentId,
	timestamp: `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`,
	message: { role: "user", content: text, timestamp: 1_767_225_600_000 + second * 1000 },
});

/** A v1 entry: no id, no parentId. */
const v1User = (text: string, second = 1): Json => {
	const { id: _id, parentId: _parentId, ...rest } = userEntry("x", null, text, second);
	return rest;
};

const v1Compaction = (firstKeptEntryIndex: unknown, second = 30): Json => ({
	type: "compaction",
	timestamp: `2025-01-01T00:00:${second}.000Z`,
	summary: "summary",
	firstKeptEntryIndex,
	tokensBefore: 100,
});

const jsonl = (...lines: Json[]) => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

/** The error `fn` throws, which must be an INVALID_INPUT SessionError. */
function invalid(fn: () => unknown): SessionError {
	let caught: unknown;
	try {
		fn();
	} catch (error) {
		caught = error;
	}
	expect(caught, "expected an INVALID_INPUT error").toBeInstanceOf(SessionError);
	expect((caught as SessionError).code).toBe("INVALID_INPUT");
	return caught as SessionError;
}

const entriesOf = (file: ParsedSessionFile): Entry[] => file.rows.map((r) => r.entry);
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * An entry list with ids replaced by positions, so that files migrated with
 * different ids (pi's are random) can be compared by structure.
 */
function byPosition(entries: readonly Json[]): Json[] {
	const position = new Map(entries.map((e, i) => [e.id as string, i]));
	const pos = (id: unknown) => (typeof id === "string" ? (position.get(id) ?? `unknown ${id}`) : id);
	return asJson(
		entries.map((e) => ({
			...e,
			id: pos(e.id),
			parentId: pos(e.parentId),
			...("firstKeptEntryId" in e ? { firstKeptEntryId: pos(e.firstKeptEntryId) } : {}),
		})),
	);
}

/** What pi makes of a file: its migrated entries, header excluded. */
function piEntries(text: string): Json[] {
	const entries = parseSessionEntries(text) as unknown as Json[];
	migrateSessionEntries(entries as never);
	return entries.filter((e) => e.type !== "session");
}

describe("line handling", () => {
	const lines = [HEADER_V3, userEntry("u1", null, "one", 1), userEntry("u2", "u1", "two", 2)];

	it("accepts CRLF line endings and blank lines, giving the same session as LF", () => {
		const lf = parseSessionFile(jsonl(...lines));
		const crlf = parseSessionFile(
			`\r\n${lines.map((l) => JSON.stringify(l)).join("\r\n\r\n   \r\n")}\r\n\r\n`,
		);
		// The same session; each row knows its own physical line (header on line 2, then every third).
		expect({ ...crlf, lineNumbers: [] }).toEqual({ ...lf, lineNumbers: [] });
		expect(lf.lineNumbers).toEqual([2, 3]);
		expect(crlf.lineNumbers).toEqual([5, 8]);
		expect(crlf.rows.map((r) => r.entry.id)).toEqual(["u1", "u2"]);
		expect(crlf.leafId).toBe("u2");
	});

	it("accepts a file without a final newline", () => {
		const file = parseSessionFile(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(file.rows).toHaveLength(2);
	});

	it("names the physical line of malformed JSON, counting blank lines", () => {
		const text = [JSON.stringify(lines[0]), "", JSON.stringify(lines[1]), "", '{"type":"message",'].join(
			"\n",
		);
		const error = invalid(() => parseSessionFile(text));
		expect(error.message).toMatch(/^line 5: /);
		expect(error.message).toContain("not valid JSON");
	});

	it("counts CRLF lines the same way", () => {
		const text = [JSON.stringify(lines[0]), "", "", "not json"].join("\r\n");
		expect(invalid(() => parseSessionFile(text)).message).toMatch(/^line 4: /);
	});

	it("rejects a line that is JSON but not an object", () => {
		for (const bad of ["[1,2]", "42", '"text"', "null"]) {
			const text = [JSON.stringify(lines[0]), JSON.stringify(lines[1]), bad].join("\n");
			const error = invalid(() => parseSessionFile(text));
			expect(error.message, bad).toMatch(/^line 3: .*JSON object/);
		}
	});

	it("names the line of an entry that fails validation, with the field", () => {
		const bad = { ...userEntry("u2", "u1", "two"), message: { content: "no role" } };
		const text = jsonl(lines[0] as Json, lines[1] as Json, bad);
		const error = invalid(() => parseSessionFile(`\n${text}`));
		expect(error.message).toMatch(/^line 4: message\.role/);
		expect(error.field).toBe("message.role");
	});

	it("requires the first non-blank line to be a session header", () => {
		expect(invalid(() => parseSessionFile("")).message).toMatch(/^line 1: .*session header/);
		expect(invalid(() => parseSessionFile("\n\n")).message).toMatch(/^line 1: .*session header/);
		const noHeader = `\n\n${JSON.stringify(lines[1])}\n`;
		expect(invalid(() => parseSessionFile(noHeader)).message).toMatch(/^line 3: .*session header/);
	});

	it("rejects a second session header, naming its line", () => {
		const text = jsonl(HEADER_V3, userEntry("u1", null, "one"), { ...HEADER_V3, id: "other" });
		expect(invalid(() => parseSessionFile(text)).message).toMatch(/^line 3: .*second session header/);
	});

	it("rejects a parent that is not an earlier entry, and ids used twice", () => {
		const forward = jsonl(HEADER_V3, userEntry("u1", "u2", "one"), userEntry("u2", null, "two"));
		const e1 = invalid(() => parseSessionFile(forward));
		expect(e1.message).toMatch(/^line 2: parentId "u2"/);
		expect(e1.field).toBe("parentId");

		const twice = jsonl(HEADER_V3, userEntry("u1", null, "one"), userEntry("u1", "u1", "again"));
		const e2 = invalid(() => parseSessionFile(twice));
		expect(e2.message).toMatch(/^line 3: id "u1" is used twice \(first on line 2\)/);
		expect(e2.field).toBe("id");
	});

	it("reports the first bad line, not a later syntax error", () => {
		const text = [
			JSON.stringify(HEADER_V3),
			JSON.stringify({ type: "message", timestamp: "x" }),
			"{bad",
		].join("\n");
		expect(invalid(() => parseSessionFile(text)).message).toMatch(/^line 2: /);
	});
});

describe("header", () => {
	it("accepts versions 1, 2 and 3 (absent means 1) and reports the source version", () => {
		expect(parseSessionFile(jsonl(HEADER_V1, v1User("a"))).sourceVersion).toBe(1);
		expect(parseSessionFile(jsonl({ ...HEADER_V1, version: 1 }, v1User("a"))).sourceVersion).toBe(1);
		expect(parseSessionFile(jsonl({ ...HEADER_V3, version: 2 })).sourceVersion).toBe(2);
		expect(parseSessionFile(jsonl(HEADER_V3)).sourceVersion).toBe(3);
	});

	it.each([4, 0, "3", 2.5])("rejects version %j", (version) => {
		const error = invalid(() => parseSessionFile(jsonl({ ...HEADER_V3, version })));
		expect(error.message).toMatch(/^line 1: version .* is not supported/);
		expect(error.field).toBe("version");
	});

	it("rejects a header without an id, with a bad cwd or timestamp", () => {
		const { id: _id, ...noId } = HEADER_V3;
		expect(invalid(() => parseSessionFile(jsonl(noId))).field).toBe("id");
		expect(invalid(() => parseSessionFile(jsonl({ ...HEADER_V3, id: "" }))).field).toBe("id");
		expect(invalid(() => parseSessionFile(jsonl({ ...HEADER_V3, cwd: 7 }))).field).toBe("cwd");
		expect(invalid(() => parseSessionFile(jsonl({ ...HEADER_V3, timestamp: "soon" }))).message).toMatch(
			/^line 1: timestamp/,
		);
	});

	it("normalises the header timestamp and reads cwd and parentSession", () => {
		const { header } = parseSessionFile(
			jsonl({ ...HEADER_V3, timestamp: "2026-01-01T01:00:00+01:00", parentSession: "/a/b.jsonl" }),
		);
		expect(header).toEqual({
			id: "s-jsonl",
			timestamp: "2026-01-01T00:00:00.000Z",
			cwd: "/w",
			parentSession: "/a/b.jsonl",
			extra: {},
		});
		const { cwd: _cwd, ...noCwd } = HEADER_V3;
		expect(parseSessionFile(jsonl(noCwd)).header).toMatchObject({ cwd: null, parentSession: null });
	});

	it("keeps unknown header fields in extra and writes them back, as version 3", () => {
		const file = parseSessionFile(fixture("v1.jsonl"));
		expect(file.header.extra).toEqual({
			provider: "anthropic",
			modelId: "claude-sonnet-4-5",
			thinkingLevel: "off",
		});
		expect(headerLine(file.header)).toEqual({
			type: "session",
			version: 3,
			id: "0195f3a0-0000-7000-8000-000000000001",
			timestamp: "2025-11-20T10:00:00.000Z",
			cwd: "/work/demo",
			provider: "anthropic",
			modelId: "claude-sonnet-4-5",
			thinkingLevel: "off",
		});
		const harness = parseSessionFile(fixture("v3-harness.jsonl")).header;
		expect(harness.extra).toEqual({ origin: "harness-test" });
		expect(headerLine(harness)).toMatchObject({
			origin: "harness-test",
			parentSession: "0195f3a0-0000-7000-8000-000000000002",
		});
	});

	it.each([
		["cwd", { cwd: "a\u0000b" }],
		["id", { id: "s\u0000" }],
		["parentSession", { parentSession: "p\u0000" }],
		["an extra field", { origin: "x\u0000" }],
	])("rejects U+0000 in the header's %s", (_what, fields) => {
		invalid(() => parseSessionFile(jsonl({ ...HEADER_V3, ...fields })));
	});

	it("headerLine leaves out a null cwd and parentSession", () => {
		const header: SessionHeader = {
			id: "s",
			timestamp: "2026-01-01T00:00:00.000Z",
			cwd: null,
			parentSession: null,
			extra: {},
		};
		expect(headerLine(header)).toEqual({
			type: "session",
			version: 3,
			id: "s",
			timestamp: "2026-01-01T00:00:00.000Z",
		});
	});

	it("a sessionId option overrides the header id, for the session and its rows", () => {
		const file = parseSessionFile(fixture("v2.jsonl"), { sessionId: "imported-copy" });
		expect(file.header.id).toBe("imported-copy");
		expect(new Set(file.rows.map((r) => r.sessionId))).toEqual(new Set(["imported-copy"]));
		expect(headerLine(file.header).id).toBe("imported-copy");
		expect(invalid(() => parseSessionFile(fixture("v2.jsonl"), { sessionId: "" })).field).toBe("sessionId");
	});
});

describe("version 1 migration", () => {
	it("assigns ids deterministically from the session id, chaining each entry to the previous line", () => {
		const a = parseSessionFile(fixture("v1.jsonl"));
		const b = parseSessionFile(fixture("v1.jsonl"));
		expect(b).toEqual(a);
		const ids = a.rows.map((r) => r.entry.id);
		expect(ids).toHaveLength(10);
		expect(new Set(ids).size).toBe(10);
		a.rows.forEach((row, i) => {
			expect(row.seq).toBe(i + 1);
			expect(row.depth).toBe(i);
			expect(row.entry.parentId).toBe(i === 0 ? null : ids[i - 1]);
		});
		expect(a.leafId).toBe(ids[9]);

		const other = parseSessionFile(fixture("v1.jsonl"), { sessionId: "another-session" });
		expect(other.rows.map((r) => r.entry.id)).not.toEqual(ids);
		expect(parseSessionFile(fixture("v1.jsonl"), { sessionId: "another-session" })).toEqual(other);
	});

	it("turns firstKeptEntryIndex (header = 0) into firstKeptEntryId", () => {
		const { rows } = parseSessionFile(fixture("v1.jsonl"));
		const compaction = rows.find((r) => r.entry.type === "compaction")?.entry as Json;
		expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
		// index 5 is the fifth entry: the user's "now read a.ts"
		const kept = rows[4]?.entry as Json;
		expect(compaction.firstKeptEntryId).toBe(kept.id);
		expect(kept.message).toMatchObject({ role: "user", content: "now read a.ts" });
	});

	it("gives the same tree as pi's migrateSessionEntries (ids aside)", () => {
		const text = fixture("v1.jsonl");
		expect(byPosition(entriesOf(parseSessionFile(text)))).toEqual(byPosition(piEntries(text)));
	});

	// The file: header, a, b, compaction, c. Index 3 is the compaction itself.
	it.each([
		[1, 0],
		[2, 1],
		[3, 2],
		[0, "absent"],
		[5, "absent"],
		[99, "absent"],
		[-1, "absent"],
		[1.5, "absent"],
	])("firstKeptEntryIndex %j keeps entry %j, as pi does", (index, expected) => {
		const text = jsonl(HEADER_V1, v1User("a", 1), v1User("b", 2), v1Compaction(index), v1User("c", 3));
		const ours = entriesOf(parseSessionFile(text)) as Json[];
		const compaction = ours[2] as Json;
		expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
		if (expected === "absent") expect(compaction).not.toHaveProperty("firstKeptEntryId");
		else expect(compaction.firstKeptEntryId).toBe(ours[expected as number]?.id);
		expect(byPosition(ours)).toEqual(byPosition(piEntries(text)));
	});

	it("an index naming a later line leaves firstKeptEntryId absent, as pi does", () => {
		const text = jsonl(HEADER_V1, v1User("a", 1), v1User("b", 2), v1Compaction(4), v1User("c", 3));
		expect(entriesOf(parseSessionFile(text))[2]).not.toHaveProperty("firstKeptEntryId");
	});

	it("keeps a non-numeric firstKeptEntryIndex untouched, as pi does", () => {
		const text = jsonl(HEADER_V1, v1User("a", 1), v1Compaction("1"));
		const ours = entriesOf(parseSessionFile(text));
		expect(ours[1]).toMatchObject({ firstKeptEntryIndex: "1" });
		expect(byPosition(ours)).toEqual(byPosition(piEntries(text)));
	});

	it("overwrites ids and parents a v1 file carries", () => {
		const text = jsonl(HEADER_V1, { ...v1User("a"), id: "x", parentId: "nowhere" }, v1User("b"));
		const [first, second] = entriesOf(parseSessionFile(text));
		expect(first?.id).not.toBe("x");
		expect(first?.parentId).toBeNull();
		expect(second?.parentId).toBe(first?.id);
	});

	it("also renames hookMessage to custom", () => {
		const hook = { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "hookMessage" } };
		expect(entriesOf(parseSessionFile(jsonl(HEADER_V1, hook)))[0]).toMatchObject({
			message: { role: "custom" },
		});
	});
});

describe("version 2 migration", () => {
	it("renames the message role hookMessage to custom and keeps everything else, like pi", () => {
		const text = fixture("v2.jsonl");
		const file = parseSessionFile(text);
		const m3 = file.rows.find((r) => r.entry.id === "m3")?.entry as Json;
		expect(m3.message).toEqual({
			role: "custom",
			customType: "reminder",
			content: "remember the tests",
			display: true,
			timestamp: 1764579603000,
		});
		// ids are kept in v2, so the whole entry list matches pi's exactly
		expect(asJson(entriesOf(file))).toEqual(asJson(piEntries(text)));
		expect(file.leafId).toBe("s1");
	});

	it("leaves hookMessage alone in a version 3 file", () => {
		const entry = { ...userEntry("h", null, "x"), message: { role: "hookMessage" } };
		expect(entriesOf(parseSessionFile(jsonl(HEADER_V3, entry)))[0]).toMatchObject({
			message: { role: "hookMessage" },
		});
	});
});

describe("leaf records", () => {
	it("reads a harness file: the pointer is the replay, leaf records are not nodes", () => {
		const file = parseSessionFile(fixture("v3-harness.jsonl"));
		expect(file.leafId).toBe("u3");
		expect(file.leafId).toBe(replayLeaf(entriesOf(file)));
		expect(file.rows.map((r) => r.seq)).toEqual(file.rows.map((_, i) => i + 1));
		const depth = Object.fromEntries(file.rows.map((r) => [r.entry.id, r.depth]));
		expect(depth).toMatchObject({ u1: 0, t1: 1, a1: 2, bs1: 3, cp1: 7, u3: 8, r1: 0 });
	});

	it("allows a null targetId: the pointer goes before the first entry", () => {
		const text = jsonl(HEADER_V3, userEntry("u1", null, "one"), {
			type: "leaf",
			id: "nav",
			parentId: "u1",
			timestamp: "2026-01-01T00:00:05.000Z",
			targetId: null,
		});
		expect(parseSessionFile(text).leafId).toBeNull();
	});

	const leaf = (id: string, parentId: string | null, targetId: string | null): Json => ({
		type: "leaf",
		id,
		parentId,
		timestamp: "2026-01-01T00:00:05.000Z",
		targetId,
	});

	it("rejects a targetId naming a leaf record, or nothing earlier", () => {
		const onLeaf = jsonl(
			HEADER_V3,
			userEntry("u1", null, "one"),
			leaf("n1", "u1", "u1"),
			leaf("n2", "u1", "n1"),
		);
		const e1 = invalid(() => parseSessionFile(onLeaf));
		expect(e1.message).toMatch(/^line 4: targetId "n1" names a leaf record/);
		expect(e1.field).toBe("targetId");

		const missing = jsonl(HEADER_V3, userEntry("u1", null, "one"), leaf("n1", "u1", "ghost"));
		expect(invalid(() => parseSessionFile(missing)).message).toMatch(/^line 3: targetId "ghost"/);
	});

	it("rejects a parent or a label target that is a leaf record", () => {
		const base = [HEADER_V3, userEntry("u1", null, "one"), leaf("n1", "u1", "u1")];
		const parent = invalid(() => parseSessionFile(jsonl(...base, userEntry("u2", "n1", "two"))));
		expect(parent.message).toMatch(/^line 4: parentId "n1" names a leaf record/);
		expect(parent.field).toBe("parentId");

		const label = { type: "label", id: "l1", parentId: "u1", timestamp: HEADER_V3.timestamp, targetId: "n1" };
		const labelled = invalid(() => parseSessionFile(jsonl(...base, label)));
		expect(labelled.message).toMatch(/^line 4: targetId "n1" names a leaf record/);
	});
});

describe("formatSessionFile", () => {
	it("writes a version 3 header and one line per entry, newline-terminated", () => {
		const file = parseSessionFile(fixture("v3-harness.jsonl"));
		const text = formatSessionFile(file.header, entriesOf(file));
		expect(text.endsWith("}\n")).toBe(true);
		const lines = text.split("\n");
		expect(lines).toHaveLength(file.rows.length + 2);
		expect(JSON.parse(lines[0] as string)).toEqual(headerLine(file.header));
		expect(JSON.parse(lines[1] as string)).toEqual(file.rows[0]?.entry);
	});

	it.each(["v1.jsonl", "v2.jsonl", "v3-harness.jsonl"])("%s re-reads to the same session", (name) => {
		const file = parseSessionFile(fixture(name));
		const again = parseSessionFile(formatSessionFile(file.header, entriesOf(file)));
		expect(again.sourceVersion).toBe(3);
		expect(again.header).toEqual(file.header);
		expect(again.rows).toEqual(file.rows);
		expect(again.leafId).toBe(file.leafId);
	});

	it("writes what pi reads without migrating", () => {
		const file = parseSessionFile(fixture("v1.jsonl"));
		const text = formatSessionFile(file.header, entriesOf(file));
		const pi = parseSessionEntries(text) as unknown as Json[];
		const before = asJson(pi);
		migrateSessionEntries(pi as never);
		expect(asJson(pi)).toEqual(before);
		expect(pi.slice(1)).toEqual(asJson(entriesOf(file)));
	});
});
