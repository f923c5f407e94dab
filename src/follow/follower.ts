/**
 * The follower: pi's session files, as pi writes them, into the service
 * (README, "Following a running pi"). It watches the given files and
 * directories (recursively, `*.jsonl`) with the operating system's file
 * notifications (chokidar; polling where those fail, or when asked), and for
 * every file that changes sends its new complete lines to a sink
 * (./sink.ts): the whole file the first time (the service imports it, or
 * compares it with what it holds), then the lines after the last one sent.
 *
 * Invariants:
 * - only complete lines are sent (a line without its newline is a write pi
 *   has not finished: it waits for the rest);
 * - a file's lines are sent in order, one request at a time per file, and
 *   its position (./positions.ts) moves only past lines the service stored;
 * - the service compares what it holds and skips it, so a line sent twice
 *   (after a crash, a timeout, or by a second follower) is stored once;
 * - errors are per file: a conflict (the file no longer matches the stored
 *   session) or a refused file is reported and the others go on; an
 *   unavailable service is retried with backoff, never skipped.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import { type CompleteLine, completeLines, headerVersion, idOf, readBytes } from "./lines.js";
import { type FilePosition, lineHash, type Positions } from "./positions.js";
import { type ContinueAnswer, FollowError, type Sink } from "./sink.js";

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

export interface FollowerOptions {
	paths: readonly string[];
	sink: Sink;
	positions: Positions;
	onEvent?: (event: FollowEvent) => void;
	/** Stat-based polling instead of notifications (network filesystems). */
	polling?: boolean;
	/** Lines and bytes per request at most. */
	batchLines?: number;
	batchBytes?: number;
	/** Retries of an unavailable service wait between these (doubling). */
	retryMinMs?: number;
	retryMaxMs?: number;
	/** Give up on a file after retrying this long (--once); default: never. */
	giveUpAfterMs?: number;
	/** Files synced at once. */
	concurrency?: number;
}

const BATCH_LINES = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;
const POLLING_MS = 1000;
/**
 * Files synced at once. More is slower to viewers, not faster: each sync is
 * a write, and concurrent writes hold the workspace's activity feed back
 * until the older ones end (store/postgres/queries.ts activityRows). With 20
 * sessions at 5 lines/s each, pi's write to a subscriber's receipt took p99
 * 240 ms at 4 and 650-740 ms at 8 (bench/follow.ts).
 */
const CONCURRENCY = 4;

type FileState = "pending" | "current" | "conflict" | "failed";

interface Tracked {
	path: string;
	state: FileState;
	running: Promise<void> | null;
	again: boolean;
	retry: NodeJS.Timeout | null;
	delay: number;
	/** When retries began (for giveUpAfterMs). */
	failingSince: number | null;
}

export class Follower {
	private readonly files = new Map<string, Tracked>();
	private watcher: FSWatcher | null = null;
	private backend: "native" | "polling";
	private linesSent = 0;
	private stopped = false;
	private active = 0;
	private readonly slots: Array<() => void> = [];
	private idleWaiters: Array<() => void> = [];
	private deniedError: FollowError | null = null;
	private stopping: Promise<void> | null = null;
	private markStopped: () => void = () => {};
	/** Resolves once the follower stopped: asked to, or because the service refused its token. */
	readonly done: Promise<void> = new Promise((resolve) => {
		this.markStopped = resolve;
	});

	constructor(private readonly options: FollowerOptions) {
		this.backend = options.polling ? "polling" : "native";
	}

	/** Watches the paths; resolves when the initial scan is done (every file found is queued). */
	async start(): Promise<void> {
		await this.watchWith(this.backend);
		this.emit({ kind: "ready", files: this.files.size });
	}

