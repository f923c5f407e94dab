/**
 * Where a follower sends a file's lines: the service's `continueSession`
 * (store/continuation.ts), over the GraphQL API (./remote.ts) or straight
 * into a store (src/cli/follow.ts). A sink answers like the store, and
 * fails with a FollowError that says what the follower should do next.
 */

export interface ContinueRequest {
	/** The whole file from its header, or the lines after `afterEntryId`. */
	jsonl: string;
	sessionId?: string;
	/** With lines: the entry they follow (null: the file's first lines). */
	afterEntryId?: string | null;
}

export interface ContinueAnswer {
	sessionId: string;
	created: boolean;
	appended: number;
	held: number;
	lastSeq: number;
}

export interface Sink {
	continueSession(request: ContinueRequest): Promise<ContinueAnswer>;
	close(): Promise<void>;
}

/**
 * - `conflict`: the file no longer matches the stored session (reported, not retried);
 * - `resync`: the service lacks the session or the entry the lines follow (send the whole file);
 * - `invalid`: the file's content is refused (reported; retried when the file changes);
 * - `unavailable`: the service or the network is down (retried with backoff);
 * - `denied`: the token is missing, wrong or lacks the write scope (stops the follower).
 */
export type FollowErrorKind = "conflict" | "resync" | "invalid" | "unavailable" | "denied";

export class FollowError extends Error {
	constructor(
		readonly kind: FollowErrorKind,
		message: string,
		/** The line of the sent text the service named (`line N:`), when it named one. */
		readonly line?: number,
	) {
		super(message);
		this.name = "FollowError";
	}
}

/** The kind of failure an error code of the service's (session/errors.ts) means to a follower. */
export function kindOfCode(code: string | undefined, field: string | undefined): FollowErrorKind {
	switch (code) {
		case "ALREADY_EXISTS":
			return "conflict";
		case "NOT_FOUND":
			return field === "afterEntryId" || field === "sessionId" ? "resync" : "invalid";
		case "UNAUTHENTICATED":
		case "FORBIDDEN":
			return "denied";
		case "UNAVAILABLE":
			return "unavailable";
		default:
			return "invalid";
	}
}

/** The line an error message names (`line 7: …`), if any. */
export function lineOf(message: string): number | undefined {
	const match = /^line (\d+)/.exec(message);
	return match ? Number(match[1]) : undefined;
}
