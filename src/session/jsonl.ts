/**
 * The pi JSONL codec. A file is a header line `{type:"session", version, id,
 * timestamp, cwd, parentSession?}` and one entry per line. Versions 1 and 2
 * are migrated the way pi's `migrateSessionEntries` does; files from pi's
 * harness (with `leaf` entries) are read as they are. Nothing is returned from
 * a file that fails: the first bad line is an INVALID_INPUT naming it.
 */
import { type Entry, isNode, isOf, type StoredEntry } from "./entry.js";
import { invalidInput, SessionError } from "./errors.js";
import { migratedEntryId } from "./ids.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "./limits.js";
import { leafAfter } from "./tree.js";
import {
	checkJsonValue,
	checkText,
	isObject,
	normalizeTimestamp,
	validateEntry,
	validateEntryId,
} from "./validate.js";

export const CURRENT_VERSION = 3;

/** The session header, with fields we do not interpret kept in `extra`. */
export interface SessionHeader {
	id: string;
	timestamp: string;
	cwd: string | null;
	parentSession: string | null;
	/** Unknown header fields (`provider`, `modelId`, `branchedFrom`, …), kept for export. */
	extra: Record<string, unknown>;
}

export interface ParsedSessionFile {
	header: SessionHeader;
	/** Entries in file order with seq and depth assigned. */
	rows: StoredEntry[];
	leafId: string | null;
	/** The version the file was written in (it is migrated to 3). */
	sourceVersion: number;
	/** The physical line of each row in the text (1-based; the header's line counts, blank lines too). */
	lineNumbers: number[];
}

/** Lines of entries without a header, and the physical line each is on. */
export interface EntryLines {
	entries: Entry[];
	lineNumbers: number[];
}

const HEADER_FIELDS = new Set(["type", "version", "id", "timestamp", "cwd", "parentSession"]);

function lineError(line: number, problem: string, field?: string): SessionError {
	return new SessionError("INVALID_INPUT", `line ${line}: ${problem}`, { field: field ?? `line ${line}` });
}

function parseLine(raw: string, number: number): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(raw);
	} catch (error) {
		throw lineError(number, `not valid JSON (${(error as Error).message})`);
	}
	if (!isObject(value)) throw lineError(number, "must be a JSON object");
	return value;
}

/**
 * The JSON object of each line that is not blank, with its physical line
 * number (1-based; `\r\n` line ends accepted), parsed as it is reached.
 */
function* objectLines(text: string): Generator<{ number: number; value: Record<string, unknown> }> {
	const physical = text.split("\n");
	for (let i = 0; i < physical.length; i++) {
		const raw = (physical[i] as string).replace(/\r$/, "");
		if (raw.trim() !== "") yield { number: i + 1, value: parseLine(raw, i + 1) };
	}
}

function readHeader(
	h: Record<string, unknown>,
	number: number,
	sessionIdOverride: string | undefined,
	limits: InputLimits,
): { header: SessionHeader; version: number } {
	if (h.type !== "session") {
		throw lineError(number, 'the first line must be a session header {"type":"session", …}');
	}
	const version = h.version ?? 1;
	if (version !== 1 && version !== 2 && version !== 3) {
		// Described, not quoted: the value may be anything, nested too deep to print.
		const shown =
			typeof version === "number"
				? String(version)
				: Array.isArray(version)
					? "an array"
					: `a ${typeof version}`;
		throw lineError(number, `version ${shown} is not supported (1, 2 or 3)`, "version");
	}
	if (typeof h.id !== "string" || h.id.length === 0)
		throw lineError(number, "id must be a non-empty string", "id");
	try {
		const id = validateEntryId(
			sessionIdOverride ?? h.id,
			sessionIdOverride === undefined ? "id" : "sessionId",
		);
		if (h.cwd !== undefined && typeof h.cwd !== "string") throw invalidInput("cwd", "must be a string");
		if (h.parentSession !== undefined && h.parentSession !== null && typeof h.parentSession !== "string") {
			throw invalidInput("parentSession", "must be a string");
		}
		if (typeof h.cwd === "string") checkText(h.cwd, "cwd", limits);
		if (typeof h.parentSession === "string") checkText(h.parentSession, "parentSession", limits);
		// Header strings land in text and jsonb columns, which cannot hold U+0000 either.
		checkJsonValue(h, "header", limits, limits.headerBytes);
		const extra = Object.fromEntries(Object.entries(h).filter(([key]) => !HEADER_FIELDS.has(key)));
		return {
			version,
			header: {
				id,
				timestamp: normalizeTimestamp(h.timestamp, "timestamp"),
				cwd: typeof h.cwd === "string" ? h.cwd : null,
				parentSession: typeof h.parentSession === "string" ? h.parentSession : null,
				extra,
			},
		};
	} catch (error) {
		if (error instanceof SessionError) throw lineError(number, error.message, error.field);
		throw error;
	}
}

/**
 * pi's v1 → v2 migration of one line, in file order: the entry gets an id and
 * the previous line as parent; a compaction's `firstKeptEntryIndex` (an index
 * into the file's lines, header = 0) becomes the id that line has by then, so
 * an index naming a later line leaves `firstKeptEntryId` absent, as in pi.
 */
function migrateV1Line(
	entry: Record<string, unknown>,
	lines: readonly Record<string, unknown>[],
	id: string,
	parentId: string | null,
): void {
	entry.id = id;
	entry.parentId = parentId;
	if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
		const target = lines[entry.firstKeptEntryIndex];
		if (target && target.type !== "session" && typeof target.id === "string")
			entry.firstKeptEntryId = target.id;
		delete entry.firstKeptEntryIndex;
	}
}

