/**
 * Typed summaries of pi messages: the usage, tool calls and tool results a
 * message carries, and a one-line text preview for lists.
 *
 * A stored message may be any JSON object with a role (old files, other
 * agents, hand-written imports), so nothing here trusts a field's type:
 * every function accepts any value, never throws and returns a defined
 * value. A field of the wrong type reads as absent.
 *
 * Invariant: every aggregate the service computes (src/session/analytics/measures.ts,
 * and any rollup or SQL that mirrors it) reads usage through
 * `normalizeUsage`, so the sum of the typed `usage` fields of a set of
 * messages equals the metric computed over the same set.
 */
import type { AgentMessage } from "./entry.js";

export interface CostBreakdown {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	total: number;
}

export interface TokenUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: CostBreakdown;
}

export interface MessageSummary {
	/** The message's role; "" when it has none that is a string. */
	role: string;
	/** pi's AssistantMessage fields, read from assistant messages only (null otherwise or when not a string). */
	provider: string | null;
	model: string | null;
	/** The model the provider says answered (pi-ai `responseModel`, when it differs from the one asked). */
	responseModel: string | null;
	api: string | null;
	stopReason: string | null;
	errorMessage: string | null;
	/**
	 * Assistant messages (zeros where the message has no usable usage), and
	 * tool results that carry one (a tool that called a model); null otherwise.
	 */
	usage: TokenUsage | null;
	/** Assistant: content items of type "toolCall"; other roles 0. */
	toolCallCount: number;
	/** The tool calls' names in order, duplicates kept; "" for a call without a string name, so the length is `toolCallCount`. */
	toolCallNames: string[];
	/** toolResult only (null for other roles, and for a missing or non-string field). */
	toolName: string | null;
	toolCallId: string | null;
	/** toolResult only: true only when the message says `isError: true`; null for other roles. */
	isError: boolean | null;
	/** system only (pi-ai SystemMessage): the names of the tools it adds and removes; [] otherwise. */
	toolsAdded: string[];
	toolsRemoved: string[];
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
	typeof value === "object" && value !== null && !Array.isArray(value);

const stringOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** A usage count or cost: a finite, non-negative number, else 0 (strings, NaN, ±Infinity, negatives, absent). */
const amount = (value: unknown): number =>
	typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;

/**
 * pi's `Usage` with every field a finite number ≥ 0. A field that is
 * missing, not a number, not finite or negative counts as 0; values are
 * otherwise kept as given (not rounded).
 *
 * `totalTokens` is derived as pi's `calculateContextTokens` does
 * (pi-coding-agent dist/core/compaction/compaction.js:
 * `usage.totalTokens || input + output + cacheRead + cacheWrite`), from the
 * normalised parts: a given positive total wins, a missing or 0 total is the
 * sum. Old pi files (version 1) carry no totalTokens at all.
 *
 * `cost.total` is taken as given, never derived from the parts: pi computes
 * it once, when the response arrives (pi-ai dist/models.js `calculateCost`),
 * and every reader of a stored message uses `usage.cost.total` as it is (the
 * footer in dist/modes/interactive/components/footer.js, `getSessionStats`
 * in dist/core/agent-session.js). A missing total is 0.
 */
export function normalizeUsage(usage: unknown): TokenUsage {
	const u = isObject(usage) ? usage : {};
	const c = isObject(u.cost) ? u.cost : {};
	const input = amount(u.input);
	const output = amount(u.output);
	const cacheRead = amount(u.cacheRead);
	const cacheWrite = amount(u.cacheWrite);
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: amount(u.totalTokens) || input + output + cacheRead + cacheWrite,
		cost: {
			input: amount(c.input),
			output: amount(c.output),
			cacheRead: amount(c.cacheRead),
			cacheWrite: amount(c.cacheWrite),
			total: amount(c.total),
		},
	};
}

/**
 * The tokens a usage counts in totals: input + output + cacheRead +
 * cacheWrite, as pi's session stats and cost breakdown add them
 * (pi-coding-agent dist/core/usage-totals.js, agent-session.js
 * `getSessionStats`), whatever `totalTokens` a provider reported (Bedrock's
 * leaves the cache out).
 */
