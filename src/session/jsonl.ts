/**
 * The pi JSONL codec. A file is a header line `{type:"session", version, id,
 * timestamp, cwd, parentSession?}` and one entry per line. Versions 1 and 2
 * are migrated the way pi's `migrateSessionEntries` does; files from pi's
 * harness (with `leaf` entries) are read as they are. Nothing is returned from
 * a file that fails: the first bad line is an INVALID_INPUT naming it.
 */
import { type Entry, isNode, type StoredEntry } from "./entry.js";
import { SessionError } from "./errors.js";
import { migratedEntryId } from "./ids.js";
import { leafAfter } from "./tree.js";
import { normalizeTimestamp, validateEntry, validateEntryId } from "./validate.js";

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
}

const HEADER_FIELDS = new Set(["type", "version", "id", "timestamp", "cwd", "parentSession"]);

function lineError(line: number, problem: string, field?: string): SessionError {
	return new SessionError("INVALID_INPUT", `line ${line}: ${problem}`, { field: field ?? `line ${line}` });
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface Line {
	number: number;
	value: Record<string, unknown>;
}

function readLines(text: string): Line[] {
	const lines: Line[] = [];
	const physical = text.split("\n");
	for (let i = 0; i < physical.length; i++) {
		const raw = (physical[i] as string).replace(/\r$/, "");
		if (raw.trim() === "") continue;
		let value: unknown;
		try {
			value = JSON.parse(raw);
		} catch (error) {
			throw lineError(i + 1, `not valid JSON (${(error as Error).message})`);
		}
		if (!isObject(value)) throw lineError(i + 1, "must be a JSON object");
		lines.push({ number: i + 1, value });
	}
	return lines;
}

function readHeader(
	line: Line | undefined,
	sessionIdOverride: string | undefined,
): { header: SessionHeader; version: number } {
	if (line?.value.type !== "session") {
		throw lineError(line?.number ?? 1, 'the first line must be a session header {"type":"session", …}');
	}
	const h = line.value;
	const at = (name: string) => `line ${line.number}: ${name}`;
	const version = h.version ?? 1;
	if (version !== 1 && version !== 2 && version !== 3) {
		throw lineError(
			line.number,
			`version ${JSON.stringify(version)} is not supported (1, 2 or 3)`,
			"version",
		);
	}
	if (typeof h.id !== "string" || h.id.length === 0)
		throw lineError(line.number, "id must be a non-empty string", "id");
	const id = validateEntryId(
		sessionIdOverride ?? h.id,
		sessionIdOverride === undefined ? at("id") : "sessionId",
	);
	if (h.cwd !== undefined && typeof h.cwd !== "string")
		throw lineError(line.number, "cwd must be a string", "cwd");
	if (h.parentSession !== undefined && h.parentSession !== null && typeof h.parentSession !== "string") {
		throw lineError(line.number, "parentSession must be a string", "parentSession");
	}
	const extra: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(h)) if (!HEADER_FIELDS.has(key)) extra[key] = value;
	return {
		version,
		header: {
			id,
			timestamp: normalizeTimestamp(h.timestamp, at("timestamp")),
			cwd: typeof h.cwd === "string" ? h.cwd : null,
			parentSession: typeof h.parentSession === "string" ? h.parentSession : null,
			extra,
		},
	};
}

/**
 * pi's v1 → v2 migration: ids assigned, each entry's parent is the previous
 * line, and a compaction's `firstKeptEntryIndex` (an index into the file's
 * lines, header = 0) becomes `firstKeptEntryId`.
 */
function migrateV1(sessionId: string, entries: Line[]): void {
	const taken = new Set<string>();
	let previous: string | null = null;
	entries.forEach((line, index) => {
		const id = migratedEntryId(sessionId, index + 1, taken);
		taken.add(id);
		line.value.id = id;
		line.value.parentId = previous;
		previous = id;
	});
	for (const line of entries) {
		const entry = line.value;
		if (entry.type !== "compaction" || typeof entry.firstKeptEntryIndex !== "number") continue;
		const target = entries[entry.firstKeptEntryIndex - 1];
		if (entry.firstKeptEntryIndex >= 1 && target) entry.firstKeptEntryId = target.value.id;
		delete entry.firstKeptEntryIndex;
	}
}

/** pi's v2 → v3 migration: the message role `hookMessage` became `custom`. */
function migrateV2(entries: Line[]): void {
	for (const { value } of entries) {
		const message = value.message;
		if (value.type === "message" && isObject(message) && message.role === "hookMessage")
			message.role = "custom";
	}
}

export function parseSessionFile(text: string, options: { sessionId?: string } = {}): ParsedSessionFile {
	const lines = readLines(text);
	const { header, version } = readHeader(lines[0], options.sessionId);
	const body = lines.slice(1);
	for (const line of body) {
		if (line.value.type === "session") throw lineError(line.number, "a second session header");
	}
	if (version < 2) migrateV1(header.id, body);
	if (version < 3) migrateV2(body);

	const seen = new Map<string, { line: number; entry: Entry; depth: number }>();
	const rows: StoredEntry[] = [];
	let leafId: string | null = null;
	for (const line of body) {
		let entry: Entry;
		try {
			entry = validateEntry(line.value);
		} catch (error) {
			if (error instanceof SessionError) throw lineError(line.number, error.message, error.field);
			throw error;
		}
		const earlier = seen.get(entry.id);
		if (earlier)
			throw lineError(
				line.number,
				`id ${JSON.stringify(entry.id)} is used twice (first on line ${earlier.line})`,
				"id",
			);
		const node = (id: string, field: string) => {
			const found = seen.get(id);
			if (!found)
				throw lineError(line.number, `${field} ${JSON.stringify(id)} does not name an earlier entry`, field);
			if (!isNode(found.entry))
				throw lineError(line.number, `${field} ${JSON.stringify(id)} names a leaf record`, field);
			return found;
		};
		const parent = entry.parentId === null ? undefined : node(entry.parentId, "parentId");
		if (entry.type === "label") node(entry.targetId, "targetId");
		if (entry.type === "leaf" && entry.targetId !== null) node(entry.targetId, "targetId");
		const depth = parent ? parent.depth + 1 : 0;
		seen.set(entry.id, { line: line.number, entry, depth });
		rows.push({ sessionId: header.id, seq: rows.length + 1, depth, entry });
		leafId = leafAfter(entry);
	}
	return { header, rows, leafId, sourceVersion: version };
}

/** The header line pi writes, version 3, unknown fields kept. */
export function headerLine(header: SessionHeader): Record<string, unknown> {
	return {
		type: "session",
		version: CURRENT_VERSION,
		id: header.id,
		timestamp: header.timestamp,
		...(header.cwd === null ? {} : { cwd: header.cwd }),
		...header.extra,
		...(header.parentSession === null ? {} : { parentSession: header.parentSession }),
	};
}

/** Version-3 JSONL: header line, then one line per entry in seq order, newline-terminated. */
export function formatSessionFile(header: SessionHeader, entries: Iterable<Entry>): string {
	const lines = [JSON.stringify(headerLine(header))];
	for (const entry of entries) lines.push(JSON.stringify(entry));
	return `${lines.join("\n")}\n`;
}
