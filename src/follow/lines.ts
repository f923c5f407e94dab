/**
 * A pi file's complete lines from a byte offset: what a follower may send.
 * A line is complete when its newline is written; the bytes after the last
 * newline are a line pi is still writing (a torn write), left for later.
 */
import { open } from "node:fs/promises";

/** Bytes `start`..`end` of a file (fewer if it is shorter now). */
export async function readBytes(path: string, start: number, end: number): Promise<Buffer> {
	const handle = await open(path, "r");
	try {
		const buffer = Buffer.alloc(Math.max(0, end - start));
		let read = 0;
		while (read < buffer.length) {
			const { bytesRead } = await handle.read(buffer, read, buffer.length - read, start + read);
			if (bytesRead === 0) break;
			read += bytesRead;
		}
		return buffer.subarray(0, read);
	} finally {
		await handle.close();
	}
}

export interface CompleteLine {
	/** The line's bytes with its newline. */
	bytes: Buffer;
	/** Its text without the newline (nor a CR before it). */
	text: string;
}

/** The complete lines of `buffer` (each ending with "\n"); the bytes after the last newline are left out. */
export function completeLines(buffer: Buffer): CompleteLine[] {
	const lines: CompleteLine[] = [];
	let start = 0;
	for (let newline = buffer.indexOf(10, start); newline >= 0; newline = buffer.indexOf(10, start)) {
		const bytes = buffer.subarray(start, newline + 1);
		lines.push({ bytes, text: bytes.toString("utf8", 0, bytes.length - 1).replace(/\r$/, "") });
		start = newline + 1;
	}
	return lines;
}

/** A line's `id`, or null for a line without one (a header, a version 1 entry, or not JSON). */
export function idOf(line: CompleteLine): string | null {
	try {
		const value = JSON.parse(line.text) as { id?: unknown; type?: unknown };
		return value.type !== "session" && typeof value.id === "string" ? value.id : null;
	} catch {
		return null;
	}
}

/** The version a header line declares (pi's files before version 3 have no ids to continue from). */
export function headerVersion(line: CompleteLine): number | null {
	try {
		const value = JSON.parse(line.text) as { type?: unknown; version?: unknown };
		if (value.type !== "session") return null;
		return typeof value.version === "number" ? value.version : 1;
	} catch {
		return null;
	}
}
