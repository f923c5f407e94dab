/**
 * The metrics API: `metrics(query)` over the caller's workspace, typed rows
 * (dimension values and one field per measure), no JSON. The rules are
 * session/analytics/metrics.ts's; this maps GraphQL names onto them.
 */

import {
	DEFAULT_METRICS_LIMIT,
	DIMENSIONS,
	type Dimension,
	GRANULARITIES,
	MEASURES,
	type Measure,
	type MetricsOrder,
	type MetricsQuery,
	type MetricsResult,
	type MetricsRow,
	measureSpec,
} from "../../../session/analytics/metrics.js";
import { typeOrOther } from "../../../session/entry.js";
import { SessionError } from "../../../session/errors.js";
import { spend } from "../../budget.js";
import { builder } from "../../builder.js";
import { EntryTypeEnum, SessionRef } from "../../refs.js";
import { eventPayload, guarded, type Item } from "../events.js";

const screaming = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

const enumOf = <T extends string>(name: string, values: readonly T[], description: string) =>
	builder.enumType(name, {
		description,
		values: Object.fromEntries(values.map((value) => [screaming(value), { value }])) as Record<
			string,
			{ value: T }
		>,
	});

const MeasureEnum = enumOf("Measure", MEASURES, "What a metrics row adds up (see MeasureValues).");
const DimensionEnum = enumOf("MetricsDimension", DIMENSIONS, "What metrics rows are grouped by.");
const GranularityEnum = enumOf("TimeGranularity", GRANULARITIES, "The length of a TIME bucket.");

const MeasureValuesRef = builder.objectRef<MetricsRow["values"]>("MeasureValues").implement({
	description: "The measures a query asked for; a measure it did not ask for is null.",
	fields: (t) =>
		Object.fromEntries(
			MEASURES.map((measure) => {
				const { unit, description } = measureSpec(measure);
				const options = {
					nullable: true,
					...(description === undefined ? {} : { description }),
					resolve: (values: MetricsRow["values"]) => values[measure] ?? null,
				} as const;
				return [measure, unit === "count" ? t.int(options) : t.float(options)];
			}),
		),
});

const MetricsRowRef = builder.objectRef<MetricsRow>("MetricsRow").implement({
	description:
		"One group. A dimension the query did not group by is null, as is one that does not apply to the group (the model of user messages).",
	fields: (t) => ({
		time: t.field({
			type: "DateTime",
			nullable: true,
			description: "Start of the TIME bucket, in UTC.",
			resolve: (r) => r.time,
		}),
		sessionId: t.exposeString("sessionId", { nullable: true }),
		session: t.field({
			type: SessionRef,
			nullable: true,
			resolve: (r, _, { loaders }) => (r.sessionId === null ? null : loaders.session.load(r.sessionId)),
		}),
		entryType: t.field({
			type: EntryTypeEnum,
			nullable: true,
			resolve: (r) => (r.entryType === null ? null : typeOrOther(r.entryType)),
		}),
		role: t.exposeString("role", { nullable: true }),
		provider: t.exposeString("provider", { nullable: true }),
		model: t.exposeString("model", { nullable: true }),
		toolName: t.exposeString("toolName", {
			nullable: true,
			description:
				"A tool result's tool, or the tool that tool calls call; null for everything else of an assistant message (its tokens, cost, duration).",
		}),
		author: t.exposeString("author", { nullable: true }),
		values: t.field({ type: MeasureValuesRef, resolve: (r) => r.values }),
	}),
});

const MetricsResultRef = builder.objectRef<MetricsResult>("MetricsResult").implement({
	fields: (t) => ({
		rows: t.field({ type: [MetricsRowRef], resolve: (r) => r.rows }),
		truncated: t.exposeBoolean("truncated", { description: "More groups matched than `limit`." }),
	}),
});

const MetricsFilterInput = builder.inputType("MetricsFilter", {
	fields: (t) => ({
		from: t.field({ type: "DateTime", description: "Inclusive; on a quarter hour." }),
		to: t.field({ type: "DateTime", description: "Exclusive; on a quarter hour." }),
		sessionIds: t.stringList(),
		providers: t.stringList({ description: "Keeps the assistant messages of these providers." }),
		models: t.stringList({ description: "Keeps the assistant messages of these models." }),
		cwdPrefix: t.string({ description: "Sessions whose cwd starts with this." }),
	}),
});

