/**
 * Hostile inputs to the store's writes (issue 7), as properties run on every
 * backend: whatever JSON a client sends to appendEntry, moveLeaf, setLabel,
 * renameSession or importSession, the call either succeeds, and then what it
 * returned is what is stored and is what was asked, or it rejects with a
 * coded SessionError (INVALID_INPUT naming its field) and nothing changed.
 * Never an untyped error, never a dead store.
 *
 * Each run works in a workspace of its own holding one seeded session, so
 * runs are independent and a run's outcome is a function of its input. On
 * PGlite and Postgres every input is also run on a memory store (the
 * reference backend) and both must answer alike: same success, or same code
 * and field.
 *
 * Inputs are what GraphQL can deliver (JSON values, including own
 * `__proto__` keys and the non-finite numbers a literal like `1e999` makes),
 * plus wrong types for every field, since the store is the last line of
 * defence. The input limits are lowered so that values near and over them
 * stay small; they are set before any backend opens (a PGlite worker takes
 * the limits in force when it starts) and restored afterwards. Inputs that
 * once found a defect stay as examples each property runs first.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTRY_TYPES } from "../../src/session/entry.js";
import { type ErrorCode, isSessionError } from "../../src/session/errors.js";
import { EXPORT_FORMATS } from "../../src/session/export.js";
import { parseSessionFile } from "../../src/session/jsonl.js";
import type { InputLimits } from "../../src/session/limits.js";
import { MemoryStore } from "../../src/store/memory.js";
import type {
	AppendResult,
	ImportedSession,
	MoveLeafInput,
	MoveLeafResult,
	SessionRecord,
	SessionStore,
} from "../../src/store/store.js";
import { propertyRuns } from "../support/runs.js";
import { type Backend, memoryBackend, pgliteBackend, postgresBackend } from "./backends.js";

const LIMITS: InputLimits = {
	jsonDepth: 32,
	entryBytes: 16 * 1024,
	textLength: 200,
	headerBytes: 1024,
	forkEntries: 20,
	importEntries: 10,
};

/** What a rejected hostile write may answer; anything else (UNAVAILABLE included) is a defect. */
const REJECTION_CODES: readonly ErrorCode[] = [
	"INVALID_INPUT",
	"NOT_FOUND",
	"ALREADY_EXISTS",
	"LEAF_CONFLICT",
	"LIMIT_EXCEEDED",
];

// ---- The seeded session -----------------------------------------------------

const SEED_ID = "seed";
/** Nodes of the seeded session; L1 is a leaf record (never a target), lb1 the leaf. */
const SEED_NODES = ["u1", "a1", "u2", "a2", "a3", "lb1"] as const;
const LEAF_RECORD = "L1";
const SEED_LEAF = "lb1";

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;
const said = (role: string, text: string) => ({ role, content: [{ type: "text", text }] });

/** The seed as objects: header, u1 → a1 → u2 → a2, a move back to u1, a3 under u1, a label. */
function seedLines(sessionId: string): Record<string, unknown>[] {
	return [
		{ type: "session", version: 3, id: sessionId, timestamp: at(0), cwd: "/work" },
		{ type: "message", id: "u1", parentId: null, timestamp: at(1), message: said("user", "one") },
		{ type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: said("assistant", "two") },
		{ type: "message", id: "u2", parentId: "a1", timestamp: at(3), message: said("user", "three") },
		{ type: "message", id: "a2", parentId: "u2", timestamp: at(4), message: said("assistant", "four") },
		{ type: "leaf", id: LEAF_RECORD, parentId: "a2", timestamp: at(5), targetId: "u1" },
		{ type: "message", id: "a3", parentId: "u1", timestamp: at(6), message: said("assistant", "five") },
		{ type: "label", id: SEED_LEAF, parentId: "a3", timestamp: at(7), targetId: "a1", label: "first" },
	];
}

const SEED_JSONL = `${seedLines(SEED_ID)
	.map((line) => JSON.stringify(line))
	.join("\n")}\n`;

// ---- Hostile values -----------------------------------------------------------

const around = (n: number, spread: number) => fc.integer({ min: n - spread, max: n + spread });

