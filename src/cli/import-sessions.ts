/**
 * The core of `npm run import`: find pi session files (`*.jsonl`) under the
 * given paths and import them one at a time into a store. Every file ends as
 * imported; skipped (the workspace holds its session unchanged, so re-running
 * is safe); conflicting (the workspace holds a session under its id with other
 * content: entries appended since, or another file); or failed (with the
 * reason, e.g. `line 7: not valid JSON`).
 * Nothing here touches the process: output goes through a reporter.
 */
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isSessionError } from "../session/errors.js";
import type { SessionStore } from "../store/store.js";

export type FileOutcome =
	| { status: "imported"; path: string; sessionId: string; entries: number }
	| { status: "skipped"; path: string; sessionId: string }
	| { status: "conflicting"; path: string; sessionId: string; reason: string }
	| { status: "failed"; path: string; reason: string };

export interface ImportReporter {
	/** Before file `index` (1-based) of `total` is read. */
	start?(path: string, index: number, total: number): void;
	/** While a file is being stored: `stored` of its `entries` are written. */
	progress?(path: string, index: number, total: number, stored: number, entries: number): void;
	/** Once per file, in order. */
	result(outcome: FileOutcome, index: number, total: number): void;
	/** After the last file (or the interruption). */
	finish?(summary: ImportSummary): void;
}

export interface ImportSummary {
	imported: number;
	skipped: number;
	conflicting: number;
	failed: number;
	/** Files found (and unreadable directories, which count as failed). */
	total: number;
	/** True when the signal stopped the run before every file was attempted. */
	interrupted: boolean;
	seconds: number;
}

export interface ImportSessionsOptions {
	/** Checked between files: aborting stops after the current file. */
	signal?: AbortSignal;
	/** Milliseconds, for the elapsed time (tests pass a fake clock). */
	now?: () => number;
}

/** A file to import, or a place that could not be read while looking for files. */
export interface FoundFile {
	path: string;
	error?: string;
}

function reasonOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function byCodeUnits(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The files to import, in a stable order: an explicitly named file as it is
 * (whatever its extension), a directory walked recursively for `*.jsonl`
 * files with names sorted at each level. Paths are kept as given (joined for
 * files under a directory); a file reached twice is listed once.
 */
export async function findSessionFiles(paths: readonly string[]): Promise<FoundFile[]> {
	const found: FoundFile[] = [];
	const seenFiles = new Set<string>();
	const seenDirs = new Set<string>();

	const addFile = async (path: string) => {
		const key = await realpath(path).catch(() => path);
		if (seenFiles.has(key)) return;
		seenFiles.add(key);
		found.push({ path });
	};

	const walk = async (dir: string): Promise<void> => {
		let key: string;
		let names: string[];
		try {
			key = await realpath(dir);
			if (seenDirs.has(key)) return; // a symlink loop or a directory named twice
			seenDirs.add(key);
			names = (await readdir(dir)).sort(byCodeUnits);
		} catch (error) {
			found.push({ path: dir, error: `cannot read directory: ${reasonOf(error)}` });
			return;
		}
		for (const name of names) {
			const path = join(dir, name);
			let info: Awaited<ReturnType<typeof stat>>;
			try {
				info = await stat(path); // follows symlinks
			} catch (error) {
				// A dangling symlink or an entry removed meanwhile: only a session file is worth a line.
				if (name.endsWith(".jsonl")) found.push({ path, error: reasonOf(error) });
				continue;
			}
			if (info.isDirectory()) await walk(path);
			else if (info.isFile() && name.endsWith(".jsonl")) await addFile(path);
		}
	};

	for (const path of paths) {
		let info: Awaited<ReturnType<typeof stat>>;
		try {
			info = await stat(path);
		} catch (error) {
			found.push({ path, error: reasonOf(error) });
			continue;
		}
		if (info.isDirectory()) await walk(path);
		else await addFile(path);
	}
	return found;
}

/** The session id in a file's header line (the first non-blank line). */
function headerSessionId(text: string): string | null {
	for (const line of text.split("\n")) {
		if (line.trim() === "") continue;
		try {
			const header: unknown = JSON.parse(line);
			const id = (header as { id?: unknown } | null)?.id;
			return typeof id === "string" ? id : null;
		} catch {
			return null;
		}
	}
	return null;
}

async function importFile(
	store: SessionStore,
	ws: string,
	path: string,
	onProgress: (stored: number, entries: number) => void,
): Promise<FileOutcome> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		return { status: "failed", path, reason: reasonOf(error) };
	}
	try {
		const session = await store.importSession(ws, text, { onProgress });
		if (!session.created) return { status: "skipped", path, sessionId: session.sessionId };
		return { status: "imported", path, sessionId: session.sessionId, entries: session.entryCount };
	} catch (error) {
		if (isSessionError(error, "ALREADY_EXISTS")) {
			// The store parses the whole file before looking for the id, so the header is valid here.
			const sessionId = headerSessionId(text) ?? "?";
			return { status: "conflicting", path, sessionId, reason: error.message };
		}
		return { status: "failed", path, reason: reasonOf(error) };
	}
}

