/**
 * Continuing a session from its pi file, the procedure every backend runs in
 * its own transaction (design/tree-rules.md#continuing-from-a-file): the
 * request is read (a whole file, or the lines after an entry), the session
 * locked, the lines compared with what it holds after that entry
 * (session/continuation.ts), and the new ones written with a leaf record
 * before each one pi wrote after going back. A session that does not exist
 * yet, given its whole file, is imported instead (the backend's import).
 */

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
import { type ContinuedSession, type ContinueInput, headerOf } from "./store.js";
import {
	notFoundSession,
	type SessionWriter,
	sessionAfter,
	systemClock,
	type WriteOutcome,
} from "./write.js";

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

/** A continuation's backend primitives, in the transaction that holds the session's lock. */
export interface ContinuationWriter extends SessionWriter {
	/** The entry `afterId` and the log after it in seq order (the whole log for null); undefined when the session lacks it. */
	readAfter(afterId: string | null): Promise<{ after: StoredEntry | null; tail: StoredEntry[] } | undefined>;
}

export interface ContinuationOutcome extends WriteOutcome {
	held: number;
	appended: number;
}

/**
 * The continuation of an existing session: the rules on what `writer`
 * reads, then its commit. NOT_FOUND for a missing session (or `afterEntryId`
 * it lacks: the caller sends more of the file), ALREADY_EXISTS (`jsonl`) for
 * a file that no longer matches it.
 */
export async function continueIn(
	writer: ContinuationWriter,
	request: ContinuationRequest,
	author: string | null,
): Promise<ContinuationOutcome> {
	const session = await writer.lockSession();
	if (!session) throw notFoundSession(request.sessionId);
	const afterId = request.kind === "lines" ? request.afterEntryId : null;
	if (
		request.kind === "file" &&
		canonicalJson(headerLine(headerOf(session))) !== canonicalJson(headerLine(request.file.header))
	) {
		throw new SessionError("ALREADY_EXISTS", "line 1: the file's header is not the stored session's", {
			field: "jsonl",
		});
	}
	const read = await writer.readAfter(afterId);
	if (!read) {
		throw new SessionError(
			"NOT_FOUND",
			`Entry ${afterId} not found in this session: send the file from an earlier line`,
			{
				field: "afterEntryId",
			},
		);
	}
	const { entries: lines, lineNumbers } =
		request.kind === "file"
			? { entries: request.file.rows.map((row) => row.entry), lineNumbers: request.file.lineNumbers }
			: request.lines;
	// Ids the lines name beyond the tail (their own, which must be new, their parents and targets), in one read.
	const inTail = new Set(read.tail.map((row) => row.entry.id));
	const outside = new Set(referencedIds(lines));
	for (const line of lines) if (line.parentId !== null) outside.add(line.parentId);
	for (const id of inTail) outside.delete(id);
	if (read.after) outside.delete(read.after.entry.id);
	const found = outside.size === 0 ? new Map<string, StoredEntry>() : await writer.findEntries([...outside]);
	const plan: ContinuationPlan = planContinuation(
		session.sessionId,
		{ leafId: session.leafId, leafDepth: session.leafDepth, lastSeq: session.lastSeq },
		read.after && { entry: read.after.entry, depth: read.after.depth },
		read.tail,
		lines,
		lineNumbers,
		(id) => {
			const stored = found.get(id);
			return stored && { id, isNode: isNode(stored.entry), depth: stored.depth };
		},
		systemClock,
		author,
	);
	if (plan.rows.length === 0) return { rows: [], session, held: plan.held, appended: 0 };
	// The time pi wrote its last line, never before the session's last activity.
	const next = sessionAfter(session, plan, lastActivity(session.updatedAt, plan.rows));
	await writer.commit(plan.rows, next);
	return { rows: plan.rows, session: next, held: plan.held, appended: plan.appended };
}

/** The answer for a session continued (or found up to date). */
export const continued = (outcome: ContinuationOutcome): ContinuedSession => ({
	...outcome.session,
	created: false,
	appended: outcome.appended,
	held: outcome.held,
});