/** pi's v2 → v3 migration: the message role `hookMessage` became `custom`. */
function migrateV2Line(entry: Record<string, unknown>): void {
	const message = entry.message;
	if (entry.type === "message" && isObject(message) && message.role === "hookMessage")
		message.role = "custom";
}

export interface ParseOptions {
	/** Overrides the header's session id. */
	sessionId?: string;
	/** Who imports the file: the author of every row (a pi file names no writer). Default null. */
	author?: string | null;
	/** The limits the file is held to (default DEFAULT_INPUT_LIMITS). */
	limits?: InputLimits;
}

/** Whether `text`'s first non-blank line is a session header (a whole file, not lines of one). */
export function startsWithHeader(text: string): boolean {
	const first = text.split("\n").find((line) => line.trim() !== "");
	if (first === undefined) return false;
	try {
		const value: unknown = JSON.parse(first);
		return isObject(value) && value.type === "session";
	} catch {
		return false;
	}
}

/**
 * Lines of a version-3 file without its header (what a follower sends after
 * the entry it sent last): each a complete entry, checked as an import
 * checks it; how they fit the session is the continuation's to decide
 * (continuation.ts). A bad line is INVALID_INPUT naming `line N` of `text`.
 */
export function parseEntryLines(text: string, limits: InputLimits = DEFAULT_INPUT_LIMITS): EntryLines {
	const entries: Entry[] = [];
	const lineNumbers: number[] = [];
	for (const { number, value } of objectLines(text)) {
		if (value.type === "session") throw lineError(number, "a session header among the lines (send it first)");
		if (entries.length >= limits.importEntries) {
			throw new SessionError(
				"LIMIT_EXCEEDED",
				`line ${number}: at most ${limits.importEntries} lines at a time (import limit)`,
				{ field: "jsonl" },
			);
		}
		try {
			entries.push(validateEntry(value, "", limits));
			lineNumbers.push(number);
		} catch (error) {
			if (error instanceof SessionError) throw lineError(number, error.message, error.field);
			throw error;
		}
	}
	return { entries, lineNumbers };
}

/** Parse, migrate and check a file line by line; the first bad line is the one reported. */
export function parseSessionFile(text: string, options: ParseOptions = {}): ParsedSessionFile {
	const author = options.author ?? null;
	const limits = options.limits ?? DEFAULT_INPUT_LIMITS;
	let file: { header: SessionHeader; version: number } | undefined;
	const lines: Record<string, unknown>[] = [];
	const seen = new Map<string, { line: number; entry: Entry; depth: number }>();
	const taken = new Set<string>();
	const unresolved: Array<{ line: number; parentId: string }> = [];
	const rows: StoredEntry[] = [];
	const lineNumbers: number[] = [];
	let leafId: string | null = null;

	for (const { number, value } of objectLines(text)) {
		lines.push(value);
		if (!file) {
			file = readHeader(value, number, options.sessionId, limits);
			continue;
		}
		if (value.type === "session") throw lineError(number, "a second session header");
		if (rows.length >= limits.importEntries) {
			throw new SessionError(
				"LIMIT_EXCEEDED",
				`line ${number}: a session file may hold at most ${limits.importEntries} entries (import limit)`,
				{ field: "jsonl" },
			);
		}
		if (file.version < 2) {
			const id = migratedEntryId(file.header.id, lines.length - 1, taken);
			taken.add(id);
			migrateV1Line(value, lines, id, rows[rows.length - 1]?.entry.id ?? null);
		}
		if (file.version < 3) migrateV2Line(value);

		let entry: Entry;
		try {
			entry = validateEntry(value, "", limits);
		} catch (error) {
			if (error instanceof SessionError) throw lineError(number, error.message, error.field);
			throw error;
		}
		const earlier = seen.get(entry.id);
		if (earlier) {
			throw lineError(
				number,
				`id ${JSON.stringify(entry.id)} is used twice (first on line ${earlier.line})`,
				"id",
			);
		}
		/** An earlier node, or undefined for an id the file never defined before this line. */
		const earlierNode = (id: string, field: string) => {
			const found = seen.get(id);
			if (found && !isNode(found.entry)) {
				throw lineError(number, `${field} ${JSON.stringify(id)} names a leaf record`, field);
			}
			return found;
		};
		// pi loads entries whose parent is missing (its own forks drop label entries that were
		// parents) and treats them as roots; so do we. A parent defined later would make a cycle.
		const parent = entry.parentId === null ? undefined : earlierNode(entry.parentId, "parentId");
		if (entry.parentId !== null && !parent) unresolved.push({ line: number, parentId: entry.parentId });
		// A label or context edit may name an entry of another branch that a fork did not copy: it
		// changes nothing here.
		if (isOf(entry, "label") || isOf(entry, "context_edit")) earlierNode(entry.targetId, "targetId");
		// The pointer must name a node of this session.
		if (isOf(entry, "leaf") && entry.targetId !== null && !earlierNode(entry.targetId, "targetId")) {
			throw lineError(
				number,
				`targetId ${JSON.stringify(entry.targetId)} does not name an earlier entry`,
				"targetId",
			);
		}
		const depth = parent ? parent.depth + 1 : 0;
		seen.set(entry.id, { line: number, entry, depth });
		rows.push({ sessionId: file.header.id, seq: rows.length + 1, depth, author, entry });
		lineNumbers.push(number);
		leafId = leafAfter(entry);
	}
	if (!file) throw lineError(1, 'the first line must be a session header {"type":"session", …}');
	for (const { line, parentId } of unresolved) {
		const later = seen.get(parentId);
		if (later) {
			throw lineError(
				line,
				`parentId ${JSON.stringify(parentId)} names a later entry (line ${later.line})`,
				"parentId",
			);
		}
	}
	return { header: file.header, rows, leafId, sourceVersion: file.version, lineNumbers };
}
