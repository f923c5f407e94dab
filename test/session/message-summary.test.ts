/**
 * Typed message summaries and previews (src/session/message-summary.ts):
 * every rule on pi's message shapes, usage derivation held against pi's own
 * `calculateContextTokens`, and hostile shapes (any JSON with or without a
 * role) that must never throw.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/session/entry.js";
import {
	messagePreview,
	normalizeUsage,
	summarizeMessage,
	type TokenUsage,
} from "../../src/session/message-summary.js";
import { calculateContextTokens } from "../support/pi-oracle.js";

const usage = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
	input: 10,
	output: 20,
	cacheRead: 300,
	cacheWrite: 40,
	totalTokens: 370,
	cost: { input: 0.01, output: 0.02, cacheRead: 0.003, cacheWrite: 0.004, total: 0.037 },
	...over,
});

const assistant = (content: unknown, over: Record<string, unknown> = {}): AgentMessage => ({
	role: "assistant",
	content,
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-sonnet-4-5",
	usage: usage(),
	stopReason: "toolUse",
	timestamp: 1,
	...over,
});

const text = (t: string) => ({ type: "text", text: t });
const call = (name: unknown, id = "c1") => ({ type: "toolCall", id, name, arguments: {} });
const zeros: TokenUsage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

describe("normalizeUsage", () => {
	it("keeps a well-formed usage as it is", () => {
		expect(normalizeUsage(usage())).toEqual(usage());
	});

	it("derives totalTokens as pi's calculateContextTokens does when it is missing or 0", () => {
		for (const totalTokens of [undefined, 0]) {
			const given = usage({ totalTokens });
			expect(normalizeUsage(given).totalTokens).toBe(370);
			expect(normalizeUsage(given).totalTokens).toBe(
				calculateContextTokens(given as unknown as Parameters<typeof calculateContextTokens>[0]),
			);
		}
		// A given positive total wins, even when it is not the sum of the parts (as in pi).
		expect(normalizeUsage(usage({ totalTokens: 1000 })).totalTokens).toBe(1000);
	});

	it("takes cost.total as given, never summing the parts", () => {
		expect(normalizeUsage(usage({ cost: { input: 1, output: 2, total: 0.5 } })).cost).toEqual({
			input: 1,
			output: 2,
			cacheRead: 0,
			cacheWrite: 0,
			total: 0.5,
		});
		expect(normalizeUsage(usage({ cost: { input: 1, output: 2 } })).cost.total).toBe(0);
	});

	it("reads every field that is missing, not a number, not finite or negative as 0", () => {
		for (const bad of [
			undefined,
			null,
			"12",
			"abc",
			Number.NaN,
			Infinity,
			-Infinity,
			-5,
			true,
			[3],
			{ n: 1 },
		]) {
			const u = normalizeUsage({
				input: bad,
				output: bad,
				cacheRead: bad,
				cacheWrite: bad,
				totalTokens: bad,
				cost: { input: bad, output: bad, cacheRead: bad, cacheWrite: bad, total: bad },
			});
			expect(u, String(bad)).toEqual(zeros);
		}
		// Bad totalTokens with good parts: derived from the parts.
		expect(normalizeUsage({ input: 1, output: 2, totalTokens: Number.NaN }).totalTokens).toBe(3);
		expect(normalizeUsage({ input: 1, output: 2, totalTokens: -9 }).totalTokens).toBe(3);
	});

	it("gives zeros for a usage that is not an object, and for a cost that is not one", () => {
		for (const bad of [undefined, null, 0, "usage", [], [1, 2], () => 1]) {
			expect(normalizeUsage(bad)).toEqual(zeros);
		}
		expect(normalizeUsage(usage({ cost: 0.5 })).cost).toEqual(zeros.cost);
		expect(normalizeUsage(usage({ cost: [0.5] })).cost).toEqual(zeros.cost);
	});

	it("keeps fractional token counts (not rounded)", () => {
		expect(normalizeUsage({ input: 1.5, output: 2 })).toMatchObject({ input: 1.5, totalTokens: 3.5 });
	});
});

describe("summarizeMessage", () => {
	it("summarises an assistant message: model fields, usage and tool calls in order, duplicates kept", () => {
		const message = assistant(
			[
				{ type: "thinking", thinking: "hmm" },
				text("Let me look."),
				call("read", "a"),
				call("bash", "b"),
				call("read", "c"),
			],
			{ errorMessage: "partial", responseModel: "claude-sonnet-4-5-20250929" },
		);
		expect(summarizeMessage(message)).toEqual({
			role: "assistant",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			responseModel: "claude-sonnet-4-5-20250929",
			api: "anthropic-messages",
			stopReason: "toolUse",
			errorMessage: "partial",
			usage: usage(),
			toolCallCount: 3,
			toolCallNames: ["read", "bash", "read"],
			toolName: null,
			toolCallId: null,
			isError: null,
			toolsAdded: [],
			toolsRemoved: [],
		});
	});

	it("gives an assistant message without usage a usage of zeros, not null", () => {
		const { usage: _usage, ...rest } = assistant([text("hi")]);
		expect(summarizeMessage(rest as AgentMessage).usage).toEqual(zeros);
	});

	it("names a tool call without a string name as '' so the names match the count", () => {
		const summary = summarizeMessage(assistant([call(undefined), call(42), call("ok"), null, "x", 7]));
		expect(summary.toolCallCount).toBe(3);
		expect(summary.toolCallNames).toEqual(["", "", "ok"]);
	});

	it("counts no tool calls when content is not an array", () => {
		for (const content of [undefined, null, "text", { type: "toolCall", name: "read" }, 3]) {
			expect(summarizeMessage(assistant(content))).toMatchObject({ toolCallCount: 0, toolCallNames: [] });
		}
	});

	it("reads the model fields as null when they are not strings", () => {
		expect(
			summarizeMessage(assistant([], { provider: 1, model: null, api: {}, stopReason: [], errorMessage: 5 })),
		).toMatchObject({ provider: null, model: null, api: null, stopReason: null, errorMessage: null });
	});

	it("summarises a tool result: tool name, call id and isError", () => {
		const result = {
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "bash",
			content: [text("ok")],
			isError: true,
			timestamp: 2,
		};
		expect(summarizeMessage(result)).toEqual({
			role: "toolResult",
			provider: null,
			model: null,
			responseModel: null,
			api: null,
			stopReason: null,
			errorMessage: null,
			usage: null,
			toolCallCount: 0,
			toolCallNames: [],
			toolName: "bash",
			toolCallId: "call_1",
			isError: true,
			toolsAdded: [],
			toolsRemoved: [],
		});
		// A tool that called a model carries its usage, which pi's totals count.
		expect(summarizeMessage({ ...result, usage: usage() }).usage).toEqual(usage());
		expect(summarizeMessage({ ...result, usage: "lots" }).usage).toBeNull();
		expect(summarizeMessage({ ...result, isError: false }).isError).toBe(false);
		// Only a literal true is an error.
		for (const isError of [undefined, "true", 1, null]) {
			expect(summarizeMessage({ ...result, isError }).isError).toBe(false);
		}
		expect(summarizeMessage({ role: "toolResult", toolName: 3, toolCallId: {} })).toMatchObject({
			toolName: null,
			toolCallId: null,
		});
	});

	it("reads no assistant or tool-result fields from other roles", () => {
		const user = {
			role: "user",
			content: [text("hi"), call("read")],
			provider: "p",
			model: "m",
			usage: usage(),
			toolName: "t",
			isError: true,
		};
		expect(summarizeMessage(user)).toEqual({
			role: "user",
			provider: null,
			model: null,
			responseModel: null,
			api: null,
			stopReason: null,
			errorMessage: null,
			usage: null,
			toolCallCount: 0,
			toolCallNames: [],
			toolName: null,
			toolCallId: null,
			isError: null,
			toolsAdded: [],
			toolsRemoved: [],
		});
		expect(summarizeMessage({ role: "bashExecution", command: "ls", output: "" }).role).toBe("bashExecution");
	});

	it("names a system message's tools added and removed (pi ≥ 1.0)", () => {
		const system = {
			role: "system",
			content: "be brief",
			sections: { rules: "<rules/>" },
			toolsAdded: [{ name: "read", description: "", parameters: {} }, { description: "no name" }],
			toolsRemoved: [{ name: "bash" }, "odd"],
			timestamp: 1,
		};
		expect(summarizeMessage(system)).toMatchObject({
			role: "system",
			usage: null,
			toolsAdded: ["read", ""],
			toolsRemoved: ["bash"],
		});
		expect(messagePreview(system)).toBe("be brief");
	});

	it("gives role '' for a message without a string role, and for values that are not objects", () => {
		for (const odd of [null, undefined, 42, "assistant", [], [{ role: "user" }], { role: 5 }, {}]) {
			expect(summarizeMessage(odd as unknown as AgentMessage)).toMatchObject({
				role: "",
				usage: null,
				toolCallCount: 0,
				isError: null,
			});
		}
	});

	it("never throws on any JSON value, and always returns the full shape", () => {
		const message = fc.oneof(
			fc.anything(),
			fc.record({
				role: fc.constantFrom("assistant", "toolResult", "user", "custom", "x"),
				content: fc.anything(),
				usage: fc.anything(),
				isError: fc.anything(),
				toolName: fc.anything(),
			}),
		);
		fc.assert(
			fc.property(message, (m) => {
				const s = summarizeMessage(m as AgentMessage);
				expect(typeof s.role).toBe("string");
				expect(s.toolCallNames).toHaveLength(s.toolCallCount);
				if (s.usage) {
					for (const n of [s.usage.input, s.usage.totalTokens, s.usage.cost.total]) {
						expect(Number.isFinite(n) && n >= 0).toBe(true);
					}
				}
				expect(typeof messagePreview(m as AgentMessage)).toBe("string");
			}),
		);
	});
});

describe("messagePreview", () => {
	it("shows a user message's text: a string, or its text parts joined by a space", () => {
		expect(messagePreview({ role: "user", content: "Fix the bug" })).toBe("Fix the bug");
		expect(
			messagePreview({
				role: "user",
				content: [text("Look at"), { type: "image", data: "…", mimeType: "image/png" }, text("this")],
			}),
		).toBe("Look at this");
	});

	it("shows [image] per image when a content has no text", () => {
		const image = { type: "image", data: "AAAA", mimeType: "image/png" };
		expect(messagePreview({ role: "user", content: [image, image] })).toBe("[image] [image]");
	});

	it("collapses whitespace runs to one space and trims", () => {
		expect(messagePreview({ role: "user", content: "  a\n\n\tb \u00a0 c  " })).toBe("a b c");
		expect(messagePreview({ role: "user", content: [text("a "), text(" b"), text("   "), text("c")] })).toBe(
			"a b c",
		);
	});

	it("shows an assistant's text, never its thinking", () => {
		const m = assistant([{ type: "thinking", thinking: "secret plan" }, text("Done."), call("read")]);
		expect(messagePreview(m)).toBe("Done.");
	});

	it("lists an assistant's tool calls when it has no text", () => {
		const m = assistant([{ type: "thinking", thinking: "plan" }, call("read"), call("bash"), call(7)]);
		expect(messagePreview(m)).toBe("→ read(…) → bash(…) → ?(…)");
	});

	it("shows an assistant's error message when it has neither text nor tool calls", () => {
		expect(messagePreview(assistant([], { stopReason: "error", errorMessage: "overloaded" }))).toBe(
			"overloaded",
		);
		expect(messagePreview(assistant([]))).toBe("");
		expect(messagePreview(assistant(5))).toBe("");
		// Other agents store an assistant's text as a plain string.
		expect(messagePreview(assistant("plain  string"))).toBe("plain string");
	});

	it("shows a tool result's text, a custom message's content and unknown roles' content", () => {
		expect(messagePreview({ role: "toolResult", toolName: "bash", content: [text("exit 0")] })).toBe(
			"exit 0",
		);
		expect(messagePreview({ role: "custom", customType: "note", content: "remember", display: true })).toBe(
			"remember",
		);
		expect(messagePreview({ role: "custom", customType: "note", content: [text("a"), text("b")] })).toBe(
			"a b",
		);
		expect(messagePreview({ role: "system", content: "be brief" })).toBe("be brief");
		expect(messagePreview({ role: "system", summary: "short" })).toBe("short");
	});

	it("shows a summary's text and a bash execution's command", () => {
		expect(messagePreview({ role: "branchSummary", summary: "Tried X", fromId: "a" })).toBe("Tried X");
		expect(messagePreview({ role: "compactionSummary", summary: "Goal:\n  ship", tokensBefore: 9 })).toBe(
			"Goal: ship",
		);
		expect(messagePreview({ role: "bashExecution", command: "npm test", output: "ok" })).toBe("$ npm test");
		expect(messagePreview({ role: "bashExecution", output: "ok" })).toBe("");
	});

	it("keeps a text of exactly maxLength code points, and cuts a longer one to maxLength with '…'", () => {
		const ten = "abcdefghij";
		expect(messagePreview({ role: "user", content: ten }, 10)).toBe(ten);
		expect(messagePreview({ role: "user", content: `${ten}k` }, 10)).toBe("abcdefghi…");
		expect([...messagePreview({ role: "user", content: "x".repeat(500) })]).toHaveLength(120);
		expect(messagePreview({ role: "user", content: "x".repeat(500) }).endsWith("…")).toBe(true);
		expect(messagePreview({ role: "user", content: "x".repeat(120) })).toBe("x".repeat(120));
	});

	it("counts code points and never splits a surrogate pair", () => {
		const faces = "😀".repeat(10);
		expect(messagePreview({ role: "user", content: faces }, 10)).toBe(faces);
		const cut = messagePreview({ role: "user", content: faces }, 5);
		expect(cut).toBe("😀😀😀😀…");
		expect(cut).toHaveLength(9); // 4 pairs and the "…": no lone half of a pair
	});

	it("drops a space that would stand before the '…'", () => {
		expect(messagePreview({ role: "user", content: "abc defgh" }, 5)).toBe("abc…");
	});

	it("gives '' for maxLength below 1 or NaN, '…' for 1, floors fractions, never cuts at Infinity", () => {
		const m = { role: "user", content: "hello world" };
		expect(messagePreview(m, 0)).toBe("");
		expect(messagePreview(m, -3)).toBe("");
		expect(messagePreview(m, Number.NaN)).toBe("");
		expect(messagePreview(m, 0.9)).toBe("");
		expect(messagePreview(m, 1)).toBe("…");
		expect(messagePreview(m, 3.9)).toBe("he…");
		expect(messagePreview(m, Infinity)).toBe("hello world");
	});

	it("cuts a multi-megabyte tool output like a short one", () => {
		const huge = `${"word ".repeat(2_000_000)}end`;
		expect(messagePreview({ role: "toolResult", content: [text(huge)] }, 12)).toBe("word word w…");
	});

	it("gives '' for odd shapes", () => {
		for (const odd of [null, undefined, 5, "user", [], { role: "user" }, { role: "user", content: 5 }]) {
			expect(messagePreview(odd as unknown as AgentMessage)).toBe("");
		}
		expect(messagePreview({ role: "user", content: [null, 3, { type: "text", text: 5 }, text("ok")] })).toBe(
			"ok",
		);
	});
});
