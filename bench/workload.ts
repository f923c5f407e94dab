/**
 * What the benchmark writes and reads: the entry an append sends, and the pi
 * session file that is imported and read back (~1000 entries on one path).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DraftEntry } from "../src/session/entry.js";

/** Everything runs in one workspace: scoping is a key prefix, not a cost that varies. */
export const WORKSPACE = "bench";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Beside the checkout (README of the fixtures); PI_FIXTURES_DIR points elsewhere. */
const DEFAULT_FIXTURES_DIR = resolve(REPO, "../shared/fixtures/pi");

const FIXTURE_NAME = "large-session.v1.jsonl";

/** Lines of the generated file when the real one is absent: header + 999 entries. */
const SYNTHETIC_LINES = 1000;

export interface SessionFile {
	text: string;
	/** The file's path, or "synthetic" when it was generated. */
	source: string;
	/** Non-empty lines, header included. */
	lines: number;
	bytes: number;
}

/**
 * About the size of an average line of the real file (~950 bytes), so that
 * appends and synthetic reads move as much data per entry as pi sessions do.
 */
const TEXT = "Read packages/coding-agent/src/session.ts and explain how the leaf pointer moves. ".repeat(10);

/** A user message, the most common entry an agent appends. */
export function messageDraft(index: number): DraftEntry {
	return {
		type: "message",
		message: { role: "user", content: [{ type: "text", text: `${index}: ${TEXT}` }], timestamp: Date.now() },
	};
}

/**
 * A version-3 file shaped like a coding-agent session: a model change, then
 * user/assistant turns in one chain, with a thinking-level change now and
 * then (pi's own files have those too).
 */
export function syntheticSessionFile(lines = SYNTHETIC_LINES): string {
	const start = Date.parse("2025-01-01T00:00:00.000Z");
	const at = (i: number) => new Date(start + i * 1000).toISOString();
	const out = [
		JSON.stringify({
			type: "session",
			version: 3,
			id: "synthetic",
			timestamp: at(0),
			cwd: "/work/synthetic",
		}),
	];
	let parentId: string | null = null;
	for (let i = 1; i < lines; i++) {
		const id = `e${i.toString(16).padStart(7, "0")}`;
		const placement = { id, parentId, timestamp: at(i) };
		if (i === 1) {
			out.push(
				JSON.stringify({
					type: "model_change",
					...placement,
					provider: "anthropic",
					modelId: "claude-sonnet-4-5",
				}),
			);
		} else if (i % 100 === 0) {
			out.push(JSON.stringify({ type: "thinking_level_change", ...placement, thinkingLevel: "low" }));
		} else {
			const role = i % 2 === 0 ? "user" : "assistant";
			const message =
				role === "user"
					? { role, content: [{ type: "text", text: `${i}: ${TEXT}` }], timestamp: start + i * 1000 }
					: {
							role,
							content: [{ type: "text", text: `${i}: ${TEXT}` }],
							provider: "anthropic",
							model: "claude-sonnet-4-5",
							stopReason: "stop",
							timestamp: start + i * 1000,
						};
			out.push(JSON.stringify({ type: "message", ...placement, message }));
		}
		parentId = id;
	}
	return `${out.join("\n")}\n`;
}

/** The real pi file when present (PI_FIXTURES_DIR overrides where), else a generated one. */
export function loadSessionFile(env: NodeJS.ProcessEnv = process.env): SessionFile {
	const dir = env.PI_FIXTURES_DIR?.trim() || DEFAULT_FIXTURES_DIR;
	const path = join(dir, FIXTURE_NAME);
	const [text, source] = existsSync(path)
		? [readFileSync(path, "utf8"), path]
		: [syntheticSessionFile(), "synthetic"];
	return {
		text,
		source,
		lines: text.split("\n").filter((line) => line.trim() !== "").length,
		bytes: Buffer.byteLength(text),
	};
}
