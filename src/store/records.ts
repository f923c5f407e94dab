/**
 * Session records and path starts, shared by the backends: what a new,
 * imported or forked session looks like, and where a path begins.
 */
import type { StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import { EXPORT_FORMATS, type ExportFormat, sameSessionFile } from "../session/export.js";
import type { ForkPlan } from "../session/fork.js";
import { newSessionId } from "../session/ids.js";
import type { ParsedSessionFile } from "../session/jsonl.js";
import type { InputLimits } from "../session/limits.js";
import { sessionNameOf } from "../session/tree.js";
import { checkText, validateEntryId } from "../session/validate.js";
import {
	type CreateSessionInput,
	type ExportOptions,
	headerOf,
	type ImportedSession,
	type SessionRecord,
} from "./store.js";

/**
 * The entry a path or context starts from: `fromId` when given (it must be a
 * node of the session), else the current leaf. Null means the empty path.
 */
export function pathStart(
	session: SessionRecord,
	fromId: string | null | undefined,
	found: StoredEntry | null | undefined,
	field = "fromId",
): string | null {
	if (fromId === undefined || fromId === null) return session.leafId;
	checkPathStart(session.sessionId, fromId, found, field);
	return fromId;
}

/**
 * A given start must be a node of the session: NOT_FOUND when the session
 * has no entry `fromId` (`found` is what the backend found under that id),
 * INVALID_INPUT for a leaf record. Every backend applies this one rule.
 */
export function checkPathStart(
	sessionId: string,
	fromId: string,
	found: StoredEntry | null | undefined,
	field: string,
): void {
	if (!found)
		throw new SessionError("NOT_FOUND", `Entry ${fromId} not found in session ${sessionId}`, { field });
	if (found.entry.type === "leaf")
		throw invalidInput(field, `entry ${fromId} is a leaf record, not a tree node`);
}

/** When an imported session was last active: its newest entry, or its creation. */
export function lastActivity(createdAt: string, rows: readonly StoredEntry[]): string {
	let latest = createdAt;
	for (const { entry } of rows) if (entry.timestamp > latest) latest = entry.timestamp;
	return latest;
}

export function initialName(name: unknown): string | null {
	return typeof name === "string" ? name.trim() || null : null;
}

function optionalText(value: unknown, field: string, limits: InputLimits): string | null {
	if (value === undefined || value === null) return null;
	if (typeof value !== "string") throw invalidInput(field, "must be a string");
	checkText(value, field, limits);
	return value;
}

/** A new, empty session. A name given at creation lives in the header until a rename. */
export function newSessionRecord(
	ws: string,
	input: CreateSessionInput,
	now: string,
	limits: InputLimits,
): SessionRecord {
	const sessionId =
		input.sessionId === undefined ? newSessionId() : validateEntryId(input.sessionId, "sessionId");
	const name = initialName(optionalText(input.name, "name", limits));
	return {
		workspaceId: ws,
		sessionId,
		name,
		cwd: optionalText(input.cwd, "cwd", limits),
		createdAt: now,
		updatedAt: now,
		parentSessionId: optionalText(input.parentSessionId, "parentSessionId", limits),
		leafId: null,
		leafDepth: null,
		lastSeq: 0,
		entryCount: 0,
		headerExtra: name === null ? {} : { name },
		archivedAt: null,
	};
}

export function importedSessionRecord(ws: string, file: ParsedSessionFile): SessionRecord {
	const { header, rows } = file;
	return {
		workspaceId: ws,
		sessionId: header.id,
		name: sessionNameOf(rows, initialName(header.extra.name)),
		cwd: header.cwd,
		createdAt: header.timestamp,
		updatedAt: lastActivity(header.timestamp, rows),
		parentSessionId: header.parentSession,
		leafId: file.leafId,
		leafDepth: file.rows.find((r) => r.entry.id === file.leafId)?.depth ?? null,
		lastSeq: rows.length,
		entryCount: rows.length,
		headerExtra: header.extra,
		archivedAt: null,
	};
}

/** A fork names its source as parent and keeps the source's cwd. */
export function forkedSessionRecord(
	source: SessionRecord,
	sessionId: string,
	plan: ForkPlan,
	now: string,
): SessionRecord {
	return {
		workspaceId: source.workspaceId,
		sessionId,
		name: sessionNameOf(plan.rows),
		cwd: source.cwd,
		createdAt: now,
		updatedAt: now,
		parentSessionId: source.sessionId,
		leafId: plan.leafId,
		leafDepth: plan.leafDepth,
		lastSeq: plan.rows.length,
		entryCount: plan.rows.length,
		headerExtra: {},
		archivedAt: null,
	};
}

export function forkTargetId(newSessionIdInput: string | undefined): string {
	return newSessionIdInput === undefined
		? newSessionId()
		: validateEntryId(newSessionIdInput, "newSessionId");
}

/**
 * The answer to an import whose session id is taken: the stored session when
 * it is the file's (session/export.ts, sameSessionFile), else ALREADY_EXISTS.
 */
export function reimported(
	file: ParsedSessionFile,
	stored: SessionRecord,
	log: readonly StoredEntry[],
): ImportedSession {
	if (
		!sameSessionFile(
			file,
			headerOf(stored),
			log.map((e) => e.entry),
		)
	) {
		throw new SessionError(
			"ALREADY_EXISTS",
			`Session ${stored.sessionId} already exists with different content (${stored.entryCount} entries stored, ${file.rows.length} in the file)`,
			{ field: "sessionId" },
		);
	}
	return { ...stored, created: false };
}

/** The form an export is asked for: "pi" unless given; anything else is INVALID_INPUT. */
export function exportFormat(options: ExportOptions): ExportFormat {
	const format = options.format ?? "pi";
	if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
		throw invalidInput("format", `must be one of ${EXPORT_FORMATS.join(", ")}`);
	}
	return format;
}

/** The error for a new session whose id another session of the workspace already has. */
export function sessionIdTaken(sessionId: string): SessionError {
	return new SessionError("ALREADY_EXISTS", `Session ${sessionId} already exists`, { field: "sessionId" });
}