/** Strings of every kind: control and unpaired characters, and lengths near and over each limit. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
	// Any code point (UTF-16 surrogate halves among them, rarely).
	{ weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
	{
		weight: 3,
		arbitrary: fc.constantFrom(
			"",
			" ",
			" \t\n ",
			"\u0000",
			"a\u0000b",
			"\ud800",
			"x\udfff",
			"\udc00\ud800",
			"\ud83d\ude00",
			"\uffff",
			"\ufeff",
			"\u2028",
			"__proto__",
			"constructor",
			SEED_ID,
			"u1",
		),
	},
	{
		weight: 2,
		arbitrary: fc
			.tuple(
				fc.string({ maxLength: 4 }),
				fc.constantFrom("\u0000", "\ud800", "\udc00"),
				fc.string({ maxLength: 4 }),
			)
			.map((parts) => parts.join("")),
	},
	{ weight: 1, arbitrary: around(LIMITS.textLength, 2).map((n) => "t".repeat(n)) },
	// Two UTF-8 bytes per character: under the text limit in characters, over it in bytes.
	{ weight: 1, arbitrary: around(LIMITS.textLength / 2 + 10, 2).map((n) => "é".repeat(n)) },
	{ weight: 1, arbitrary: around(LIMITS.entryBytes, 24).map((n) => "b".repeat(n)) },
);

/** Numbers JSON text cannot carry (a GraphQL literal `1e999` is Infinity), and the extremes it can. */
const oddNumber = fc.constantFrom(
	Number.NaN,
	Number.POSITIVE_INFINITY,
	Number.NEGATIVE_INFINITY,
	-0,
	Number.MAX_VALUE,
	Number.MIN_VALUE,
	Number.MAX_SAFE_INTEGER + 2,
	1e21,
);

/**
 * A chain of `depth` nested containers. It prints as its description: fast-check's
 * printer (like every recursive encoder) would overflow the stack on it.
 */
function nested(depth: number, shape: "object" | "array" | "mixed"): unknown {
	let value: unknown = "bottom";
	for (let i = 0; i < depth; i++) {
		const array = shape === "array" || (shape === "mixed" && i % 2 === 1);
		value = array ? [value] : { k: value };
	}
	Object.defineProperty(value, fc.toStringMethod, { value: () => `nested(${depth}, "${shape}")` });
	return value;
}

const depth = fc.oneof(fc.integer({ min: 50, max: 5000 }), around(LIMITS.jsonDepth, 3));

const deepValue = fc
	.tuple(depth, fc.constantFrom("object" as const, "array" as const, "mixed" as const))
	.map(([d, shape]) => nested(d, shape));

/** Own `__proto__` keys, as JSON.parse (GraphQL variables) and object literals in a query make them. */
const protoKeyed = fc
	.jsonValue({ maxDepth: 2 })
	.map((v) => JSON.parse(`{"__proto__":${JSON.stringify(v)},"kept":1}`) as unknown);

/** One hostile scalar or structure. */
const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
	{ weight: 3, arbitrary: hostileString },
	{ weight: 1, arbitrary: oddNumber },
	{ weight: 1, arbitrary: deepValue },
	{ weight: 1, arbitrary: protoKeyed },
	{
		weight: 1,
		arbitrary: fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 1 }), {
			maxKeys: 3,
			noNullPrototype: true,
		}),
	},
);

/** A hostile value, possibly inside an ordinary structure. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 4, arbitrary: hostileLeaf },
	{ weight: 1, arbitrary: fc.array(hostileLeaf, { maxLength: 3 }) },
	{
		weight: 1,
		arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), hostileLeaf, { maxKeys: 3, noNullPrototype: true }),
	},
);

/** Values of the wrong type for whatever field they land in (or, by chance, the right one). */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
	fc.constantFrom(null, true, false, 0, -1, 1.5, Number.NaN, [], {}, [""], { id: "u1" }),
	fc.jsonValue({ maxDepth: 1 }),
);

const anyValue = fc.oneof(hostileJson, wrongType);

/** Entry ids: empty, too long, non-string, taken, a leaf record's, unknown. */
const idValue: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 3, arbitrary: hostileString },
	{ weight: 3, arbitrary: fc.constantFrom(...SEED_NODES, LEAF_RECORD, "missing") },
	{ weight: 1, arbitrary: around(256, 2).map((n) => "i".repeat(n)) },
	{ weight: 1, arbitrary: wrongType },
);

const nodeRef = fc.constantFrom<string>(...SEED_NODES, LEAF_RECORD, "missing");
const text = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ maxLength: 16 }) },
	{ weight: 1, arbitrary: hostileString },
);
const content = fc.oneof(
	{ weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
	{ weight: 1, arbitrary: hostileJson },
);

// ---- Drafts -----------------------------------------------------------------------

type Draft = Record<string, unknown>;

/** A draft of each entry type (leaf included, which appendEntry must refuse), mostly well-formed. */
const baseDraft: fc.Arbitrary<Draft> = fc.oneof(
	fc.record({
		type: fc.constant("message"),
		message: fc.record({ role: fc.oneof(fc.constantFrom("user", "assistant", "toolResult"), text), content }),
	}),
	fc.record({ type: fc.constant("thinking_level_change"), thinkingLevel: text }),
	fc.record({ type: fc.constant("model_change"), provider: text, modelId: text }),
	fc.record({ type: fc.constant("active_tools_change"), activeToolNames: fc.array(text, { maxLength: 4 }) }),
	fc.record(
		{
			type: fc.constant("compaction"),
			summary: text,
			firstKeptEntryId: nodeRef,
			tokensBefore: fc.oneof(fc.nat(), fc.double()),
			details: content,
		},
		{ requiredKeys: ["type", "summary", "firstKeptEntryId", "tokensBefore"] },
	),
	fc.record(
		{ type: fc.constant("branch_summary"), fromId: nodeRef, summary: text, details: content },
		{ requiredKeys: ["type", "fromId", "summary"] },
	),
	fc.record(
		{ type: fc.constant("custom"), customType: text, data: content },
		{ requiredKeys: ["type", "customType"] },
	),
	fc.record(
		{
			type: fc.constant("custom_message"),
			customType: text,
			content,
			display: fc.boolean(),
			details: content,
		},
		{ requiredKeys: ["type", "customType", "content", "display"] },
	),
	fc.record(
		{ type: fc.constant("label"), targetId: fc.oneof(nodeRef, text), label: text },
		{ requiredKeys: ["type", "targetId"] },
	),
	fc.record({ type: fc.constant("session_info"), name: text }, { requiredKeys: ["type"] }),
	fc.record({ type: fc.constant("leaf"), targetId: fc.oneof(nodeRef, fc.constant(null)) }),
);

/** Set an own property, `__proto__` included (assignment would change the prototype instead). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

interface FieldEdit {
	field: string;
	/** Undefined deletes the field. */
	value: unknown;
}

