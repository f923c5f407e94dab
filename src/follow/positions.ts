/**
 * Where a follower is in each file, kept on disk so that a follower killed
 * (`kill -9` included) resumes there instead of sending whole files again.
 * A position is written after the lines before it were stored, at most
 * every FLUSH_MS (and on a clean stop); after a crash the follower resends
 * at most the lines stored since its last flush, and the service holds those
 * already (a continuation's repeat changes nothing). A position whose file
 * changed before it (rewritten, truncated) is dropped by the follower, which
 * then sends the whole file once.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export interface FilePosition {
	sessionId: string;
	/** Bytes of the file stored: it ends with the newline of the last line sent. */
	offset: number;
	/** Lines of the file up to `offset`, the header included. */
	lines: number;
	/** The id of the last entry line sent; null when only the header was. */
	lastEntryId: string | null;
	/** SHA-256 of the last line sent and its length in bytes (its newline included): is the file still that file? */
	lastLineHash: string;
	lastLineBytes: number;
	/** A file before version 3 (no ids to continue from): sent whole each time it changes. */
	whole?: boolean;
}

const FLUSH_MS = 250;

export const lineHash = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * The positions of one destination (a service and workspace, or a store), in
 * a JSON file that may hold other destinations' too (followers of other
 * services sharing a state file): a write replaces this destination's part
 * of the file as it is on disk then, and leaves the rest.
 */
export class Positions {
	private readonly byFile = new Map<string, FilePosition>();
	private timer: NodeJS.Timeout | undefined;
	private writing: Promise<void> = Promise.resolve();

	private constructor(
		private readonly path: string,
		private readonly destination: string,
		stored: Record<string, FilePosition>,
		private readonly onError: (error: Error) => void,
	) {
		for (const [file, position] of Object.entries(stored)) this.byFile.set(file, position);
	}

	/**
	 * The positions kept in `path` for `destination` (none when the file does
	 * not exist yet). A write that fails is reported to `onError` (by default
	 * a process warning) and costs only a longer resend after a crash; the
	 * next one writes them all.
	 */
	static async open(
		path: string,
		destination: string,
		onError: (error: Error) => void = (error) => process.emitWarning(error),
	): Promise<Positions> {
		const all = await readPositions(path);
		return new Positions(path, destination, all[destination] ?? {}, onError);
	}

	get(file: string): FilePosition | undefined {
		return this.byFile.get(file);
	}

	set(file: string, position: FilePosition): void {
		this.byFile.set(file, position);
		this.schedule();
	}

	delete(file: string): void {
		if (this.byFile.delete(file)) this.schedule();
	}

	private schedule(): void {
		this.timer ??= setTimeout(() => {
			this.timer = undefined;
			void this.flush();
		}, FLUSH_MS);
	}

	/**
	 * Writes the positions now (atomically: a new file renamed over the old
	 * one), after the writes before; resolves when written or reported.
	 */
	flush(): Promise<void> {
		if (this.timer) {
			clearTimeout(this.timer);
			this.timer = undefined;
		}
		const mine = Object.fromEntries(this.byFile);
		this.writing = this.writing.then(async () => {
			try {
				const all = await readPositions(this.path);
				await mkdir(dirname(this.path), { recursive: true });
				const temporary = `${this.path}.${process.pid}.tmp`;
				await writeFile(temporary, JSON.stringify({ ...all, [this.destination]: mine }));
				await rename(temporary, this.path);
			} catch (error) {
				this.onError(
					new Error(`cannot write the follower's positions ${this.path}: ${(error as Error).message}`),
				);
			}
		});
		return this.writing;
	}
}

async function readPositions(path: string): Promise<Record<string, Record<string, FilePosition>>> {
	try {
		return JSON.parse(await readFile(path, "utf8")) as Record<string, Record<string, FilePosition>>;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
		throw new Error(`cannot read the follower's positions ${path}: ${(error as Error).message}`);
	}
}
