/**
 * Typed usage for dashboards: the token usage and cost of an assistant
 * message, and the activity measures of a set of entries (a session's tree
 * or path). Numbers that add up over a workspace (tokens, cost) are Float:
 * GraphQL's Int stops at 2^31; they are whole numbers wherever pi's data is.
 * Every figure here comes from session/message-summary.ts and
 * session/analytics/measures.ts, so a sum over typed fields equals the measure.
 */

import { type Measures, SUMS, type SumMeasure } from "../../../session/analytics/measures.js";
import {
	measureSpec,
	TURN_MEASURES,
	type TurnMeasure,
	turnMeasureOf,
} from "../../../session/analytics/metrics.js";
import type { SessionStats } from "../../../session/analytics/session-stats.js";
import type { TurnSpreads } from "../../../session/analytics/turns.js";
import type { CostBreakdown, TokenUsage } from "../../../session/message-summary.js";
import { builder } from "../../builder.js";

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
		const field = (measure: SumMeasure) => {
			const { unit, description } = measureSpec(measure);
			const options = {
				...(description ? { description } : {}),
				resolve: (m: MeasuredEntries) => m.measures[measure],
			};
			return unit === "count" ? t.int(options) : t.float(options);
		};
		const [first, ...rest] = SUMS as [SumMeasure, ...SumMeasure[]];
		return {
			[first]: field(first),
			messagesByRole: t.field({
				type: [RoleCountRef],
				description: "Messages by role, most frequent first.",
				resolve: (m) =>
					Object.entries(m.measures.messagesByRole)
						.map(([role, count]) => ({ role, count }))
						.sort((a, b) => b.count - a.count || (a.role < b.role ? -1 : 1)),
			}),
			...Object.fromEntries(rest.map((measure) => [measure, field(measure)])),
			...Object.fromEntries(
				(Object.keys(TURN_MEASURES) as TurnMeasure[]).map((measure) => [
					measure,
					t.float({
						nullable: true,
						description: measureSpec(measure).description ?? measure,
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
