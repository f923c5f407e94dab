/**
 * Typed usage for dashboards: the token usage and cost of an assistant
 * message, and the activity measures of a set of entries (a session's tree
 * or path). Numbers that add up over a workspace (tokens, cost) are Float:
 * GraphQL's Int stops at 2^31; they are whole numbers wherever pi's data is.
 * Every figure here comes from session/message-summary.ts and
 * session/measures.ts, so a sum over typed fields equals the measure.
 */

import type { Measures } from "../../session/measures.js";
import type { CostBreakdown, TokenUsage } from "../../session/message-summary.js";
import type { SessionStats } from "../../session/session-stats.js";
import { builder } from "../builder.js";

export const CostRef = builder.objectRef<CostBreakdown>("Cost").implement({
	description:
		"Cost of a message in the provider's currency unit (USD for pi's built-in models), as pi records it.",
	fields: (t) => ({
		input: t.exposeFloat("input"),
		output: t.exposeFloat("output"),
		cacheRead: t.exposeFloat("cacheRead"),
		cacheWrite: t.exposeFloat("cacheWrite"),
		total: t.exposeFloat("total"),
	}),
});

export const TokenUsageRef = builder.objectRef<TokenUsage>("TokenUsage").implement({
	description:
		"Token usage of an assistant message. Missing or invalid numbers read as 0; `totalTokens` is derived as pi derives it when a file lacks it (input + output + cacheRead + cacheWrite).",
	fields: (t) => ({
		input: t.exposeFloat("input"),
		output: t.exposeFloat("output"),
		cacheRead: t.exposeFloat("cacheRead"),
		cacheWrite: t.exposeFloat("cacheWrite"),
		totalTokens: t.exposeFloat("totalTokens"),
		cost: t.field({ type: CostRef, resolve: (u) => u.cost }),
	}),
});

const RoleCountRef = builder.objectRef<{ role: string; count: number }>("RoleCount").implement({
	fields: (t) => ({ role: t.exposeString("role"), count: t.exposeInt("count") }),
});

export const MeasuresRef = builder.objectRef<Measures>("Measures").implement({
	description: "Activity measures of a set of entries, each a count or a sum.",
	fields: (t) => ({
		entries: t.exposeInt("entries", {
			description: "Every entry, leaf moves, labels and session info included.",
		}),
		messages: t.exposeInt("messages"),
		messagesByRole: t.field({
			type: [RoleCountRef],
			description: "Messages by role, most frequent first.",
			resolve: (m) =>
				Object.entries(m.messagesByRole)
					.map(([role, count]) => ({ role, count }))
					.sort((a, b) => b.count - a.count || (a.role < b.role ? -1 : 1)),
		}),
		userTurns: t.exposeInt("userTurns", { description: "User messages." }),
		assistantTurns: t.exposeInt("assistantTurns", { description: "Assistant messages." }),
		toolCalls: t.exposeInt("toolCalls", { description: "Tool calls in assistant messages." }),
		toolResults: t.exposeInt("toolResults"),
		toolErrors: t.exposeInt("toolErrors", { description: "Tool results with isError true." }),
		inputTokens: t.exposeFloat("inputTokens"),
		outputTokens: t.exposeFloat("outputTokens"),
		cacheReadTokens: t.exposeFloat("cacheReadTokens"),
		cacheWriteTokens: t.exposeFloat("cacheWriteTokens"),
		totalTokens: t.exposeFloat("totalTokens"),
		cost: t.exposeFloat("cost", { description: "Sum of the messages' cost.total." }),
		leafMoves: t.exposeInt("leafMoves", { description: "Moves of the leaf pointer (going back)." }),
		branchSummaries: t.exposeInt("branchSummaries"),
		compactions: t.exposeInt("compactions"),
		labels: t.exposeInt("labels", { description: "Label entries (set or cleared)." }),
	}),
});

export const SessionStatsRef = builder.objectRef<SessionStats>("SessionStats").implement({
	description:
		"A session's activity: over the whole tree, and over the active path (they differ once it branched).",
	fields: (t) => ({
		tree: t.field({ type: MeasuresRef, resolve: (s) => s.tree }),
		path: t.field({
			type: MeasuresRef,
			description: "The full active path, root to leaf, not bounded by compaction.",
			resolve: (s) => s.path,
		}),
		tips: t.exposeInt("tips", { description: "Tree nodes without children: one per branch." }),
		maxDepth: t.exposeInt("maxDepth", { description: "The deepest tree node's depth; -1 without entries." }),
		firstActivity: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.firstActivity }),
		lastActivity: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.lastActivity }),
	}),
});
