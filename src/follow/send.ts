/**
 * One file's lines into a sink (./sink.ts): from the file's position
 * (./positions.ts), or the whole file when it has none or the position no
 * longer fits it (the file was rewritten or truncated). Only complete lines
 * are sent, in order, in batches of at most `batchLines` lines and
 * `batchBytes` bytes; the position moves only past lines the service
 * stored. The follower (./follower.ts) decides when a file is synced and
 * what to do when a sync fails.
 */
import { stat } from "node:fs/promises";
import type { FollowEvent } from "./events.js";
import { type CompleteLine, completeLines, headerVersion, idOf, readBytes } from "./lines.js";
import { type FilePosition, lineHash, type Positions } from "./positions.js";
import { type ContinueAnswer, FollowError, type Sink } from "./sink.js";

export interface SenderOptions {
	sink: Sink;
	positions: Positions;
	emit: (event: FollowEvent) => void;
	/** Lines and bytes per request at most. */
	batchLines?: number;
	batchBytes?: number;
}

const BATCH_LINES = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;

export class FileSender {
	constructor(private readonly options: SenderOptions) {}

	/** Sends what the service lacks of one file: from its position, or the whole file when it has none. */
	async sync(path: string): Promise<void> {
		const size = (await stat(path)).size;
		let position = this.options.positions.get(path);
		if (position) {
			const reason = await this.changedBefore(path, position, size);
			if (reason) {
				this.options.emit({ kind: "resync", path, reason });
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
		if (complete < buffer.length)
			this.options.emit({ kind: "partial", path, bytes: buffer.length - complete });
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
					this.options.emit({ kind: "resync", path, reason: error.message });
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
		this.options.emit({ kind: "sent", path, answer });
		return position;
	}
}

const textOf = (lines: readonly CompleteLine[]): string =>
	Buffer.concat(lines.map((line) => line.bytes)).toString("utf8");