const typeValue = fc.oneof(
	fc.constantFrom<unknown>(...ENTRY_TYPES, "session", "Message", "unknown_type", ""),
	wrongType,
);

/** A field of any entry type (or none, or a placement field) set to a hostile value or deleted. */
const fieldEdit: fc.Arbitrary<FieldEdit> = fc
	.constantFrom(
		"type",
		"id",
		"parentId",
		"timestamp",
		"message",
		"message.role",
		"message.content",
		"thinkingLevel",
		"provider",
		"modelId",
		"activeToolNames",
		"summary",
		"firstKeptEntryId",
		"tokensBefore",
		"details",
		"fromHook",
		"fromId",
		"customType",
		"data",
		"content",
		"display",
		"targetId",
		"label",
		"name",
		"extra",
		"__proto__",
	)
	.chain((field) => {
		const value =
			field === "type"
				? typeValue
				: field === "id" || field === "targetId" || field === "fromId" || field === "firstKeptEntryId"
					? idValue
					: field === "timestamp"
						? fc.oneof(fc.constant(at(30)), anyValue)
						: anyValue;
		return fc.option(value, { nil: undefined, freq: 6 }).map((v) => ({ field, value: v }));
	});

function applyEdits(draft: Draft, edits: readonly FieldEdit[]): Draft {
	const result: Draft = { ...draft };
	for (const { field, value } of edits) {
		let target = result;
		let key = field;
		if (field.startsWith("message.")) {
			const message = result.message;
			if (typeof message !== "object" || message === null || Array.isArray(message)) continue;
			target = { ...(message as Draft) };
			result.message = target;
			key = field.slice("message.".length);
		}
		if (value === undefined) delete target[key];
		else setOwn(target, key, value);
	}
	return result;
}

const draft: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 3, arbitrary: baseDraft },
	{
		weight: 6,
		arbitrary: fc
			.tuple(baseDraft, fc.array(fieldEdit, { minLength: 1, maxLength: 3 }))
			.map(([d, edits]) => applyEdits(d, edits)),
	},
	// The entry itself is not an object.
	{ weight: 1, arbitrary: fc.oneof(wrongType, hostileLeaf) },
);

const sessionRef = fc.oneof(
	{ weight: 12, arbitrary: fc.constant(SEED_ID) },
	{ weight: 1, arbitrary: fc.constantFrom("missing", "u1") },
	{ weight: 2, arbitrary: hostileString },
);

/** GraphQL gives a string, null or nothing. */
const expectedLeaf = fc.option(
	fc.oneof(fc.constant<string | null>(null), fc.constant(SEED_LEAF), nodeRef, hostileString),
	{ nil: undefined, freq: 2 },
);

/**
 * Inputs print with runs of one character shortened (`bbbbbbbb…×16384`):
 * a counterexample of 10,000 brackets tells nothing more than its length.
 */
function printable<T extends object>(value: T): T {
	// The copy has no printer of its own, so fast-check prints its fields.
	Object.defineProperty(value, fc.toStringMethod, {
		configurable: true,
		value: () =>
			fc
				.stringify({ ...value })
				.replace(/(.)\1{31,}/gsu, (run: string, c: string) => `${c.repeat(8)}…×${[...run].length}`),
	});
	return value;
}

// ---- Comparing as JSON -------------------------------------------------------------

const PLACEMENT = ["type", "id", "parentId", "timestamp"];

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON text with sorted keys: equal text is equal JSON, whatever the key order (`__proto__` kept). */
function canonical(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		isPlainObject(v)
			? Object.fromEntries(
					Object.keys(v)
						.sort()
						.map((k) => [k, v[k]]),
				)
			: v,
	);
}