const MetricsOrderInput = builder.inputType("MetricsOrder", {
	description: "Order by one asked measure or one grouped dimension (exactly one of them).",
	fields: (t) => ({
		measure: t.field({ type: MeasureEnum }),
		dimension: t.field({ type: DimensionEnum }),
		descending: t.boolean({ defaultValue: false }),
	}),
});

const MetricsQueryInput = builder.inputType("MetricsQuery", {
	fields: (t) => ({
		measures: t.field({ type: [MeasureEnum], required: true }),
		dimensions: t.field({ type: [DimensionEnum], defaultValue: [] }),
		granularity: t.field({ type: GranularityEnum, defaultValue: "day" }),
		timeZone: t.string({
			defaultValue: "UTC",
			description: "IANA zone in which days, weeks (from Monday) and months start.",
		}),
		filter: t.field({ type: MetricsFilterInput }),
		orderBy: t.field({
			type: [MetricsOrderInput],
			defaultValue: [],
			description: "Then by every dimension ascending, so the order is total.",
		}),
		limit: t.int({ defaultValue: DEFAULT_METRICS_LIMIT, description: "At most 10,000 rows." }),
	}),
});

function orderOf(order: {
	measure?: Measure | null | undefined;
	dimension?: Dimension | null | undefined;
	descending?: boolean | null | undefined;
}): MetricsOrder {
	const by = order.measure ?? order.dimension;
	if (!by || (order.measure && order.dimension))
		throw new SessionError("INVALID_INPUT", "an order names exactly one of measure and dimension", {
			field: "orderBy",
		});
	return { by, descending: order.descending ?? false };
}

type MetricsQueryArg = typeof MetricsQueryInput.$inferInput;

/** The GraphQL input as the session layer's query (defaults filled in; checked by the store). */
function metricsQueryOf(query: MetricsQueryArg): MetricsQuery {
	const { filter } = query;
	return {
		measures: query.measures,
		dimensions: query.dimensions ?? [],
		granularity: query.granularity ?? "day",
		timeZone: query.timeZone ?? "UTC",
		filter: {
			...(filter?.from ? { from: filter.from } : {}),
			...(filter?.to ? { to: filter.to } : {}),
			...(filter?.sessionIds ? { sessionIds: filter.sessionIds } : {}),
			...(filter?.providers ? { providers: filter.providers } : {}),
			...(filter?.models ? { models: filter.models } : {}),
			...(filter?.cwdPrefix != null ? { cwdPrefix: filter.cwdPrefix } : {}),
		},
		orderBy: (query.orderBy ?? []).map(orderOf),
		limit: query.limit ?? DEFAULT_METRICS_LIMIT,
	};
}

builder.queryField("metrics", (t) =>
	t.field({
		type: MetricsResultRef,
		description:
			"Activity of the caller's workspace: measures grouped by dimensions, from rollups kept with every write (exact and current).",
		args: { query: t.arg({ type: MetricsQueryInput, required: true }) },
		// Rows are charged to the result budget as they come.
		complexity: 20,
		resolve: async (_, { query }, { store, workspaceId, budget }) => {
			const result = await store.metrics(workspaceId, metricsQueryOf(query));
			spend(budget, result.rows);
			return result;
		},
	}),
);

builder.subscriptionField("metricsUpdated", (t) =>
	t.field({
		type: MetricsResultRef,
		description:
			"The result of a metrics query now, then a fresh one whenever commits (on any instance) change it: at most one per METRICS_UPDATE_INTERVAL_MS (default 1 s).",
		args: { query: t.arg({ type: MetricsQueryInput, required: true }) },
		complexity: 20,
		subscribe: async (_, { query }, { live, workspaceId }) =>
			guarded(await live.metricsUpdates(workspaceId, metricsQueryOf(query))),
		resolve: (item: Item<MetricsResult>, _args, context) => {
			const result = eventPayload(item, context);
			spend(context.budget, result.rows);
			return result;
		},
	}),
);
