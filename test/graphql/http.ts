/**
 * Helpers for the HTTP API tests: assertions on GraphQL responses, the
 * messages and files the cases write, and JSON normalisation as a client sees
 * it. Everything here talks to a real server through `TestServer.request`.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { ErrorCode } from "../../src/session/errors.js";
import type { GraphQLResponse, TestServer } from "../support/server.js";

export type ResponseError = NonNullable<GraphQLResponse["errors"]>[number];

/** The response has no errors; its data. */
export function dataOf<T>(response: GraphQLResponse<T>): T {
	expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
	expect(response.data).toBeTruthy();
	return response.data as T;
}

/** POST an operation that must succeed. */
export async function ok<T = Record<string, unknown>>(
	server: TestServer,
	query: string,
	variables?: Record<string, unknown>,
): Promise<T> {
	return dataOf(await server.request<T>(query, variables));
}

/** The response failed with exactly one error of this code (and field, when given). */
export function expectError(
	response: GraphQLResponse,
	code: ErrorCode,
	expected: { field?: string; message?: RegExp } = {},
): ResponseError {
	expect(response.errors, `expected one ${code} error, got ${JSON.stringify(response)}`).toHaveLength(1);
	const error = response.errors?.[0] as ResponseError;
	expect(error.extensions?.code, error.message).toBe(code);
	if (expected.field !== undefined) expect(error.extensions?.field, error.message).toBe(expected.field);
	if (expected.message !== undefined) expect(error.message).toMatch(expected.message);
	return error;
}

/** JSON equality, as a client sees it (undefined fields vanish). */
export const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const fixture = (name: string): string =>
	readFileSync(new URL(`../fixtures/pi-small/${name}`, import.meta.url), "utf8");

/** Unique per call: cases share one server and never see each other's sessions. */
let counter = 0;
export const uniqueId = (label: string): string =>
	`${label}-${process.pid.toString(36)}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export const userMessage = (text: string) => ({ role: "user", content: text, timestamp: 1_767_225_600_000 });

export const assistantMessage = (text: string, model = "claude-sonnet-4-5") => ({
	role: "assistant",
	content: [{ type: "text", text }],
	provider: "anthropic",
	model,
	stopReason: "stop",
	timestamp: 1_767_225_601_000,
});

const header = (sessionId: string) => ({
	type: "session",
	version: 3,
	id: sessionId,
	timestamp: "2026-01-01T00:00:00.000Z",
	cwd: "/work/generated",
});

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

/** A version 3 pi file of `count` messages in one chain (the leaf is the last one). */
export function chainJsonl(sessionId: string, count: number): string {
	const lines: unknown[] = [header(sessionId)];
	for (let i = 0; i < count; i++) {
		lines.push({
			type: "message",
			id: `m${i}`,
			parentId: i === 0 ? null : `m${i - 1}`,
			timestamp: at(i),
			message: i % 2 === 0 ? userMessage(`message ${i}`) : assistantMessage(`message ${i}`),
		});
	}
	return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

/**
 * A version 3 pi file with branches and labels: a trunk of messages, then
 * `tips - 1` side branches (one message each, hanging off trunk entries),
 * then more trunk with a label on every fifth entry (targeting trunk and
 * branch entries). The tree has exactly `tips` tips and at least `minEntries`
 * entries.
 */
export function branchyJsonl(sessionId: string, tips: number, minEntries: number): string {
	const lines: Array<Record<string, unknown>> = [header(sessionId)];
	let leaf: string | null = null;
	const add = (entry: Record<string, unknown>, parentId = leaf) => {
		lines.push({ ...entry, parentId, timestamp: at(lines.length) });
		return entry.id as string;
	};
	const message = (id: string, parentId = leaf) =>
		add({ type: "message", id, message: userMessage(id) }, parentId);
	const trunkStart = Math.max(20, Math.ceil(tips / 2) + 2);
	for (let i = 0; i < trunkStart; i++) leaf = message(`t${i}`);
	for (let b = 0; b < tips - 1; b++) message(`b${b}`, `t${b % (trunkStart - 1)}`);
	for (let i = trunkStart; lines.length - 1 < minEntries; i++) {
		if (i % 5 === 0) {
			const target = i % 10 === 0 && tips > 1 ? `b${(i / 10) % (tips - 1)}` : `t${i % trunkStart}`;
			leaf = add({ type: "label", id: `l${i}`, targetId: target, label: `label ${i}` });
		} else leaf = message(`t${i}`);
	}
	return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}
