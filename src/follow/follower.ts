/**
 * The follower: pi's session files, as pi writes them, into the service
 * (docs/following.md). It watches the given files and
 * directories (recursively, `*.jsonl`) with the operating system's file
 * notifications (chokidar; polling where those fail, or when asked), and for
 * every file that changes sends its new complete lines to a sink
 * (./sink.ts, by ./send.ts): the whole file the first time (the service imports it, or
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
import { resolve } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import type { FollowEvent, FollowStats } from "./events.js";
import type { Positions } from "./positions.js";
import { FileSender } from "./send.js";
import { FollowError, type Sink } from "./sink.js";

export interface FollowerOptions {
	paths: readonly string[];
	sink: Sink;
	positions: Positions;
	onEvent?: (event: FollowEvent) => void;
	/** Stat-based polling instead of notifications (network filesystems). */
	polling?: boolean;
	/** Lines and bytes per request at most (./send.ts). */
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

const POLLING_MS = 1000;
/**
 * Files synced at once. More is slower to viewers, not faster: each sync is
 * a write, and concurrent writes hold the workspace's activity feed back
 * until the older ones end (store/postgres/queries.ts activityRows), so
 * bench:follow's p99 from pi's write to a subscriber grows past 4.
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

	private readonly sender: FileSender;
	/** The paths the caller named, resolved: a file named is followed whatever its extension. */
	private readonly named: ReadonlySet<string>;

	constructor(private readonly options: FollowerOptions) {
		this.backend = options.polling ? "polling" : "native";
		this.sender = new FileSender({ ...options, emit: (event) => this.emit(event) });
		this.named = new Set(options.paths.map((path) => resolve(path)));
	}

	/** Watches the paths; resolves when the initial scan is done (every file found is queued). */
	async start(): Promise<void> {
		const scanned = new Promise<void>((resolve) => {
			this.scanned = resolve;
		});
		this.watchWith(this.backend);
		await scanned;
		this.emit({ kind: "ready", files: this.files.size });
	}

	/** Ends start(): the watcher in use has scanned (the polling one when notifications failed first), or the follower stopped. */
	private scanned: () => void = () => {};

	private watchWith(backend: "native" | "polling"): void {
		this.backend = backend;
		const watcher = watch(
			this.options.paths.map((path) => resolve(path)),
			{
				// Session files only; directories are walked (pi keeps one per working directory).
				ignored: (path, stats) =>
					stats?.isFile() === true && !path.endsWith(".jsonl") && !this.named.has(path),
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
		watcher.once("ready", () => {
			if (this.watcher === watcher) this.scanned();
		});
	}

	/** Notifications that cannot be had (too many watches, an odd filesystem): poll instead. */
	private async watchFailed(error: NodeJS.ErrnoException): Promise<void> {
		if (this.stopped || this.backend === "polling") return;
		if (error.code !== "ENOSPC" && error.code !== "EMFILE" && error.code !== "ENOSYS") return;
		const previous = this.watcher;
		this.watcher = null;
		await previous?.close();
		if (!this.stopped) this.watchWith("polling");
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
			this.scanned();
			for (const file of this.files.values()) {
				if (file.retry) clearTimeout(file.retry);
				file.retry = null;
				file.again = false;
			}
			await this.watcher?.close();
			await Promise.all([...this.files.values()].map((file) => file.running));
			await this.options.positions.flush();
			this.markStopped();
		})();
		return this.stopping;
	}

	private emit(event: FollowEvent): void {
		if (event.kind === "sent") this.linesSent += event.answer.appended;
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
		this.emit({ kind: "removed", path });
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
			// Removed while it synced: the position its sync kept goes too.
			if (this.files.get(file.path) !== file) this.options.positions.delete(file.path);
			if (file.again && !this.stopped) {
				file.again = false;
				this.schedule(file);
			} else this.settled();
		});
	}

	private async run(file: Tracked): Promise<void> {
		await this.slot();
		// Stopped while it waited for a slot: left for the next start (its position is where it was).
		if (this.stopped) return this.release();
		try {
			await this.sender.sync(file.path);
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
				if (this.stopped) return;
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
}
