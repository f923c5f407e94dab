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
import { TURN_MEASURES, type TurnMeasure, turnMeasureOf } from "../../session/metrics.js";
import type { SessionStats } from "../../session/session-stats.js";
import type { TurnSpreads } from "../../session/turns.js";
import { builder } from "../builder.js";

const TURN_VALUE_TEXT = {
	totalTokens: "normalised totalTokens of an assistant turn",
	cost: "usage.cost.total of an assistant turn",
	durationMs:
		"duration in ms of an assistant turn (entry timestamp − message.timestamp; see timedAssistantTurns)",
} as const;

const STATISTIC_TEXT = {
	avg: "Average",
	min: "Smallest",
	max: "Largest",
	p50: "Median (percentile_disc 0.5: the smallest value with at least half of the turns' at or below it)",
	p95: "95th percentile (percentile_disc 0.95: the smallest value with at least 95% of the turns' at or below it)",
} as const;

export const TIMED_TURNS =
	"Assistant messages with a duration: pi stamps message.timestamp (ms) when the turn starts and the entry's timestamp when it is written; a message without a numeric stamp, or with one after the entry's, has none.";

/** A per-assistant-turn measure's description, the same for metrics and session stats. */
export function describeTurnMeasure(measure: TurnMeasure): string {
	const { value, statistic } = TURN_MEASURES[measure];
	return `${STATISTIC_TEXT[statistic]} ${TURN_VALUE_TEXT[value]}; null without such turns.`;
}

/** Some entries' measures and their assistant turns' spreads: what the Measures type shows. */
export interface MeasuredEntries {
	measures: Measures;
	turns: TurnSpreads;
}

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

export const MeasuresRef = builder.objectRef<MeasuredEntries>("Measures").implement({
	description:
		"Activity measures of a set of entries: counts and sums, and statistics of their assistant turns.",
	fields: (t) => {
		const int = (field: keyof Omit<Measures, "messagesByRole">, description?: string) =>
			t.int({ ...(description ? { description } : {}), resolve: (m) => m.measures[field] });
		const float = (field: keyof Omit<Measures, "messagesByRole">, description?: string) =>
			t.float({ ...(description ? { description } : {}), resolve: (m) => m.measures[field] });
		return {
			entries: int("entries", "Every entry, leaf moves, labels and session info included."),
			messages: int("messages"),
			messagesByRole: t.field({
				type: [RoleCountRef],
				description: "Messages by role, most frequent first.",
				resolve: (m) =>
					Object.entries(m.measures.messagesByRole)
						.map(([role, count]) => ({ role, count }))
						.sort((a, b) => b.count - a.count || (a.role < b.role ? -1 : 1)),
			}),
			userTurns: int("userTurns", "User messages."),
			assistantTurns: int("assistantTurns", "Assistant messages."),
			toolCalls: int("toolCalls", "Tool calls in assistant messages."),
			toolResults: int("toolResults"),
			toolErrors: int("toolErrors", "Tool results with isError true."),
			inputTokens: float("inputTokens"),
			outputTokens: float("outputTokens"),
			cacheReadTokens: float("cacheReadTokens"),
			cacheWriteTokens: float("cacheWriteTokens"),
			totalTokens: float("totalTokens"),
			cost: float("cost", "Sum of the messages' cost.total."),
			timedAssistantTurns: int("timedAssistantTurns", TIMED_TURNS),
			assistantTurnDurationMs: float(
				"assistantTurnDurationMs",
				"Sum of the assistant turns' durations in ms (see avgAssistantTurnDurationMs).",
			),
			leafMoves: int("leafMoves", "Moves of the leaf pointer (going back)."),
			branchSummaries: int("branchSummaries"),
			compactions: int("compactions"),
			labels: int("labels", "Label entries (set or cleared)."),
			...Object.fromEntries(
				(Object.keys(TURN_MEASURES) as TurnMeasure[]).map((measure) => [
					measure,
					t.float({
						nullable: true,
						description: describeTurnMeasure(measure),
						resolve: (m) =>
							turnMeasureOf(measure, m.measures, (value, statistic) => m.turns[value][statistic]),
					}),
				]),
			),
		};
	},
});

export const SessionStatsRef = builder.objectRef<SessionStats>("SessionStats").implement({
	description:
		"A session's activity: over the whole tree, and over the active path (they differ once it branched).",
	fields: (t) => ({
		tree: t.field({ type: MeasuresRef, resolve: (s) => ({ measures: s.tree, turns: s.treeTurns }) }),
		path: t.field({
			type: MeasuresRef,
			description: "The full active path, root to leaf, not bounded by compaction.",
			resolve: (s) => ({ measures: s.path, turns: s.pathTurns }),
		}),
		tips: t.exposeInt("tips", { description: "Tree nodes without children: one per branch." }),
		maxDepth: t.exposeInt("maxDepth", { description: "The deepest tree node's depth; -1 without entries." }),
		firstActivity: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.firstActivity }),
		lastActivity: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.lastActivity }),
	}),
});