	private watchWith(backend: "native" | "polling"): Promise<void> {
		this.backend = backend;
		const watcher = watch(
			this.options.paths.map((path) => resolve(path)),
			{
				// Session files only; directories are walked (pi keeps one per working directory).
				ignored: (path, stats) => stats?.isFile() === true && !path.endsWith(".jsonl") && !this.named(path),
				backend,
				pollingInterval: POLLING_MS,
				atomic: false,
			},
		);
		this.watcher = watcher;
		watcher.on("add", (path) => this.changed(path));
		watcher.on("change", (path) => this.changed(path));
		watcher.on("unlink", (path) => this.removed(path));
		watcher.on("error", (error) => void this.watchFailed(error as NodeJS.ErrnoException));
		this.emit({ kind: "watching", backend, paths: this.options.paths });
		return new Promise((ready) => watcher.once("ready", () => ready()));
	}

	/** A path the caller named as a file is followed whatever its extension. */
	private named(path: string): boolean {
		return this.options.paths.some((given) => resolve(given) === path);
	}

	/** Notifications that cannot be had (too many watches, an odd filesystem): poll instead. */
	private async watchFailed(error: NodeJS.ErrnoException): Promise<void> {
		if (this.stopped || this.backend === "polling") return;
		if (error.code !== "ENOSPC" && error.code !== "EMFILE" && error.code !== "ENOSYS") return;
		const previous = this.watcher;
		this.watcher = null;
		await previous?.close();
		await this.watchWith("polling");
	}

