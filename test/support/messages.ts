/** Entries tests write: an assistant turn with usage, so that a session has rollups and turns. */
import type { DraftEntry } from "../../src/session/entry.js";

/** An assistant message of `model` whose usage is `tokens` input tokens costing `cost`. */
export const paidAnswer = (text: string, model: string, cost: number, tokens: number): DraftEntry => ({
	type: "message",
	message: {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "p",
		model,
		usage: {
			input: tokens,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: tokens,
			cost: { total: cost },
		},
		stopReason: "stop",
		timestamp: 1,
	},
});
