/**
 * The forms a session's file is written in (design/tree-rules.md#import-and-export),
 * and whether a file is one of them (a re-import). Reading a file is ./jsonl.ts.
 */
import { canonicalJson } from "./append.js";
import { type Entry, isNode } from "./entry.js";
import { anchorEntryId } from "./ids.js";
import { CURRENT_VERSION, type ParsedSessionFile, type SessionHeader } from "./jsonl.js";
import { replayLeaf } from "./tree.js";

/**
 * Whether a stored session is the one this file would store (design/tree-rules.md#re-importing-a-file):
 * the header line it exports and every entry of its log, in seq order, equal
 * the parsed file's, compared as canonical JSON (key order and absent fields
 * do not matter). Authors are not compared: a re-import by anyone is the same
 * import, as a re-sent entry is. Comparing after parsing makes a version 1 or
 * 2 file equal to the version 3 export of its own import.
 */
export function sameSessionFile(
	file: ParsedSessionFile,
	stored: SessionHeader,
	log: readonly Entry[],
): boolean {
	if (canonicalJson(headerLine(stored)) !== canonicalJson(headerLine(file.header))) return false;
	// Either form the session exports: its log as it is, or the pi form of it.
	const same = (lines: readonly Entry[]) =>
		lines.length === file.rows.length &&
		file.rows.every((row, i) => canonicalJson(row.entry) === canonicalJson(lines[i]));
	return same(log) || same(piFileEntries(stored.id, log));
}

/** The header line pi writes, version 3, unknown fields kept. */
export function headerLine(header: SessionHeader): Record<string, unknown> {
	return {
		type: "session",
		version: CURRENT_VERSION,
		id: header.id,
		timestamp: header.timestamp,
		...(header.cwd === null ? {} : { cwd: header.cwd }),
		...header.extra,
		...(header.parentSession === null ? {} : { parentSession: header.parentSession }),
	};
}

/**
 * The two forms a session exports in (design/tree-rules.md#import-and-export):
 * - `pi`, the default: what pi's coding agent reads, which has no leaf records
 *   and takes a file's last entry as its leaf. The leaf records are left out,
 *   and when the pointer is not the last node, a leaf anchor follows (below);
 * - `lossless`: the append log as it is, leaf records included, which pi's
 *   harness replays (and the service re-imports to the same log).
 */
export const EXPORT_FORMATS = ["pi", "lossless"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The `customType` of a leaf anchor: a `custom` entry under the pointer,
 * written as a pi file's last line so that pi's leaf (its last entry) is one
 * with the pointer's path and context (a custom entry adds nothing to the
 * context). pi's next entry then names it as its parent: a continuation the
 * service takes as it is, the anchor first (an ordinary custom entry under
 * the leaf, so the tree stays the file's).
 */
export const LEAF_ANCHOR_TYPE = "session-tree.leaf";

/**
 * A session's entries as the pi form has them: its nodes in log order, and a
 * leaf anchor when the pointer is not the last of them (after a move without
 * a summary, or to the root). The anchor is made from the log alone (its id
 * from the session and the last move, its time the move's), so every export
 * of the same log is the same file.
 */
function piFileEntries(sessionId: string, log: readonly Entry[]): Entry[] {
	const nodes = log.filter(isNode);
	const leaf = replayLeaf(log);
	if ((nodes[nodes.length - 1]?.id ?? null) === leaf) return nodes;
	return [...nodes, leafAnchor(sessionId, log.findLast((entry) => !isNode(entry)) as Entry, leaf)];
}

/**
 * The anchor of a log whose pointer `leaf` is not its last node, `move`
 * being its last leaf record: made from the move alone, so the same from the
 * whole log (an export) as from its tail (a continuation).
 */
export function leafAnchor(sessionId: string, move: Entry, leaf: string | null): Entry {
	return {
		type: "custom",
		id: anchorEntryId(`${sessionId}\u0001${move.id}`),
		parentId: leaf,
		timestamp: move.timestamp,
		customType: LEAF_ANCHOR_TYPE,
	} as Entry;
}

/** Version-3 JSONL: header line, then one line per entry in seq order, newline-terminated. */
export function formatSessionFile(header: SessionHeader, entries: Iterable<Entry>): string {
	const lines = [JSON.stringify(headerLine(header))];
	for (const entry of entries) lines.push(JSON.stringify(entry));
	return `${lines.join("\n")}\n`;
}

/** A session's file in the given form (see EXPORT_FORMATS), from its header and its log in seq order. */
export function exportSessionFile(
	header: SessionHeader,
	log: readonly Entry[],
	format: ExportFormat = "pi",
): string {
	return formatSessionFile(header, format === "pi" ? piFileEntries(header.id, log) : log);
}