/** An entry's or draft's own fields: all but placement, undefined ones dropped, `__proto__` kept. */
function own(entry: unknown): Record<string, unknown> {
	return Object.fromEntries(
		Object.entries(entry as Record<string, unknown>).filter(
			([key, value]) => !PLACEMENT.includes(key) && value !== undefined,
		),
	);
}

// ---- Running one input -------------------------------------------------------------

/** What a rejected write must leave as it was. */
interface Snapshot {
	seed: SessionRecord | null;
	sessions: number;
}

async function snapshot(store: SessionStore, ws: string): Promise<Snapshot> {
	return {
		seed: await store.getSession(ws, SEED_ID),
		sessions: (await store.listSessions(ws, { first: 1 })).totalCount,
	};
}

/** The outcome two backends must agree on. */
type Outcome = { ok: true } | { ok: false; code: ErrorCode; field: string | undefined };

interface Operation<I> {
	call(store: SessionStore, ws: string, input: I): Promise<unknown>;
	/** After a success: what the call returned is stored, and is what was asked. */
	verify(store: SessionStore, ws: string, input: I, result: unknown, before: Snapshot): Promise<void>;
}

function describeError(error: unknown): string {
	if (!(error instanceof Error)) return `a thrown ${typeof error}: ${String(error).slice(0, 200)}`;
	return `${error.name}: ${error.message.slice(0, 300)}`;
}

function expectCoded(error: unknown): asserts error is { code: ErrorCode; field: string | undefined } {
	if (!isSessionError(error)) {
		throw new Error(`an untyped error escaped the store: ${describeError(error)}`, { cause: error });
	}
	expect(REJECTION_CODES, error.message).toContain(error.code);
	if (error.code === "INVALID_INPUT") expect(error.field, error.message).toMatch(/./);
}

let runs = 0;
/** A workspace per run: runs never see each other's writes. */
const freshWorkspace = () => `hostile-${process.pid}-${++runs}`;

async function attempt<I>(store: SessionStore, ws: string, op: Operation<I>, input: I): Promise<Outcome> {
	await store.importSession(ws, SEED_JSONL);
	const before = await snapshot(store, ws);
	let result: unknown;
	try {
		result = await op.call(store, ws, input);
	} catch (error) {
		expectCoded(error);
		expect(await snapshot(store, ws), `after ${error.code} (${error.field})`).toEqual(before);
		return { ok: false, code: error.code, field: error.field };
	}
	await op.verify(store, ws, input, result, before);
	return { ok: true };
}

/** A successful write of `rows` to the seeded session: each is readable back, the counts moved by exactly that. */
async function expectWritten(
	store: SessionStore,
	ws: string,
	before: Snapshot,
	session: SessionRecord,
	rows: AppendResult["entry"][],
	leafId: string | null,
): Promise<void> {
	const seed = before.seed as SessionRecord;
	expect(session.sessionId).toBe(SEED_ID);
	rows.forEach((row, i) => {
		expect(row.seq).toBe(seed.lastSeq + i + 1);
	});
	expect(rows[0]?.entry.parentId).toBe(seed.leafId);
	for (const row of rows) {
		expect(canonical(await store.getEntry(ws, SEED_ID, row.entry.id))).toBe(canonical(row));
	}
	expect(session).toMatchObject({
		lastSeq: seed.lastSeq + rows.length,
		entryCount: seed.entryCount + rows.length,
		leafId,
	});
	expect(canonical(await store.getSession(ws, SEED_ID))).toBe(canonical(session));
	expect((await snapshot(store, ws)).sessions).toBe(before.sessions);
}

// ---- The operations ---------------------------------------------------------------

interface AppendInput {
	sessionId: string;
	draft: unknown;
	expectedLeafId: string | null | undefined;
}

const appendInput: fc.Arbitrary<AppendInput> = fc.record({
	sessionId: sessionRef,
	draft,
	expectedLeafId: expectedLeaf,
});

const appendOp: Operation<AppendInput> = {
	call: (store, ws, { sessionId, draft, expectedLeafId }) =>
		store.appendEntry(ws, sessionId, draft as never, expectedLeafId === undefined ? {} : { expectedLeafId }),
	async verify(store, ws, input, result, before) {
		const { entry, session, created } = result as AppendResult;
		const given = input.draft as Draft;
		expect(entry.entry.type).toBe(given.type);
		if (given.id !== undefined) expect(entry.entry.id).toBe(given.id);
		expect(canonical(own(entry.entry))).toBe(canonical(own(given)));
		if (created) {
			await expectWritten(store, ws, before, session, [entry], entry.entry.id);
		} else {
			// A re-sent entry: the stored one comes back and nothing is written.
			expect(await snapshot(store, ws)).toEqual(before);
			expect(canonical(await store.getEntry(ws, SEED_ID, entry.entry.id))).toBe(canonical(entry));
		}
	},
};

