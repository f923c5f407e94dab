/**
 * Entry validation (src/session/validate.ts): every entry type accepts a
 * well-formed entry and rejects each bad own field as INVALID_INPUT naming
 * the field; placement fields are checked for files and refused for drafts.
 */
import { describe, expect, it } from "vitest";
import type { EntryType } from "../../src/session/entry.js";
import { SessionError } from "../../src/session/errors.js";
import { MAX_ID_LENGTH, validateDraft, validateEntry } from "../../src/session/validate.js";

type Json = Record<string, unknown>;

const USAGE = {
	input: 10,
	output: 5,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 15,
	cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 },
};

const placement = { id: "e1", parentId: "p1", timestamp: "2026-01-05T12:00:01.000Z" };

/** Each type's own fields, well formed (optional fields included where there are any). */
const GOOD: Record<EntryType, Json> = {
	message: {
		type: "message",
		message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1767614401000 },
	},
	thinking_level_change: { type: "thinking_level_change", thinkingLevel: "high" },
	model_change: { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" },
	active_tools_change: { type: "active_tools_change", activeToolNames: ["read", "bash"] },
	usage: {
		type: "usage",
		kind: "cache_warm",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: USAGE,
		note: "warmed",
	},
	compaction: {
		type: "compaction",
		summary: "so far",
		firstKeptEntryId: "k1",
		tokensBefore: 1234,
		details: { readFiles: ["a.ts"] },
		usage: USAGE,
		fromHook: false,
		systemMessage: { role: "system", content: "be brief", sections: { a: "x" }, timestamp: 1 },
	},
	branch_summary: {
		type: "branch_summary",
		fromId: "f1",
		summary: "abandoned",
		details: { modifiedFiles: [] },
		usage: USAGE,
		fromHook: true,
	},
	custom: { type: "custom", customType: "artifact-index", data: { n: 1 } },
	custom_message: {
		type: "custom_message",
		customType: "note",
		content: "for the model",
		display: true,
		details: { ok: true },
	},
	context_edit: { type: "context_edit", targetId: "t1", replacement: { content: "shorter" } },
	label: { type: "label", targetId: "t1", label: "start here" },
	session_info: { type: "session_info", name: "My session" },
	leaf: { type: "leaf", targetId: "t1" },
};

/** Minimal well-formed variants: optional fields left out, other accepted shapes. */
const ALSO_GOOD: Json[] = [
	{ type: "message", message: { role: "toolResult" } },
	{ type: "active_tools_change", activeToolNames: [] },
	{ type: "compaction", summary: "", tokensBefore: 0 },
	{ type: "branch_summary", fromId: "root", summary: "" },
	{ type: "custom", customType: "x" },
	{ type: "custom_message", customType: "note", content: [{ type: "text", text: "x" }], display: false },
	{ type: "label", targetId: "t1" },
	{ type: "label", targetId: "t1", label: "" },
	{ type: "session_info" },
	{ type: "leaf", targetId: null },
	{ type: "usage", kind: "k", provider: "", model: "", usage: {} },
	{ type: "context_edit", targetId: "t1", replacement: null },
	{ type: "context_edit", targetId: "t1", replacement: { content: [{ type: "text", text: "x" }] } },
	// Types the service does not know (a later pi's) are kept with whatever fields they have.
	{ type: "checkpoint", snapshot: { files: 3 } },
	{ type: "bogus" },
];

const REMOVE = Symbol("remove");

