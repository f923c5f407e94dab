/**
 * pi sessions written and read by pi itself (the coding agent 1.6.0, see
 * pi-oracle.ts), for the tests that hold the service to it: the messages
 * pi's API takes, a file pi writes, and what pi makes of a file it opens.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SessionContext, SessionManager } from "./pi-oracle.js";

/** pi-ai's Usage with the given parts; its total is their sum unless given. */
export function piUsage(input: number, output: number, cacheRead: number, cacheWrite: number, cost: number) {
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
	};
}

export type PiUsage = ReturnType<typeof piUsage>;

/** Messages as pi's `appendMessage` takes them (typed loosely: pi-ai's types are its own). */
export const piUser = (text: string, timestamp = 1): never =>
	({ role: "user", content: text, timestamp }) as never;

export const piAssistant = (text: string, usage: PiUsage, extra: Record<string, unknown> = {}): never =>
	({
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage,
		stopReason: "stop",
		timestamp: 2,
		...extra,
	}) as never;

export const piSystem = (content: string, extra: Record<string, unknown> = {}): never =>
	({ role: "system", content, timestamp: 3, ...extra }) as never;

/** A directory for pi's files, removed by `dispose`. */
export function piDirectory(): { dir: string; dispose(): void } {
	const dir = mkdtempSync(join(tmpdir(), "pi-today-"));
	return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A line of a type pi's coding agent does not write (a later pi's), appended
 * to pi's file under its last entry; pi reopened on the file takes it as its
 * leaf, as pi does with any last line.
 */
export function appendUnknownLine(pi: SessionManager, fields: Record<string, unknown>): SessionManager {
	const file = pi.getSessionFile() as string;
	const line = { parentId: pi.getLeafId(), timestamp: new Date().toISOString(), ...fields };
	appendFileSync(file, `${JSON.stringify(line)}\n`);
	return SessionManager.open(file);
}

/** What pi makes of a file: it opens a copy (pi rewrites files it migrates). */
export interface PiReading {
	leafId: string | null;
	context: SessionContext;
	entries: ReturnType<SessionManager["getEntries"]>;
	name: string | undefined;
	manager: SessionManager;
	file: string;
}

export function readWithPi(dir: string, text: string, name = `read-${Math.random()}.jsonl`): PiReading {
	const file = join(dir, name);
	writeFileSync(file, text);
	const manager = SessionManager.open(file, dir);
	return {
		leafId: manager.getLeafId(),
		context: manager.buildSessionContext(),
		entries: manager.getEntries(),
		name: manager.getSessionName(),
		manager,
		file,
	};
}

/** A file's lines as JSON values, the header first. */
export const jsonLines = (text: string): unknown[] =>
	text
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line));

export const fileText = (path: string): string => readFileSync(path, "utf8");

/** A value as JSON has it (undefined fields gone), to compare with what pi returns. */
export const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * A context as JSON without `activeToolNames`, the field pi's coding
 * agent's context lacks (the harness's and the service's have it): the form
 * two contexts are compared in.
 */
export const comparableContext = <T extends { activeToolNames?: unknown }>({
	activeToolNames: _,
	...rest
}: T) => asJson(rest);