interface MoveInput {
	sessionId: string;
	targetId: unknown;
	summary: unknown;
	expectedLeafId: string | null | undefined;
}

const moveInput: fc.Arbitrary<MoveInput> = fc.record({
	sessionId: sessionRef,
	targetId: fc.oneof(fc.constant(null), nodeRef, idValue),
	summary: fc.option(
		fc.oneof(
			fc.record({ summary: text, details: content }, { requiredKeys: ["summary"] }),
			fc.record({ summary: anyValue, details: anyValue }, { requiredKeys: [] }),
			wrongType,
		),
		{ nil: undefined, freq: 2 },
	),
	expectedLeafId: expectedLeaf,
});

const moveOp: Operation<MoveInput> = {
	call: (store, ws, { sessionId, targetId, summary, expectedLeafId }) =>
		store.moveLeaf(ws, sessionId, {
			targetId,
			...(summary === undefined ? {} : { summary }),
			...(expectedLeafId === undefined ? {} : { expectedLeafId }),
		} as MoveLeafInput),
	async verify(store, ws, input, result, before) {
		const { leafEntry, summaryEntry, session } = result as MoveLeafResult;
		expect(leafEntry.entry.type).toBe("leaf");
		expect(canonical(own(leafEntry.entry))).toBe(canonical({ targetId: input.targetId }));
		expect(summaryEntry !== null, "a summary entry exactly when a summary was given").toBe(
			Boolean(input.summary),
		);
		if (summaryEntry) {
			const { summary, details } = input.summary as { summary: unknown; details?: unknown };
			expect(summaryEntry.entry.type).toBe("branch_summary");
			expect(summaryEntry.entry.parentId).toBe(input.targetId);
			expect(canonical(own(summaryEntry.entry))).toBe(
				canonical({ fromId: input.targetId ?? "root", summary, details }),
			);
		}
		const rows = summaryEntry ? [leafEntry, summaryEntry] : [leafEntry];
		const leafId = summaryEntry ? summaryEntry.entry.id : (input.targetId as string | null);
		await expectWritten(store, ws, before, session, rows, leafId);
	},
};

interface LabelInput {
	sessionId: string;
	targetId: unknown;
	label: unknown;
}

const labelInput: fc.Arbitrary<LabelInput> = fc.record({
	sessionId: sessionRef,
	targetId: fc.oneof(nodeRef, idValue),
	label: fc.option(fc.oneof(text, hostileString, fc.constantFrom("", "   "), wrongType), {
		nil: undefined,
		freq: 4,
	}),
});

const labelOp: Operation<LabelInput> = {
	call: (store, ws, { sessionId, targetId, label }) =>
		store.setLabel(ws, sessionId, targetId as string, label as string | null | undefined),
	async verify(store, ws, input, result, before) {
		const { entry, session, created } = result as AppendResult;
		expect(created).toBe(true);
		expect(entry.entry.type).toBe("label");
		const expected = input.label
			? { targetId: input.targetId, label: input.label }
			: { targetId: input.targetId };
		expect(canonical(own(entry.entry))).toBe(canonical(expected));
		await expectWritten(store, ws, before, session, [entry], entry.entry.id);
	},
};

interface RenameInput {
	sessionId: string;
	name: unknown;
}

const renameInput: fc.Arbitrary<RenameInput> = fc.record({
	sessionId: sessionRef,
	name: fc.oneof(
		text,
		hostileString,
		around(LIMITS.textLength, 2).map((n) => ` ${"n".repeat(n)} `),
		wrongType,
	),
});

const renameOp: Operation<RenameInput> = {
	call: (store, ws, { sessionId, name }) => store.renameSession(ws, sessionId, name as string),
	async verify(store, ws, input, result, before) {
		const { entry, session } = result as AppendResult;
		expect(entry.entry.type).toBe("session_info");
		expect(canonical(own(entry.entry))).toBe(canonical({ name: (input.name as string).trim() }));
		await expectWritten(store, ws, before, session, [entry], entry.entry.id);
	},
};

// ---- Import ------------------------------------------------------------------------