/** [type, field path, bad value]: REMOVE deletes the field. */
const BAD: Array<[EntryType, string, unknown]> = [
	["message", "message", REMOVE],
	["message", "message", "hello"],
	["message", "message", null],
	["message", "message", [{ role: "user" }]],
	["message", "message.role", REMOVE],
	["message", "message.role", ""],
	["message", "message.role", 1],
	["thinking_level_change", "thinkingLevel", REMOVE],
	["thinking_level_change", "thinkingLevel", ""],
	["thinking_level_change", "thinkingLevel", 3],
	["model_change", "provider", REMOVE],
	["model_change", "provider", ""],
	["model_change", "modelId", REMOVE],
	["model_change", "modelId", 5],
	["active_tools_change", "activeToolNames", REMOVE],
	["active_tools_change", "activeToolNames", "read"],
	["active_tools_change", "activeToolNames", ["read", 1]],
	["active_tools_change", "activeToolNames", null],
	["compaction", "summary", REMOVE],
	["compaction", "summary", 1],
	["compaction", "firstKeptEntryId", 7],
	["compaction", "firstKeptEntryId", null],
	["compaction", "tokensBefore", REMOVE],
	["compaction", "tokensBefore", -1],
	["compaction", "tokensBefore", 1.5],
	["compaction", "tokensBefore", "1234"],
	["compaction", "tokensBefore", Number.POSITIVE_INFINITY],
	["compaction", "fromHook", "yes"],
	["branch_summary", "fromId", REMOVE],
	["branch_summary", "fromId", ""],
	["branch_summary", "summary", REMOVE],
	["branch_summary", "summary", false],
	["branch_summary", "fromHook", 1],
	["custom", "customType", REMOVE],
	["custom", "customType", ""],
	["custom_message", "customType", REMOVE],
	["custom_message", "customType", ""],
	["custom_message", "content", REMOVE],
	["custom_message", "content", 42],
	["custom_message", "content", { text: "x" }],
	["custom_message", "display", REMOVE],
	["custom_message", "display", "true"],
	["label", "targetId", REMOVE],
	["label", "targetId", ""],
	["label", "targetId", null],
	["label", "label", 3],
	["label", "label", null],
	["session_info", "name", 3],
	["usage", "kind", REMOVE],
	["usage", "kind", ""],
	["usage", "provider", 1],
	["usage", "model", REMOVE],
	["usage", "usage", REMOVE],
	["usage", "usage", 12],
	["usage", "note", 3],
	["compaction", "usage", "lots"],
	["compaction", "systemMessage", "be brief"],
	["compaction", "systemMessage.role", "user"],
	["branch_summary", "usage", [1]],
	["context_edit", "targetId", REMOVE],
	["context_edit", "targetId", ""],
	["context_edit", "replacement", REMOVE],
	["context_edit", "replacement", "shorter"],
	["context_edit", "replacement", {}],
	["context_edit", "replacement", { content: 3 }],
	["leaf", "targetId", REMOVE],
	["leaf", "targetId", ""],
	["leaf", "targetId", 9],
];

/** `base` with the dotted path set to `value` (or deleted), deep-copied. */
function withField(base: Json, path: string, value: unknown): Json {
	const copy = structuredClone(base);
	const keys = path.split(".");
	let target = copy;
	for (const key of keys.slice(0, -1)) target = target[key] as Json;
	const last = keys.at(-1) as string;
	if (value === REMOVE) delete target[last];
	else target[last] = value;
	return copy;
}

/** The error `fn` throws, which must be an INVALID_INPUT naming `field`. */
function rejects(fn: () => unknown, field: string): SessionError {
	let caught: unknown;
	try {
		fn();
	} catch (error) {
		caught = error;
	}
	expect(caught, `expected INVALID_INPUT on ${field}`).toBeInstanceOf(SessionError);
	const error = caught as SessionError;
	expect(error.code).toBe("INVALID_INPUT");
	expect(error.field).toBe(field);
	expect(error.message.startsWith(`${field}: `)).toBe(true);
	return error;
}