	/** Resolves when no file has work left: nothing syncing, queued or waiting to retry. */
	idle(): Promise<void> {
		if (this.isIdle()) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	/** The follower stopped because the service refused its token (null otherwise). */
	get denied(): FollowError | null {
		return this.deniedError;
	}

	stats(): FollowStats {
		const files = [...this.files.values()];
		const count = (state: FileState) => files.filter((file) => file.state === state).length;
		return {
			files: files.length,
			upToDate: count("current"),
			linesSent: this.linesSent,
			conflicts: count("conflict"),
			failed: count("failed"),
		};
	}

	/** Stops watching, lets the syncs under way finish, and writes the positions. */
	stop(): Promise<void> {
		this.stopping ??= (async () => {
			this.stopped = true;
			for (const file of this.files.values()) if (file.retry) clearTimeout(file.retry);
			await this.watcher?.close();
			await Promise.all([...this.files.values()].map((file) => file.running));
			await this.options.positions.flush();
			this.markStopped();
		})();
		return this.stopping;
	}

	private emit(event: FollowEvent): void {
		this.options.onEvent?.(event);
	}

	private track(path: string): Tracked {
		let file = this.files.get(path);
		if (!file) {
			file = {
				path,
				state: "pending",
				running: null,
				again: false,
				retry: null,
				delay: 0,
				failingSince: null,
			};
			this.files.set(path, file);
		}
		return file;
	}

	private changed(path: string): void {
		if (this.stopped) return;
		const file = this.track(path);
		// A conflicted file stays as it is until the follower starts again (it is reported once).
		if (file.state === "conflict") return;
		this.schedule(file);
	}

	private removed(path: string): void {
		const file = this.files.get(path);
		if (!file) return;
		if (file.retry) clearTimeout(file.retry);
		this.files.delete(path);
		this.options.positions.delete(path);
		this.settled();
	}

	private schedule(file: Tracked): void {
		if (file.running) {
			file.again = true;
			return;
		}
		if (file.retry) return;
		file.running = this.run(file).finally(() => {
			file.running = null;
			if (file.again && !this.stopped) {
				file.again = false;
				this.schedule(file);
			} else this.settled();
		});
	}

	private async run(file: Tracked): Promise<void> {
		await this.slot();
		try {
			await this.sync(file.path);
			file.state = "current";
			file.delay = 0;
			file.failingSince = null;
		} catch (error) {
			this.failed(file, error);
		} finally {
			this.release();
		}
	}

	private failed(file: Tracked, error: unknown): void {
		const kind = error instanceof FollowError ? error.kind : "failed";
		const message = error instanceof Error ? error.message : String(error);
		if ((error as NodeJS.ErrnoException).code === "ENOENT") {
			this.removed(file.path);
			return;
		}
		switch (kind) {
			case "conflict":
				file.state = "conflict";
				this.emit({ kind: "conflict", path: file.path, line: (error as FollowError).line, message });
				return;
			case "denied":
				this.deniedError = error as FollowError;
				file.state = "failed";
				this.emit({ kind: "denied", message });
				void this.stop();
				return;
			case "unavailable": {
				const now = Date.now();
				file.failingSince ??= now;
				const { giveUpAfterMs } = this.options;
				if (giveUpAfterMs !== undefined && now - file.failingSince >= giveUpAfterMs) {
					file.state = "failed";
					this.emit({ kind: "failed", path: file.path, message: `gave up: ${message}` });
					return;
				}
				const min = this.options.retryMinMs ?? 250;
				file.delay = Math.min(this.options.retryMaxMs ?? 10_000, file.delay === 0 ? min : file.delay * 2);
				file.state = "pending";
				this.emit({ kind: "retrying", path: file.path, message, inMs: file.delay });
				file.retry = setTimeout(() => {
					file.retry = null;
					if (!this.stopped) this.schedule(file);
					else this.settled();
				}, file.delay);
				return;
			}
			default:
				// Refused content: reported, and tried again when the file changes.
				file.state = "failed";
				this.emit({ kind: "failed", path: file.path, message });
		}
	}

	private slot(): Promise<void> {
		if (this.active < (this.options.concurrency ?? CONCURRENCY)) {
			this.active++;
			return Promise.resolve();
		}
		return new Promise((resolve) => this.slots.push(resolve));
	}

	private release(): void {
		const next = this.slots.shift();
		if (next) next();
		else this.active--;
	}

	private isIdle(): boolean {
		for (const file of this.files.values()) if (file.running || file.retry || file.again) return false;
		return true;
	}

	private settled(): void {
		if (this.idleWaiters.length === 0 || !this.isIdle()) return;
		const waiters = this.idleWaiters;
		this.idleWaiters = [];
		for (const resolve of waiters) resolve();
	}

	/** Sends what the service lacks of one file: from its position, or the whole file when it has none. */
	private async sync(path: string): Promise<void> {
		const size = (await stat(path)).size;
		let position = this.options.positions.get(path);
		if (position) {
			const reason = await this.changedBefore(path, position, size);
			if (reason) {
				this.emit({ kind: "resync", path, reason });
				position = undefined;
			}
		}
		if (!position) return this.sendWhole(path, size);
		if (size === position.offset) return;
		const buffer = await readBytes(path, position.offset, size);
		const lines = completeLines(buffer);
		this.partial(path, buffer, lines);
		await this.sendLines(path, position, lines, size);
	}

	/** Why a position no longer fits its file (it was rewritten or truncated), or null when it does. */
	private async changedBefore(path: string, position: FilePosition, size: number): Promise<string | null> {
		if (size < position.offset)
			return `it is shorter (${size} bytes) than what was sent (${position.offset})`;
		const last = await readBytes(path, position.offset - position.lastLineBytes, position.offset);
		return lineHash(last) === position.lastLineHash ? null : "its lines before the last one sent changed";
	}

	/**
	 * The whole file: its header and first lines in one request (the service
	 * imports them, or compares them with what it holds), the rest by lines.
	 * A file before version 3 has no ids to continue from: it is sent whole
	 * every time.
	 */
	private async sendWhole(path: string, size: number): Promise<void> {
		const buffer = await readBytes(path, 0, size);
		const lines = completeLines(buffer);
		this.partial(path, buffer, lines);
		const header = lines[0];
		if (!header) return; // pi has not finished its first line yet
		const version = headerVersion(header);
		if (version === null)
			throw new FollowError("invalid", "not a pi session file: its first line is not a session header", 1);
		const first = version < 3 ? lines : lines.slice(0, this.batchLength(lines, 1));
		const answer = await this.send({ jsonl: textOf(first) }, 0);
		this.advance(path, answer, null, first, version < 3);
		const position = this.options.positions.get(path) as FilePosition;
		if (first.length < lines.length) await this.sendLines(path, position, lines.slice(first.length), size);
	}

	/** Reports the bytes after the last complete line, if any: a line pi is still writing. */
	private partial(path: string, buffer: Buffer, lines: readonly CompleteLine[]): void {
		const complete = lines.reduce((n, line) => n + line.bytes.length, 0);
		if (complete < buffer.length) this.emit({ kind: "partial", path, bytes: buffer.length - complete });
	}

	private async sendLines(
		path: string,
		start: FilePosition,
		lines: CompleteLine[],
		size: number,
	): Promise<void> {
		let position = start;
		if (position.whole) return this.sendWhole(path, size);
		for (let sent = 0; sent < lines.length; ) {
			const batch = lines.slice(sent, sent + this.batchLength(lines.slice(sent), 0));
			let answer: ContinueAnswer;
			try {
				answer = await this.send(
					{ sessionId: position.sessionId, afterEntryId: position.lastEntryId, jsonl: textOf(batch) },
					position.lines,
				);
			} catch (error) {
				// The service lacks the session or the line the batch follows (a new database, a restore).
				if (error instanceof FollowError && error.kind === "resync") {
					this.emit({ kind: "resync", path, reason: error.message });
					this.options.positions.delete(path);
					return this.sendWhole(path, size);
				}
				throw error;
			}
			position = this.advance(path, answer, position, batch, false);
			sent += batch.length;
		}
	}

	/**
	 * How many of `lines` go in one request: up to the batch's lines and
	 * bytes past the `header` first ones (a whole file's header), and always
	 * at least one line past those.
	 */
	private batchLength(lines: readonly CompleteLine[], header: number): number {
		const maxLines = header + (this.options.batchLines ?? BATCH_LINES);
		const maxBytes = this.options.batchBytes ?? BATCH_BYTES;
		const least = Math.min(lines.length, header + 1);
		let bytes = 0;
		let count = 0;
		while (count < lines.length && count < maxLines) {
			bytes += (lines[count] as CompleteLine).bytes.length;
			if (count >= least && bytes > maxBytes) break;
			count++;
		}
		return count;
	}

	/** One request; a conflict or refusal names the file's line (the text starts after `before` lines). */
	private async send(
		request: Parameters<Sink["continueSession"]>[0],
		before: number,
	): Promise<ContinueAnswer> {
		try {
			return await this.options.sink.continueSession(request);
		} catch (error) {
			if (error instanceof FollowError && error.line !== undefined) {
				const line = before + error.line;
				throw new FollowError(error.kind, error.message.replace(/^line \d+/, `line ${line}`), line);
			}
			throw error;
		}
	}

	/** The position after `lines` were stored, kept; the answer reported. */
	private advance(
		path: string,
		answer: ContinueAnswer,
		from: FilePosition | null,
		lines: readonly CompleteLine[],
		whole: boolean,
	): FilePosition {
		const last = lines[lines.length - 1] as CompleteLine;
		const position: FilePosition = {
			sessionId: answer.sessionId,
			offset: (from?.offset ?? 0) + lines.reduce((n, line) => n + line.bytes.length, 0),
			lines: (from?.lines ?? 0) + lines.length,
			lastEntryId: idOf(last) ?? from?.lastEntryId ?? null,
			lastLineHash: lineHash(last.bytes),
			lastLineBytes: last.bytes.length,
			...(whole ? { whole: true } : {}),
		};
		this.options.positions.set(path, position);
		this.linesSent += answer.appended;
		this.emit({ kind: "sent", path, answer });
		return position;
	}
}

const textOf = (lines: readonly CompleteLine[]): string =>
	Buffer.concat(lines.map((line) => line.bytes)).toString("utf8");
