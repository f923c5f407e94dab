/**
 * The tree-write rules as one pure decision (`decideWrite`: a snapshot and
 * the drafts to the rows and the next session record, or a coded refusal),
 * so that the order of checks (session exists → re-sent entry → expected
 * leaf → targets) and the pointer/name bookkeeping are written once; and the
 * procedure that runs it on a backend's locked primitives (`writeDrafts`).
 */

import {
	type AppendPlan,
	type KnownEntry,
	type PlanClock,
	planAppend,
	referencedIds,
	sameContent,
} from "../session/append.js";
import { type DraftEntry, isNode, type StoredEntry } from "../session/entry.js";
import { invalidInput, SessionError } from "../session/errors.js";
import { newEntryId } from "../session/ids.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "../session/limits.js";
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

/** Backend primitives, all running in one transaction that holds the session's lock. */
export interface SessionWriter {
	/** Lock the session row and read it; null when the workspace has no such session. */
	lockSession(): Promise<SessionRecord | null>;
	/** Stored entries of this session with these ids. */
	findEntries(ids: readonly string[]): Promise<Map<string, StoredEntry>>;
	/** Insert the rows and move the session row to `next`. */
	commit(rows: readonly StoredEntry[], next: SessionRecord): Promise<void>;
}

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

/** What a tree write decides from: the session's record and the stored entries its drafts name. */
export interface WriteSnapshot {
	session: SessionRecord;
	/** Stored entries of the session with the ids the drafts reference (session/append.ts referencedIds). */
	found: ReadonlyMap<string, StoredEntry>;
}

/**
 * The tree-write rules as one pure decision, in their order: no session →
 * NOT_FOUND; a re-sent entry → the stored one (`replayed`, nothing to
 * insert) or ALREADY_EXISTS; `expectedLeafId` → LEAF_CONFLICT; then the plan
 * (targets, parents, seq, depth) and the session's next record. Each backend
 * reads the snapshot its own way, calls this, and commits `rows` and
 * `session` unless `replayed`.
 */
export function decideWrite(
	snapshot: WriteSnapshot | null,
	sessionId: string,
	drafts: readonly DraftEntry[],
	options: AppendOptions,
	clock: PlanClock = systemClock,
): WriteOutcome {
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

/** A tree write through a backend's primitives, all in the one transaction that holds the session's lock. */
export async function writeDrafts(
	writer: SessionWriter,
	sessionId: string,
	drafts: readonly DraftEntry[],
	options: AppendOptions,
	clock: PlanClock = systemClock,
): Promise<WriteOutcome> {
	// No session can have an id Postgres cannot hold: it is not found, on every backend alike.
	if (!isStorableText(sessionId)) throw notFoundSession(sessionId);
	const session = await writer.lockSession();
	if (!session) throw notFoundSession(sessionId);
	// A plain append refers to nothing but the leaf, whose depth the session row carries: no lookup.
	const references = referencedIds(drafts);
	const found =
		references.length === 0 ? new Map<string, StoredEntry>() : await writer.findEntries(references);
	const outcome = decideWrite({ session, found }, sessionId, drafts, options, clock);
	if (!outcome.replayed) await writer.commit(outcome.rows, outcome.session);
	return outcome;
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

/** An entry given to appendEntry; leaf records are only written by moveLeaf. */
function appendDraft(value: unknown, limits: InputLimits): DraftEntry {
	const draft = validateDraft(value, "entry", limits);
	if (draft.type === "leaf")
		throw invalidInput("entry.type", "leaf records are written by moveLeaf, not appended");
	return draft;
}

/** A move is a leaf record, then optionally the abandoned branch's summary under the target. */
function moveDrafts(input: MoveLeafInput, limits: InputLimits): DraftEntry[] {
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
	return drafts;
}

function labelDraft(targetId: string, label: string | null | undefined, limits: InputLimits): DraftEntry {
	return validateDraft({ type: "label", targetId, ...(label ? { label } : {}) }, "", limits);
}

/** pi stores the name on one line (each run of line breaks one space), trimmed; an empty name clears it. */
function renameDraft(name: string, limits: InputLimits): DraftEntry {
	if (typeof name !== "string") throw invalidInput("name", "must be a string");
	return validateDraft({ type: "session_info", name: name.replace(/[\r\n]+/g, " ").trim() }, "", limits);
}

function appendResult(outcome: WriteOutcome): AppendResult {
	const entry = outcome.replayed ?? outcome.rows[0];
	if (!entry) throw new Error("a write produced no entry");
	return { entry, session: outcome.session, created: outcome.replayed === undefined };
}

function moveResult(outcome: WriteOutcome): MoveLeafResult {
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
 * The checks a tree write makes before it touches a backend, in the order
 * TreeWrites makes them: a caller that cannot hand the input to its backend
 * as it is (the PGlite worker, for input too deep to copy) reports the same
 * error the backend would have.
 */
export function checkWriteInput(method: string, args: readonly unknown[], limits: InputLimits): void {
	switch (method) {
		case "appendEntry":
			appendDraft(args[2], limits);
			authorOf((args[3] ?? {}) as AuthorOptions, limits);
			return;
		case "moveLeaf":
			moveDrafts(args[2] as MoveLeafInput, limits);
			authorOf(args[2] as AuthorOptions, limits);
			return;
		case "setLabel":
			labelDraft(args[2] as string, args[3] as string | null | undefined, limits);
			authorOf((args[4] ?? {}) as AuthorOptions, limits);
			return;
		case "renameSession":
			renameDraft(args[2] as string, limits);
			authorOf((args[3] ?? {}) as AuthorOptions, limits);
			return;
	}
}

/**
 * The tree writes of the SessionStore interface, each a list of drafts run by
 * the backend's one transactional primitive, `write`. Inputs (drafts and
 * author) are checked here, before the transaction starts.
 */
export abstract class TreeWrites {
	/** The input limits this store holds writes to (the server's configured ones, or the defaults). */
	constructor(protected readonly limits: InputLimits = DEFAULT_INPUT_LIMITS) {}

	protected abstract write(
		ws: string,
		sessionId: string,
		drafts: DraftEntry[],
		options: AppendOptions,
	): Promise<WriteOutcome>;

	async appendEntry(
		ws: string,
		sessionId: string,
		draft: DraftEntry,
		options: AppendOptions = {},
	): Promise<AppendResult> {
		const drafts = [appendDraft(draft, this.limits)];
		return appendResult(
			await this.write(ws, sessionId, drafts, { ...options, author: authorOf(options, this.limits) }),
		);
	}

	async moveLeaf(ws: string, sessionId: string, input: MoveLeafInput): Promise<MoveLeafResult> {
		const drafts = moveDrafts(input, this.limits);
		return moveResult(
			await this.write(ws, sessionId, drafts, { ...input, author: authorOf(input, this.limits) }),
		);
	}

	async setLabel(
		ws: string,
		sessionId: string,
		targetId: string,
		label?: string | null,
		options: AuthorOptions = {},
	): Promise<AppendResult> {
		const drafts = [labelDraft(targetId, label, this.limits)];
		return appendResult(await this.write(ws, sessionId, drafts, { author: authorOf(options, this.limits) }));
	}

	async renameSession(
		ws: string,
		sessionId: string,
		name: string,
		options: AuthorOptions = {},
	): Promise<AppendResult> {
		const drafts = [renameDraft(name, this.limits)];
		return appendResult(await this.write(ws, sessionId, drafts, { author: authorOf(options, this.limits) }));
	}
}