describe("validateEntry (an entry read from a file)", () => {
	it.each(Object.entries(GOOD))("accepts a well-formed %s entry unchanged", (_type, own) => {
		const entry = { ...own, ...placement };
		expect(validateEntry(entry)).toEqual(entry);
	});

	it.each(ALSO_GOOD.map((own) => [own.type, own]))("accepts a minimal %s entry", (_type, own) => {
		const entry = { ...own, ...placement };
		expect(validateEntry(entry)).toEqual(entry);
	});

	it.each(BAD)("%s: rejects %s = %j", (type, path, value) => {
		rejects(() => validateEntry(withField({ ...GOOD[type], ...placement }, path, value)), path);
	});

	it("checks the type: any name but the header's, as pi writes it", () => {
		rejects(() => validateEntry({ ...placement }), "type");
		rejects(() => validateEntry({ ...placement, type: "" }), "type");
		rejects(() => validateEntry({ ...placement, type: 7 }), "type");
		rejects(() => validateEntry({ ...placement, type: "session" }), "type");
		rejects(() => validateEntry({ ...placement, type: "t".repeat(MAX_ID_LENGTH + 1) }), "type");
	});

	it.each([
		["id", REMOVE],
		["id", ""],
		["id", 12],
		["id", "x".repeat(MAX_ID_LENGTH + 1)],
		["parentId", REMOVE],
		["parentId", ""],
		["parentId", 3],
		["timestamp", REMOVE],
		["timestamp", ""],
		["timestamp", "yesterday"],
		["timestamp", 1767614401000],
	])("rejects placement %s = %j", (name, value) => {
		rejects(() => validateEntry(withField({ ...GOOD.message, ...placement }, name, value)), name);
	});

	it("accepts a root (parentId null) and an id of the maximum length", () => {
		const entry = { ...GOOD.message, ...placement, id: "x".repeat(MAX_ID_LENGTH), parentId: null };
		expect(validateEntry(entry)).toEqual(entry);
	});

	it("rejects what is not an object", () => {
		for (const value of [null, "entry", 3, [GOOD.message]]) rejects(() => validateEntry(value), "entry");
	});

	it("prefixes fields with `at`", () => {
		const entry = withField({ ...GOOD.compaction, ...placement }, "tokensBefore", -1);
		rejects(() => validateEntry(entry, "input.entry"), "input.entry.tokensBefore");
		rejects(() => validateEntry("x", "input.entry"), "input.entry");
	});

	it("normalises the timestamp to toISOString form", () => {
		const cases: Array<[string, string]> = [
			["2026-01-05T12:00:01Z", "2026-01-05T12:00:01.000Z"],
			["2026-01-05T13:00:01.5+01:00", "2026-01-05T12:00:01.500Z"],
			["2026-01-05T12:00:01.123Z", "2026-01-05T12:00:01.123Z"],
		];
		for (const [given, stored] of cases) {
			expect(validateEntry({ ...GOOD.message, ...placement, timestamp: given }).timestamp).toBe(stored);
		}
	});

	it.each([
		"1",
		"12",
		"March 7",
		"2026-02-30T00:00:00Z",
		"0000-06-01T00:00:00Z",
		"0001-01-01T00:30:00+01:00",
	])("rejects timestamp %j", (timestamp) => {
		rejects(() => validateEntry({ ...GOOD.message, ...placement, timestamp }), "timestamp");
	});

	it("keeps unknown extra fields, on the entry and inside the message", () => {
		const entry = {
			...GOOD.custom,
			...placement,
			extensionVersion: "1.2",
			nested: { list: [1, "two", null], flag: false },
		};
		expect(validateEntry(entry)).toEqual(entry);
		const message = {
			...GOOD.message,
			...placement,
			message: { role: "assistant", provider: "p", model: "m", usage: { input: 1 }, custom: [1] },
		};
		expect(validateEntry(message)).toEqual(message);
	});
});

describe("validateDraft (an entry to append)", () => {
	it.each(Object.entries(GOOD))("accepts a well-formed %s draft unchanged", (_type, own) => {
		expect(validateDraft(own)).toEqual(own);
		expect(validateDraft({ ...own, id: "mine" })).toEqual({ ...own, id: "mine" });
	});

	it.each(BAD)("%s: rejects %s = %j", (type, path, value) => {
		rejects(() => validateDraft(withField(GOOD[type], path, value)), path);
	});

	it("refuses store-assigned placement fields", () => {
		rejects(() => validateDraft({ ...GOOD.message, parentId: "p1" }), "parentId");
		rejects(() => validateDraft({ ...GOOD.message, parentId: null }), "parentId");
		rejects(() => validateDraft({ ...GOOD.message, timestamp: placement.timestamp }), "timestamp");
	});

	it("checks a caller-chosen id", () => {
		rejects(() => validateDraft({ ...GOOD.message, id: "" }), "id");
		rejects(() => validateDraft({ ...GOOD.message, id: 5 }), "id");
		rejects(() => validateDraft({ ...GOOD.message, id: "x".repeat(MAX_ID_LENGTH + 1) }), "id");
		expect(validateDraft({ ...GOOD.message, id: "x".repeat(MAX_ID_LENGTH) }).id).toHaveLength(MAX_ID_LENGTH);
	});

	it("checks the type and the shape", () => {
		rejects(() => validateDraft({ type: "" }), "type");
		rejects(() => validateDraft({ type: "session" }), "type");
		// A type the service does not know is appended as it is.
		expect(validateDraft({ type: "checkpoint", at: 3 })).toEqual({ type: "checkpoint", at: 3 });
		rejects(() => validateDraft([]), "entry");
		rejects(() => validateDraft({ type: "label", targetId: "" }, "entries[2]"), "entries[2].targetId");
	});

	it("keeps unknown extra fields", () => {
		const draft = { ...GOOD.label, source: "ui", meta: { by: "me" } };
		expect(validateDraft(draft)).toEqual(draft);
	});
});

