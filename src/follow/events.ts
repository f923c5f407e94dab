/** What a follower tells its caller (src/cli/follow.ts prints it). */
import type { ContinueAnswer } from "./sink.js";

/** What a follower reports: one event per thing that happened. */
export type FollowEvent =
	| { kind: "watching"; backend: "native" | "polling"; paths: readonly string[] }
	| { kind: "ready"; files: number }
	| { kind: "sent"; path: string; answer: ContinueAnswer }
	| { kind: "resync"; path: string; reason: string }
	/** The file ends in a line pi has not finished writing: it is sent when its newline is. */
	| { kind: "partial"; path: string; bytes: number }
	| { kind: "conflict"; path: string; line: number | undefined; message: string }
	| { kind: "failed"; path: string; message: string }
	| { kind: "retrying"; path: string; message: string; inMs: number }
	/** The file was deleted: no longer followed, its position forgotten. */
	| { kind: "removed"; path: string }
	| { kind: "denied"; message: string };

export interface FollowStats {
	/** Session files seen. */
	files: number;
	/** Files whose every complete line the service holds. */
	upToDate: number;
	/** Lines the service stored from this follower. */
	linesSent: number;
	conflicts: number;
	failed: number;
}