/** Raw JSON text a field can be set to: tokens JSON.stringify cannot write, and deep nesting. */
const rawValue = fc.oneof(
	fc.constantFrom(
		"NaN",
		"Infinity",
		"1e999",
		"-1e999",
		"-0",
		"1e-400",
		'"\\u0000"',
		'"a\\u0000"',
		'"\\ud800"',
		'"\\udc00x"',
		'"\\ud83d\\ude00"',
		"undefined",
		"'single'",
	),
	fc.oneof(depth, fc.constant(100_000)).map((d) => `${"[".repeat(d)}${"]".repeat(d)}`),
	depth.map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`),
);

const LINE_FIELDS = [
	"type",
	"id",
	"parentId",
	"timestamp",
	"message",
	"targetId",
	"label",
	"version",
	"cwd",
	"parentSession",
	"name",
	"summary",
	"tokensBefore",
	"firstKeptEntryIndex",
	"__proto__",
	"extra",
] as const;

type LineEdit =
	| { kind: "truncate"; line: number; at: number }
	| { kind: "duplicate"; line: number; to: number }
	| { kind: "delete"; line: number }
	| { kind: "swap"; a: number; b: number }
	| { kind: "field"; line: number; field: string; value: unknown }
	| { kind: "raw"; line: number; field: string; raw: string }
	| { kind: "garbage"; to: number; text: string }
	| { kind: "header"; to: number }
	| { kind: "bigHeader"; field: "cwd" | "parentSession" | "provider"; size: number }
	| { kind: "version"; version: unknown }
	| { kind: "many"; count: number };

/** Line indices are taken modulo the file's length when applied. */
const lineEdit: fc.Arbitrary<LineEdit> = fc.oneof(
	fc.record({ kind: fc.constant("truncate" as const), line: fc.nat(), at: fc.nat() }),
	fc.record({ kind: fc.constant("duplicate" as const), line: fc.nat(), to: fc.nat() }),
	fc.record({ kind: fc.constant("delete" as const), line: fc.nat() }),
	fc.record({ kind: fc.constant("swap" as const), a: fc.nat(), b: fc.nat() }),
	fc.record({
		kind: fc.constant("field" as const),
		line: fc.nat(),
		field: fc.constantFrom(...LINE_FIELDS),
		// No deep values here: JSON.stringify, like every recursive encoder, would overflow on them.
		value: fc.oneof(hostileString, wrongType, oddNumber, protoKeyed, fc.constant(undefined)),
	}),
	fc.record({
		kind: fc.constant("raw" as const),
		line: fc.nat(),
		field: fc.constantFrom(...LINE_FIELDS),
		raw: rawValue,
	}),
	fc.record({ kind: fc.constant("garbage" as const), to: fc.nat(), text: fc.string({ maxLength: 30 }) }),
	fc.record({ kind: fc.constant("header" as const), to: fc.nat() }),
	fc.oneof(
		fc.record({
			kind: fc.constant("bigHeader" as const),
			field: fc.constantFrom("cwd" as const, "parentSession" as const),
			size: around(LIMITS.textLength, 2),
		}),
		fc.record({
			kind: fc.constant("bigHeader" as const),
			field: fc.constant("provider" as const),
			size: around(LIMITS.headerBytes - 100, 8),
		}),
	),
	fc.record({
		kind: fc.constant("version" as const),
		version: fc.constantFrom<unknown>(1, 2, 3, 4, 0, "3", null, 2.5, true),
	}),
	// More entries than the import limit allows, or just under it (the seed has 7).
	fc.record({ kind: fc.constant("many" as const), count: fc.integer({ min: 0, max: LIMITS.importEntries }) }),
);

function parsedObject(line: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(line);
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/** A line again after an edit; undefined when an earlier edit nested it too deep to encode (it stays). */
function reencode(line: Record<string, unknown>): string | undefined {
	try {
		return JSON.stringify(line);
	} catch {
		return undefined;
	}
}

/** Apply one edit to the lines of a file; an edit that does not fit the file leaves it as it is. */
function editLines(lines: string[], edit: LineEdit): string[] {
	const n = lines.length;
	const pick = (i: number) => (n === 0 ? -1 : i % n);
	const out = [...lines];
	switch (edit.kind) {
		case "truncate": {
			const i = pick(edit.line);
			if (i >= 0) out[i] = (out[i] as string).slice(0, edit.at % ((out[i] as string).length + 1));
			return out;
		}
		case "duplicate": {
			const i = pick(edit.line);
			if (i >= 0) out.splice(edit.to % (n + 1), 0, out[i] as string);
			return out;
		}
		case "delete":
			if (n > 0) out.splice(pick(edit.line), 1);
			return out;
		case "swap": {
			const [a, b] = [pick(edit.a), pick(edit.b)];
			if (a >= 0) [out[a], out[b]] = [out[b] as string, out[a] as string];
			return out;
		}
		case "field":
		case "raw": {
			const i = pick(edit.line);
			const obj = i >= 0 ? parsedObject(out[i] as string) : undefined;
			if (!obj) return out;
			setOwn(obj, edit.field, edit.kind === "field" ? edit.value : "@RAW@");
			const line = reencode(obj);
			if (line !== undefined) out[i] = edit.kind === "field" ? line : line.replace('"@RAW@"', edit.raw);
			return out;
		}
		case "garbage":
			out.splice(edit.to % (n + 1), 0, edit.text);
			return out;
		case "header":
			out.splice(edit.to % (n + 1), 0, out[0] ?? JSON.stringify(seedLines("again")[0]));
			return out;
		case "bigHeader":
		case "version": {
			const header = n > 0 ? parsedObject(out[0] as string) : undefined;
			if (!header) return out;
			if (edit.kind === "version") setOwn(header, "version", edit.version);
			else setOwn(header, edit.field, "h".repeat(edit.size));
			out[0] = reencode(header) ?? (out[0] as string);
			return out;
		}
		case "many": {
			let parentId: string | null = SEED_LEAF;
			for (let k = 0; k < edit.count; k++) {
				const id = `m${k}`;
				out.push(
					JSON.stringify({ type: "message", id, parentId, timestamp: at(40), message: said("user", id) }),
				);
				parentId = id;
			}
			return out;
		}
	}
}

interface ImportInput {
	jsonl: string;
	sessionId: string | undefined;
}

const IMPORT_BASE = seedLines("imported").map((line) => JSON.stringify(line));

const importText: fc.Arbitrary<string> = fc.oneof(
	{
		weight: 10,
		arbitrary: fc
			.tuple(
				fc.array(lineEdit, { minLength: 0, maxLength: 4 }),
				fc.constantFrom("\n", "\r\n"),
				fc.constantFrom("", "\n", "\n\n  \n"),
			)
			.map(([edits, separator, end]) => edits.reduce(editLines, IMPORT_BASE).join(separator) + end),
	},
	{ weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
	{ weight: 1, arbitrary: fc.constantFrom("", "\n", " ", "{}", "[]", "null", '{"type":"session"}') },
);

const importInput: fc.Arbitrary<ImportInput> = fc.record({
	jsonl: importText,
	// GraphQL gives a string or nothing; SEED_ID is taken in every run's workspace.
	sessionId: fc.option(fc.oneof(fc.constant(SEED_ID), hostileString), { nil: undefined, freq: 3 }),
});

const importOp: Operation<ImportInput> = {
	call: (store, ws, { jsonl, sessionId }) =>
		store.importSession(ws, jsonl, sessionId === undefined ? {} : { sessionId }),
	async verify(store, ws, { jsonl, sessionId }, result, before) {
		const { created, ...record } = result as ImportedSession;
		// The store keeps exactly what the codec makes of the file (the codec has tests of its own).
		const file = parseSessionFile(jsonl, sessionId === undefined ? {} : { sessionId });
		expect(record.sessionId).toBe(file.header.id);
		expect(canonical(await store.getSession(ws, record.sessionId))).toBe(canonical(record));
		if (created) {
			expect(record).toMatchObject({
				leafId: file.leafId,
				lastSeq: file.rows.length,
				entryCount: file.rows.length,
			});
			expect(canonical(await store.listEntries(ws, record.sessionId))).toBe(canonical(file.rows));
		} else {
			// A re-import: the file is the stored session in one of the forms it exports.
			const entries = (text: string) => parseSessionFile(text).rows.map((row) => row.entry);
			const forms = await Promise.all(
				EXPORT_FORMATS.map(async (format) =>
					canonical(entries(await store.exportSession(ws, record.sessionId, { format }))),
				),
			);
			expect(forms).toContain(canonical(file.rows.map((row) => row.entry)));
		}
		// The seed's own file again (the examples include it) is the stored seed: nothing written.
		expect(await snapshot(store, ws)).toEqual(
			created ? { ...before, sessions: before.sessions + 1 } : before,
		);
	},
};

// ---- Defects these properties found: examples that run first, every time ---------------

/** A string no backend can store (Postgres text and jsonb refuse U+0000 and lone surrogates). */
const NUL = "a\u0000b";
const LONE = "\udc00";
/** PGlite's protocol decoder drops a leading byte-order mark from every text value it reads. */
const BOM = "\ufeffb";
/** Past what structured clone can copy to the PGlite worker (and far past the depth limit). */
const TOO_DEEP = 5000;
const ownProto = (json: string) => JSON.parse(json) as Draft;
const IMPORT_JSONL = `${IMPORT_BASE.join("\n")}\n`;

const appendExamples: AppendInput[] = [
	// An own `__proto__` field (JSON.parse makes one) vanishes from the stored entry.
	{
		sessionId: SEED_ID,
		draft: ownProto('{"type":"custom","customType":"x","__proto__":{"kept":true}}'),
		expectedLeafId: undefined,
	},
	// PGlite, Postgres: an untyped "invalid byte sequence for encoding UTF8: 0x00" instead of NOT_FOUND.
	{ sessionId: NUL, draft: { type: "custom", customType: "x" }, expectedLeafId: undefined },
	// PGlite: the entry is stored as "b" (its id read back without the BOM), so getEntry finds nothing.
	{ sessionId: SEED_ID, draft: { type: "custom", customType: "x", id: BOM }, expectedLeafId: undefined },
	// PGlite: a draft without a type and too deep to copy named "entry" (the clone guard); memory named "entry.type".
	{
		sessionId: SEED_ID,
		draft: { content: nested(TOO_DEEP, "array") } as unknown as Draft,
		expectedLeafId: undefined,
	},
];

const moveExamples: MoveInput[] = [
	// PGlite, Postgres: the target id goes unchecked into a jsonb parameter; untyped errors.
	{ sessionId: SEED_ID, targetId: NUL, summary: undefined, expectedLeafId: undefined },
	{ sessionId: SEED_ID, targetId: LONE, summary: undefined, expectedLeafId: undefined },
	{ sessionId: NUL, targetId: "u1", summary: undefined, expectedLeafId: undefined },
	// PGlite: INVALID_INPUT naming "entry" (the worker's clone guard); memory and Postgres name "summary".
	{
		sessionId: SEED_ID,
		targetId: "u1",
		summary: { summary: "s", details: nested(TOO_DEEP, "array") },
		expectedLeafId: undefined,
	},
];

const labelExamples: LabelInput[] = [
	{ sessionId: NUL, targetId: "u1", label: "x" },
	// PGlite: "entry" where memory and Postgres name "label".
	{ sessionId: SEED_ID, targetId: "u1", label: nested(TOO_DEEP, "object") },
];

const renameExamples: RenameInput[] = [
	{ sessionId: NUL, name: "x" },
	// PGlite: "entry" where memory and Postgres name "name".
	{ sessionId: SEED_ID, name: nested(TOO_DEEP, "object") },
];

const importExamples: ImportInput[] = [
	// Every backend: the "unsupported version" message JSON.stringify-s the value; a RangeError escapes.
	{
		jsonl: `{"type":"session","version":${"[".repeat(100_000)}${"]".repeat(100_000)},"id":"x","timestamp":"${at(0)}"}\n`,
		sessionId: undefined,
	},
	// The sessionId override is checked for length only: memory stores these, PGlite and Postgres
	// fail untyped (on the sessions row, or on the entries' jsonb).
	{ jsonl: IMPORT_JSONL, sessionId: NUL },
	{ jsonl: IMPORT_JSONL, sessionId: LONE },
	// PGlite: the session reads back as "b".
	{ jsonl: IMPORT_JSONL, sessionId: BOM },
	// PGlite, Postgres: the `__proto__` field of the entry on line 2 is not stored (memory keeps it).
	{
		jsonl: `${IMPORT_BASE[0]}\n{"type":"custom","customType":"x","id":"p","parentId":null,"timestamp":"${at(1)}","__proto__":{"kept":true}}\n`,
		sessionId: undefined,
	},
	// The seed in the form it exports by default (its leaf record left out): a re-import of its own file.
	{
		jsonl: `${seedLines(SEED_ID)
			.filter((line) => line.type !== "leaf")
			.map((line) => JSON.stringify(line))
			.join("\n")}\n`,
		sessionId: undefined,
	},
];

// ---- The suite -----------------------------------------------------------------------

interface Property<I> {
	name: string;
	op: Operation<I>;
	input: fc.Arbitrary<I>;
	/** Inputs that found defects once; each runs first, every time. */
	examples: I[];
}

const property = <I extends object>(p: Property<I>): Property<object> => p as Property<object>;

const PROPERTIES: Property<object>[] = [
	property({ name: "appendEntry", op: appendOp, input: appendInput, examples: appendExamples }),
	property({ name: "moveLeaf", op: moveOp, input: moveInput, examples: moveExamples }),
	property({ name: "setLabel", op: labelOp, input: labelInput, examples: labelExamples }),
	property({ name: "renameSession", op: renameOp, input: renameInput, examples: renameExamples }),
	property({ name: "importSession", op: importOp, input: importInput, examples: importExamples }),
];

function hostileInputSuite(open: () => Promise<Backend>, numRuns: number): void {
	let backend: Backend;
	/** The reference backend the others must agree with (none for memory itself). */
	let reference: MemoryStore | undefined;

	beforeAll(async () => {
		backend = await open();
		reference = backend.name === "memory" ? undefined : new MemoryStore(undefined, { limits: LIMITS });
	});
	afterAll(async () => {
		await backend?.dispose();
	});

	for (const { name, op, input, examples } of PROPERTIES) {
		it(`${name}: every input is stored as given or rejected with a code, writing nothing`, async () => {
			await fc.assert(
				fc.asyncProperty(input.map(printable), async (value) => {
					const ws = freshWorkspace();
					const outcome = await attempt(backend.store, ws, op, value);
					if (reference) {
						expect(outcome, "the same outcome as the memory backend").toEqual(
							await attempt(reference, ws, op, value),
						);
					}
				}),
				{ numRuns, examples: examples.map((e) => [printable(e)]) },
			);
		});
	}
}

describe("hostile inputs to the store", () => {
	// Every backend opened with the suite's limits, lowered so that inputs around them are cheap.
	describe("memory", () => hostileInputSuite(() => memoryBackend({ limits: LIMITS }), 200));
	describe("pglite", () => hostileInputSuite(() => pgliteBackend({ limits: LIMITS }), propertyRuns(50, 15)));
	describe("postgres", () =>
		hostileInputSuite(() => postgresBackend({ limits: LIMITS }), propertyRuns(50, 15)));
});