describe("characters and numbers Postgres cannot store", () => {
	const NUL = "\u0000";

	it.each<[string, Json, string]>([
		[
			"message text",
			withField(GOOD.message, "message.content", [{ type: "text", text: `a${NUL}b` }]),
			"message.content[0].text",
		],
		["message role", withField(GOOD.message, "message.role", `user${NUL}`), "message.role"],
		["thinking level", withField(GOOD.thinking_level_change, "thinkingLevel", NUL), "thinkingLevel"],
		["model id", withField(GOOD.model_change, "modelId", `m${NUL}`), "modelId"],
		[
			"tool name",
			withField(GOOD.active_tools_change, "activeToolNames", ["read", NUL]),
			"activeToolNames[1]",
		],
		["summary", withField(GOOD.compaction, "summary", NUL), "summary"],
		["details", withField(GOOD.branch_summary, "details", { files: [`x${NUL}`] }), "details.files[0]"],
		["custom data", withField(GOOD.custom, "data", { deep: { deeper: NUL } }), "data.deep.deeper"],
		["custom type", withField(GOOD.custom_message, "customType", `n${NUL}`), "customType"],
		["label", withField(GOOD.label, "label", NUL), "label"],
		["label target", withField(GOOD.label, "targetId", `t${NUL}`), "targetId"],
		["name", withField(GOOD.session_info, "name", `a${NUL}`), "name"],
		["leaf target", withField(GOOD.leaf, "targetId", `t${NUL}`), "targetId"],
		["extra field", { ...GOOD.custom, extra: `x${NUL}` }, "extra"],
	])("rejects U+0000 in the %s", (_what, own, field) => {
		rejects(() => validateDraft(own, "entry"), `entry.${field}`);
		rejects(() => validateEntry({ ...own, ...placement }, "entry"), `entry.${field}`);
	});

	it("rejects U+0000 in placement fields and in object keys", () => {
		rejects(() => validateEntry({ ...GOOD.message, ...placement, id: `e${NUL}` }, "entry"), "entry.id");
		rejects(
			() => validateEntry({ ...GOOD.message, ...placement, parentId: `p${NUL}` }, "entry"),
			"entry.parentId",
		);
		rejects(() => validateDraft({ ...GOOD.message, id: `e${NUL}` }, "entry"), "entry.id");
		rejects(() => validateDraft({ ...GOOD.custom, data: { [`k${NUL}`]: 1 } }, "entry"), "entry.data");
	});

	it("rejects non-finite numbers anywhere", () => {
		rejects(() => validateDraft({ ...GOOD.custom, data: { n: Number.NaN } }, "entry"), "entry.data.n");
		rejects(
			() => validateDraft(withField(GOOD.message, "message.timestamp", Number.POSITIVE_INFINITY), "in"),
			"in.message.timestamp",
		);
	});

	it("without a prefix, U+0000 errors name the bare field like every other error", () => {
		rejects(() => validateDraft({ ...GOOD.label, label: `a${NUL}` }), "label");
	});

	it("accepts other control characters and non-BMP text", () => {
		const own = withField(GOOD.message, "message.content", "tab\there \u0001 😀 \u2028");
		expect(validateDraft(own)).toEqual(own);
	});
});
