/**
 * The tree writes as data and one pure decision, so that every rule is
 * written once: `appendWrite`, `moveWrite`, `labelWrite` and `renameWrite`
 * check a call's input and give the drafts it writes (a `TreeWrite`);
 * `decideWrite` takes a snapshot of the session (its record and the entries
 * the drafts name) and the write to the rows and the next session record,
 * or a coded refusal (session exists → re-sent entry → expected leaf →
 * targets). Each backend reads the snapshot its own way (memory under its
 * lock; Postgres optimistically, then under the row lock), calls
 * `decideWrite`, and commits.
 */

import {
	type AppendPlan,
	type KnownEntry,
	type PlanClock,
	planAppend,
	sameContent,
} from "../session/append.js";
import { type DraftEntry, isNode, type StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import { newEntryId } from "../session/ids.js";
import type { InputLimits } from "../session/limits.js";
import { nameAfter } from "../session/tree.js";
import { checkJsonValue, checkText, isStorableText, validateDraft } from "../session/validate.js";
import type { CommitNotice } from "./commits.js";
import type {
	AppendOptions,
	AppendResult,
	AuthorOptions,
	MoveLeafInput,
	MoveLeafResult,
	SessionRecord,
} from "./store.js";

export interface WriteOutcome {
	rows: StoredEntry[];
	session: SessionRecord;
	/** Set when the write re-sent an entry that is already stored. */
	replayed?: StoredEntry;
}

export const systemClock: PlanClock = {
	now: () => new Date().toISOString(),
	newId: newEntryId,
};

export function notFoundSession(sessionId: string): SessionError {
	return new SessionError("NOT_FOUND", `Session ${sessionId} not found`, { field: "sessionId" });
}

/** A write to an archived session: read-only until it is unarchived. */
export function archivedSession(sessionId: string): SessionError {
	return new SessionError(
		"ARCHIVED",
		`Session ${sessionId} is archived: it is read-only until unarchiveSession`,
		{ field: "sessionId" },
	);
}

/** What a tree write decides from: the session's record and the stored entries its drafts name. */
export interface WriteSnapshot {
	session: SessionRecord;
	/** Stored entries of the session with the ids the drafts reference (session/append.ts referencedIds). */
	found: ReadonlyMap<string, StoredEntry>;
}

/**
 * The tree-write rules as one pure decision, in their order: no session →
 * NOT_FOUND; a re-sent entry → the stored one (`replayed`, nothing to
 * insert) or ALREADY_EXISTS; an archived session → ARCHIVED;
 * `expectedLeafId` → LEAF_CONFLICT; then the plan
 * (targets, parents, seq, depth) and the session's next record. Each backend
 * reads the snapshot its own way, calls this, and commits `rows` and
 * `session` unless `replayed`. The entries a snapshot needs are
 * `referencedIds(write.drafts)`: with none, the session record alone.
 */
export function decideWrite(
	snapshot: WriteSnapshot | null,
	write: TreeWrite,
	clock: PlanClock = systemClock,
): WriteOutcome {
	const { sessionId, drafts, options } = write;
	if (!snapshot) throw notFoundSession(sessionId);
	const { session, found } = snapshot;
	const [only] = drafts;
	// The author is not part of "same content" (see sameContent): a retry by anyone returns the stored row.
	const resent = drafts.length === 1 && only?.id !== undefined ? found.get(only.id) : undefined;
	if (only && resent) {
		if (sameContent(resent.entry, only)) return { rows: [], session, replayed: resent };
		throw new SessionError(
			"ALREADY_EXISTS",
			`Entry ${resent.entry.id} already exists with different content (a ${resent.entry.type} entry at seq ${resent.seq})`,
			{ field: "entryId" },
		);
	}
	if (session.archivedAt !== null) throw archivedSession(sessionId);
	if (options.expectedLeafId !== undefined && options.expectedLeafId !== session.leafId) {
		throw new SessionError(
			"LEAF_CONFLICT",
			`The leaf is ${JSON.stringify(session.leafId)}, not the expected ${JSON.stringify(options.expectedLeafId)}`,
			{ field: "expectedLeafId" },
		);
	}
	const known = (id: string): KnownEntry | undefined => {
		const e = found.get(id);
		return e && { id, isNode: isNode(e.entry), depth: e.depth };
	};
	const head = { leafId: session.leafId, leafDepth: session.leafDepth, lastSeq: session.lastSeq };
	const plan = planAppend(sessionId, head, drafts, known, clock, options.author ?? null);
	const last = plan.rows[plan.rows.length - 1];
	return {
		rows: plan.rows,
		session: sessionAfter(session, plan, last ? last.entry.timestamp : session.updatedAt),
	};
}

/** The session record once a plan's rows are appended: its pointer, counts and name, and `updatedAt`. */
export function sessionAfter(session: SessionRecord, plan: AppendPlan, updatedAt: string): SessionRecord {
	let name = session.name;
	for (const row of plan.rows) name = nameAfter(row.entry, name);
	return {
		...session,
		leafId: plan.leafId,
		leafDepth: plan.leafDepth,
		lastSeq: session.lastSeq + plan.rows.length,
		entryCount: session.entryCount + plan.rows.length,
		name,
		updatedAt,
	};
}

/**
 * The author a write records, null when absent. It lands in a text column,
 * which cannot hold U+0000 or half a surrogate pair, and a token's subject
 * may be any JSON string: refused here with a code rather than by the database.
 */
export function authorOf(options: AuthorOptions, limits: InputLimits): string | null {
	const { author } = options;
	if (author === undefined || author === null) return null;
	if (typeof author !== "string") throw invalidInput("author", "must be a string or null");
	checkText(author, "author", limits);
	return author;
}

/** A tree write whose input is checked: the session it goes to, its drafts, and its options with the author checked. */
export interface TreeWrite {
	sessionId: string;
	drafts: DraftEntry[];
	options: AppendOptions;
}

function treeWrite(
	sessionId: string,
	drafts: DraftEntry[],
	options: AppendOptions,
	limits: InputLimits,
): TreeWrite {
	const author = authorOf(options, limits);
	// No session can have an id Postgres cannot hold: it is not found, on every backend alike.
	if (typeof sessionId !== "string" || !isStorableText(sessionId)) throw notFoundSession(String(sessionId));
	return { sessionId, drafts, options: { ...options, author } };
}

/** appendEntry's write: one entry; leaf records are only written by moveLeaf. */
export function appendWrite(
	sessionId: string,
	draft: unknown,
	options: AppendOptions,
	limits: InputLimits,
): TreeWrite {
	const entry = validateDraft(draft, "entry", limits);
	if (entry.type === "leaf")
		throw invalidInput("entry.type", "leaf records are written by moveLeaf, not appended");
	return treeWrite(sessionId, [entry], options, limits);
}

/** moveLeaf's write: a leaf record, then optionally the abandoned branch's summary under the target. */
export function moveWrite(sessionId: string, input: MoveLeafInput, limits: InputLimits): TreeWrite {
	const { targetId, summary } = input;
	if (targetId !== null && (typeof targetId !== "string" || targetId.length === 0)) {
		throw invalidInput("targetId", "must be a non-empty string or null");
	}
	if (targetId !== null) checkJsonValue(targetId, "targetId", limits);
	const drafts = [{ type: "leaf", targetId } as DraftEntry];
	if (summary) {
		// fromId names the target, as the seed's harness writes it (design/tree-rules.md#moving-the-leaf).
		const branchSummary = {
			type: "branch_summary",
			fromId: targetId ?? "root",
			summary: summary.summary,
			...(summary.details === undefined ? {} : { details: summary.details }),
			...(summary.usage === undefined ? {} : { usage: summary.usage }),
			...(summary.fromHook === undefined ? {} : { fromHook: summary.fromHook }),
		};
		drafts.push(validateDraft(branchSummary, "summary", limits));
	}
	return treeWrite(sessionId, drafts, input, limits);
}

/** setLabel's write: a label record on the target (no label clears it). */
export function labelWrite(
	sessionId: string,
	targetId: string,
	label: string | null | undefined,
	options: AuthorOptions,
	limits: InputLimits,
): TreeWrite {
	const draft = validateDraft({ type: "label", targetId, ...(label ? { label } : {}) }, "", limits);
	return treeWrite(sessionId, [draft], { author: authorOf(options, limits) }, limits);
}

/** renameSession's write. pi stores the name on one line (each run of line breaks one space), trimmed; an empty name clears it. */
export function renameWrite(
	sessionId: string,
	name: string,
	options: AuthorOptions,
	limits: InputLimits,
): TreeWrite {
	if (typeof name !== "string") throw invalidInput("name", "must be a string");
	const draft = validateDraft(
		{ type: "session_info", name: name.replace(/[\r\n]+/g, " ").trim() },
		"",
		limits,
	);
	return treeWrite(sessionId, [draft], { author: authorOf(options, limits) }, limits);
}

/** appendEntry's, setLabel's and renameSession's answer. */
export function appendResult(outcome: WriteOutcome): AppendResult {
	const entry = outcome.replayed ?? outcome.rows[0];
	if (!entry) throw new Error("a write produced no entry");
	return { entry, session: outcome.session, created: outcome.replayed === undefined };
}

/** moveLeaf's answer. */
export function moveResult(outcome: WriteOutcome): MoveLeafResult {
	const [leafEntry, summaryEntry] = outcome.rows;
	if (!leafEntry) throw new Error("a move produced no leaf record");
	return { leafEntry, summaryEntry: summaryEntry ?? null, session: outcome.session };
}

/** The notice a write announces; none when nothing was written (a re-sent entry). */
export function writeNotice(outcome: WriteOutcome): CommitNotice | null {
	const first = outcome.rows[0];
	const last = outcome.rows[outcome.rows.length - 1];
	if (!first || !last) return null;
	return {
		workspaceId: outcome.session.workspaceId,
		sessionId: outcome.session.sessionId,
		fromSeq: first.seq,
		toSeq: last.seq,
		created: false,
	};
}

/** The notice of a deleted session: its live subscribers end (events/live.ts). */
export function deletedNotice(session: SessionRecord): CommitNotice {
	return {
		workspaceId: session.workspaceId,
		sessionId: session.sessionId,
		fromSeq: session.lastSeq,
		toSeq: session.lastSeq,
		created: false,
		deleted: true,
	};
}

/** The notice of a new session (created, imported or forked) with its entries. */
export function createdNotice(session: SessionRecord): CommitNotice {
	return {
		workspaceId: session.workspaceId,
		sessionId: session.sessionId,
		fromSeq: 0,
		toSeq: session.lastSeq,
		created: true,
	};
}

/**
 * The checks a tree write makes before it touches a backend: a caller that
 * cannot hand the input to its backend as it is (the PGlite worker, for
 * input too deep to copy) reports the same error the backend would have.
 */
export function checkWriteInput(method: string, args: readonly unknown[], limits: InputLimits): void {
	const sessionId = args[1] as string;
	switch (method) {
		case "appendEntry":
			appendWrite(sessionId, args[2], (args[3] ?? {}) as AppendOptions, limits);
			return;
		case "moveLeaf":
			moveWrite(sessionId, args[2] as MoveLeafInput, limits);
			return;
		case "setLabel":
			labelWrite(
				sessionId,
				args[2] as string,
				args[3] as string | null | undefined,
				(args[4] ?? {}) as AuthorOptions,
				limits,
			);
			return;
		case "renameSession":
			renameWrite(sessionId, args[2] as string, (args[3] ?? {}) as AuthorOptions, limits);
			return;
	}
}