/** Import every session file under `paths` into workspace `ws`, one file at a time. */
export async function importSessions(
	store: SessionStore,
	ws: string,
	paths: readonly string[],
	reporter: ImportReporter,
	options: ImportSessionsOptions = {},
): Promise<ImportSummary> {
	const now = options.now ?? (() => performance.now());
	const started = now();
	const files = await findSessionFiles(paths);
	const total = files.length;
	const summary: ImportSummary = {
		imported: 0,
		skipped: 0,
		conflicting: 0,
		failed: 0,
		total,
		interrupted: false,
		seconds: 0,
	};

	for (let i = 0; i < files.length; i++) {
		if (options.signal?.aborted) {
			summary.interrupted = true;
			break;
		}
		const file = files[i] as FoundFile;
		const index = i + 1;
		let outcome: FileOutcome;
		if (file.error !== undefined) {
			outcome = { status: "failed", path: file.path, reason: file.error };
		} else {
			reporter.start?.(file.path, index, total);
			outcome = await importFile(store, ws, file.path, (stored, entries) =>
				reporter.progress?.(file.path, index, total, stored, entries),
			);
		}
		summary[outcome.status]++;
		reporter.result(outcome, index, total);
	}

	summary.seconds = (now() - started) / 1000;
	reporter.finish?.(summary);
	return summary;
}

export function formatOutcome(outcome: FileOutcome): string {
	switch (outcome.status) {
		case "imported":
			return `imported ${outcome.path} → session ${outcome.sessionId} (${outcome.entries} ${outcome.entries === 1 ? "entry" : "entries"})`;
		case "skipped":
			return `skipped ${outcome.path}: session ${outcome.sessionId} already imported, unchanged`;
		case "conflicting":
			return `conflicting ${outcome.path}: not imported: ${outcome.reason}`;
		case "failed":
			return `failed ${outcome.path}: ${outcome.reason}`;
	}
}

export function formatSummary(summary: ImportSummary): string {
	const conflicting = summary.conflicting > 0 ? `${summary.conflicting} conflicting, ` : "";
	const line = `${summary.imported} imported, ${summary.skipped} skipped, ${conflicting}${summary.failed} failed in ${summary.seconds.toFixed(1)} s`;
	if (!summary.interrupted) return line;
	const left = summary.total - summary.imported - summary.skipped - summary.conflicting - summary.failed;
	return `${line} (interrupted: ${left} ${left === 1 ? "file" : "files"} not attempted)`;
}

/** The part of a stream the reporter writes to (process.stdout / process.stderr fit). */
export interface TextSink {
	write(text: string): unknown;
	isTTY?: boolean | undefined;
	columns?: number | undefined;
}

const CLEAR_LINE = "\r\x1b[2K";

/** `…` + the end of `text` when it is longer than `width`. */
function fitLeft(text: string, width: number): string {
	if (text.length <= width) return text;
	return width <= 1 ? "…".slice(0, width) : `…${text.slice(text.length - width + 1)}`;
}

/**
 * Result lines and the summary to `out`; on a terminal `status` (stderr) a
 * single status line `[12/340] importing <file> 55%` rewritten in place and
 * cleared before anything else is printed. Without a TTY: no status line and
 * no escape codes at all.
 */
export function consoleReporter(out: TextSink, status: TextSink): ImportReporter {
	const live = status.isTTY === true;
	let shown: string | null = null;

	const show = (path: string, index: number, total: number, percent: number | null) => {
		if (!live) return;
		const prefix = `[${index}/${total}] importing `;
		const suffix = percent === null ? "" : ` ${percent}%`;
		// One column short of the width, so that the cursor never wraps to a new line.
		const width = (status.columns && status.columns > 0 ? status.columns : 80) - 1;
		const line = `${prefix}${fitLeft(path, Math.max(width - prefix.length - suffix.length, 8))}${suffix}`;
		if (line === shown) return;
		shown = line;
		status.write(`${CLEAR_LINE}${line}`);
	};
	const clear = () => {
		if (shown === null) return;
		shown = null;
		status.write(CLEAR_LINE);
	};

	return {
		start(path, index, total) {
			show(path, index, total, null);
		},
		progress(path, index, total, stored, entries) {
			show(path, index, total, entries > 0 ? Math.floor((stored / entries) * 100) : 100);
		},
		result(outcome) {
			clear();
			out.write(`${formatOutcome(outcome)}\n`);
		},
		finish(summary) {
			clear();
			out.write(`${formatSummary(summary)}\n`);
		},
	};
}
