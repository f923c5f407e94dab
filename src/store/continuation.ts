/**
 * Continuing a session from its pi file (design/tree-rules.md#continuing-from-a-file):
 * the request is read (a whole file, or the lines after an entry); each
 * backend reads a snapshot of the session (the entry the lines follow, the
 * log after it, the entries the lines name beyond it) and calls
 * `decideContinuation`, which compares the lines with what the session holds
 * after that entry (session/continuation.ts) and gives the new ones with a
 * leaf record before each one pi wrote after going back; the backend commits
 * them. A session that does not exist yet, given its whole file, is
 * imported instead (the backend's import).
 */

import type { PlanClock } from "../session/append.js";
import { canonicalJson, referencedIds } from "../session/append.js";
import { type ContinuationPlan, planContinuation } from "../session/continuation.js";
import { isNode, type StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import { headerLine } from "../session/export.js";
import {
	type EntryLines,
	type ParsedSessionFile,
	parseEntryLines,
	parseSessionFile,
	startsWithHeader,
} from "../session/jsonl.js";
import type { InputLimits } from "../session/limits.js";
import { validateEntryId } from "../session/validate.js";
import { lastActivity } from "./records.js";
import { type ContinuedSession, type ContinueInput, headerOf, type SessionRecord } from "./store.js";
import { archivedSession, notFoundSession, sessionAfter, systemClock, type WriteOutcome } from "./write.js";

/** A continuation request, read: a whole file, or lines after an entry. */
export type ContinuationRequest =
	| { kind: "file"; sessionId: string; file: ParsedSessionFile }
	| { kind: "lines"; sessionId: string; afterEntryId: string | null; lines: EntryLines };

/** The request as its text gives it; INVALID_INPUT for what does not make one. */
export function readContinuation(
	input: ContinueInput,
	author: string | null,
	limits: InputLimits,
): ContinuationRequest {
	if (typeof input.jsonl !== "string") throw invalidInput("jsonl", "must be a string");
	if (startsWithHeader(input.jsonl)) {
		if (input.afterEntryId !== undefined && input.afterEntryId !== null)
			throw invalidInput(
				"afterEntryId",
				"is for lines without the header: a whole file starts from its first line",
			);
		const file = parseSessionFile(input.jsonl, {
			...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
			author,
			limits,
		});
		return { kind: "file", sessionId: file.header.id, file };
	}
	if (input.sessionId === undefined)
		throw invalidInput("sessionId", "is required with lines (a whole file's header names its session)");
	if (input.afterEntryId === undefined)
		throw invalidInput(
			"afterEntryId",
			"is required with lines: the id of the entry they follow, or null for the first",
		);
	const sessionId = validateEntryId(input.sessionId, "sessionId");
	const afterEntryId =
		input.afterEntryId === null ? null : validateEntryId(input.afterEntryId, "afterEntryId");
	return { kind: "lines", sessionId, afterEntryId, lines: parseEntryLines(input.jsonl, limits) };
}

/**
 * What a continuation decides from, read in the transaction (or snapshot)
 * the backend commits in: the session record, the entry the request follows
 * (null for the first line; undefined when the session lacks it), the log
 * after it in seq order (empty when it is lacking), and the stored entries
 * named by `continuationLookups`.
 */
export interface ContinuationSnapshot {
	session: SessionRecord;
	after: StoredEntry | null | undefined;
	tail: readonly StoredEntry[];
	found: ReadonlyMap<string, StoredEntry>;
}

export interface ContinuationOutcome extends WriteOutcome {
	held: number;
	appended: number;
}

/** The id of the entry a request's lines follow; null from the first line. */
export const continuationAfter = (request: ContinuationRequest): string | null =>
	request.kind === "lines" ? request.afterEntryId : null;

const linesOf = (request: ContinuationRequest): EntryLines =>
	request.kind === "file"
		? { entries: request.file.rows.map((row) => row.entry), lineNumbers: request.file.lineNumbers }
		: request.lines;

/** Ids the lines name beyond the entry they follow and the tail (their own, which must be new, their parents and targets). */
export function continuationLookups(
	request: ContinuationRequest,
	after: StoredEntry | null | undefined,
	tail: readonly StoredEntry[],
): string[] {
	const { entries: lines } = linesOf(request);
	const outside = new Set(referencedIds(lines));
	for (const line of lines) if (line.parentId !== null) outside.add(line.parentId);
	for (const row of tail) outside.delete(row.entry.id);
	if (after) outside.delete(after.entry.id);
	return [...outside];
}

/**
 * The continuation of an existing session as one pure decision: NOT_FOUND
 * for a missing session (or `afterEntryId` it lacks: the caller sends more
 * of the file), ALREADY_EXISTS (`jsonl`) for a file that no longer matches
 * it; else the rows to append (none when it is up to date) and the next
 * session record, which each backend commits.
 */
export function decideContinuation(
	snapshot: ContinuationSnapshot | null,
	request: ContinuationRequest,
	author: string | null,
	clock: PlanClock = systemClock,
): ContinuationOutcome {
	if (!snapshot) throw notFoundSession(request.sessionId);
	const { session, after, tail, found } = snapshot;
	if (
		request.kind === "file" &&
		canonicalJson(headerLine(headerOf(session))) !== canonicalJson(headerLine(request.file.header))
	) {
		throw new SessionError("ALREADY_EXISTS", "line 1: the file's header is not the stored session's", {
			field: "jsonl",
		});
	}
	if (after === undefined) {
		throw new SessionError(
			"NOT_FOUND",
			`Entry ${continuationAfter(request)} not found in this session: send the file from an earlier line`,
			{ field: "afterEntryId" },
		);
	}
	const { entries: lines, lineNumbers } = linesOf(request);
	const plan: ContinuationPlan = planContinuation(
		session.sessionId,
		{ leafId: session.leafId, leafDepth: session.leafDepth, lastSeq: session.lastSeq },
		after && { entry: after.entry, depth: after.depth },
		tail,
		lines,
		lineNumbers,
		(id) => {
			const stored = found.get(id);
			return stored && { id, isNode: isNode(stored.entry), depth: stored.depth };
		},
		clock,
		author,
	);
	if (plan.rows.length === 0) return { rows: [], session, held: plan.held, appended: 0 };
	// Lines the session holds are answered (a follower's repeat), new ones refused while it is archived.
	if (session.archivedAt !== null) throw archivedSession(session.sessionId);
	// The time pi wrote its last line, never before the session's last activity.
	const next = sessionAfter(session, plan, lastActivity(session.updatedAt, plan.rows));
	return { rows: plan.rows, session: next, held: plan.held, appended: plan.appended };
}

/** The answer for a session continued (or found up to date). */
export const continued = (outcome: ContinuationOutcome): ContinuedSession => ({
	...outcome.session,
	created: false,
	appended: outcome.appended,
	held: outcome.held,
});