export function usageTokens(usage: TokenUsage): number {
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/**
 * The usage of an entry that pi's totals count, null for one without: an
 * assistant message's, a tool result's that carries one, a compaction's or a
 * branch summary's (the model call that wrote it, pi ≥ 0.81), and a `usage`
 * entry's (pi ≥ 0.86). Read defensively: the entry may be any stored value.
 */
export function usageOfEntry(entry: unknown): TokenUsage | null {
	const e = isObject(entry) ? entry : {};
	switch (e.type) {
		case "message":
			return summarizeMessage(e.message as AgentMessage).usage;
		case "compaction":
		case "branch_summary":
			return isObject(e.usage) ? normalizeUsage(e.usage) : null;
		case "usage":
			return normalizeUsage(e.usage);
		default:
			return null;
	}
}

/** Content items that are objects; a content that is not an array has none. */
const itemsOf = (content: unknown): Fields[] => (Array.isArray(content) ? content.filter(isObject) : []);

const isToolCall = (item: Fields): boolean => item.type === "toolCall";

/** The names of a system message's tools (pi-ai Tool or ToolReference items); "" for an item without one. */
const toolNames = (tools: unknown): string[] =>
	itemsOf(tools).map((tool) => (typeof tool.name === "string" ? tool.name : ""));

export function summarizeMessage(message: AgentMessage): MessageSummary {
	const m: Fields = isObject(message) ? message : {};
	const role = typeof m.role === "string" ? m.role : "";
	const assistant = role === "assistant";
	const toolResult = role === "toolResult";
	const toolCalls = assistant ? itemsOf(m.content).filter(isToolCall) : [];
	return {
		role,
		provider: assistant ? stringOrNull(m.provider) : null,
		model: assistant ? stringOrNull(m.model) : null,
		responseModel: assistant ? stringOrNull(m.responseModel) : null,
		api: assistant ? stringOrNull(m.api) : null,
		stopReason: assistant ? stringOrNull(m.stopReason) : null,
		errorMessage: assistant ? stringOrNull(m.errorMessage) : null,
		usage: assistant || (toolResult && isObject(m.usage)) ? normalizeUsage(m.usage) : null,
		toolCallCount: toolCalls.length,
		toolCallNames: toolCalls.map((call) => (typeof call.name === "string" ? call.name : "")),
		toolName: toolResult ? stringOrNull(m.toolName) : null,
		toolCallId: toolResult ? stringOrNull(m.toolCallId) : null,
		isError: toolResult ? m.isError === true : null,
		toolsAdded: role === "system" ? toolNames(m.toolsAdded) : [],
		toolsRemoved: role === "system" ? toolNames(m.toolsRemoved) : [],
	};
}

export const DEFAULT_PREVIEW_LENGTH = 120;

/** Text parts of a content: a string is one part; an array gives its `{type:"text", text}` items. */
function textParts(content: unknown): string[] {
	if (typeof content === "string") return [content];
	return itemsOf(content)
		.filter((item) => item.type === "text" && typeof item.text === "string")
		.map((item) => item.text as string);
}

/** A content's text, or "[image]" per image item when it has no text part. */
function contentParts(content: unknown): string[] {
	const text = textParts(content);
	if (text.length > 0) return text;
	return itemsOf(content)
		.filter((item) => item.type === "image")
		.map(() => "[image]");
}

/** The raw parts a preview is made of, before joining, collapsing and cutting. */
function previewParts(m: Fields): string[] {
	switch (m.role) {
		case "assistant": {
			const text = textParts(m.content);
			if (text.length > 0) return text;
			const calls = itemsOf(m.content).filter(isToolCall);
			if (calls.length > 0)
				return calls.map((call) => `→ ${typeof call.name === "string" ? call.name : "?"}(…)`);
			return typeof m.errorMessage === "string" ? [m.errorMessage] : [];
		}
		case "bashExecution":
			return typeof m.command === "string" ? [`$ ${m.command}`] : [];
		case "branchSummary":
		case "compactionSummary":
			return typeof m.summary === "string" ? [m.summary] : [];
		default: {
			// user, toolResult, custom, and any role pi does not know: the content,
			// else a summary field.
			const parts = contentParts(m.content);
			if (parts.length > 0) return parts;
			return typeof m.summary === "string" ? [m.summary] : [];
		}
	}
}

const WHITESPACE = /^\s$/u;

/**
 * The parts joined by a space, whitespace runs collapsed to one space,
 * trimmed, then cut to `max` code points. Reads only as far as the cut, so a
 * megabyte tool output costs no more than a short one.
 */
function clip(parts: readonly string[], max: number): string {
	const out: string[] = [];
	let space = false;
	for (const part of parts) {
		if (out.length > 0) space = true;
		// for…of walks code points, so a surrogate pair is one step and never split.
		for (const char of part) {
			if (WHITESPACE.test(char)) {
				if (out.length > 0) space = true;
				continue;
			}
			if (space) {
				out.push(" ");
				space = false;
			}
			out.push(char);
			if (out.length > max) {
				// The "…" takes the last place; a space left before it goes too.
				const kept = out.slice(0, max - 1);
				if (kept.at(-1) === " ") kept.pop();
				return `${kept.join("")}…`;
			}
		}
	}
	return out.join("");
}

/**
 * One line of plain text for lists. The rules, by role:
 * - assistant: the text of `content` (a string, or the array's text items;
 *   thinking is never shown); with none, its tool calls as `→ name(…)` each
 *   (`?` for a call without a name); with none either, its `errorMessage`.
 * - bashExecution: `$ command`.
 * - branchSummary, compactionSummary: the summary.
 * - user, toolResult, custom and any other role: the text of `content` (a
 *   string, or the array's text items); with no text, `[image]` per image
 *   item; with neither, a string `summary` field.
 * Anything else is "". The parts are joined by a space, every run of
 * whitespace becomes one space, and the result is trimmed. Longer than
 * `maxLength` code points (default 120), it is cut to `maxLength - 1` code
 * points plus "…", a trailing space before the "…" dropped. Code points,
 * not UTF-16 units: a surrogate pair is never split (a grapheme of several
 * code points may be). `maxLength` is floored; below 1 (or NaN) gives "";
 * Infinity never cuts.
 */
export function messagePreview(message: AgentMessage, maxLength: number = DEFAULT_PREVIEW_LENGTH): string {
	const max = Math.floor(maxLength);
	if (!(max >= 1)) return "";
	return clip(previewParts(isObject(message) ? message : {}), max);
}
