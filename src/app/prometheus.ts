/**
 * Prometheus metrics (prom-client), served as text at /metrics. Every name
 * starts with `session_tree_`: they describe the server, not the activity
 * the GraphQL `metrics` query reports.
 *
 * Label values come from a closed set (transports, schema fields, error
 * codes, routes), except operation names, which clients choose: the first
 * `MAX_OPERATION_NAMES` distinct names are kept and any later one is
 * counted as "(other)", so no client can grow the registry without limit.
 *
 * The GraphQL pipeline's phases (parse, validate, execute, subscribe) are
 * timed by Yoga's Prometheus plugin on the same registry
 * (`usePrometheusPipeline`), named and labelled like the rest (the
 * operation a request runs, as the counters name it). Its request and error
 * counters, request duration and HTTP histogram are off: the server's own
 * carry the transport and the error code clients see, time an operation
 * from its request (the plugin's starts at execute) and time every route,
 * not only GraphQL requests.
 */
import { createHistogram, type FillLabelsFnParams, usePrometheus } from "@graphql-yoga/plugin-prometheus";
import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Services } from "../services.js";

export const MAX_OPERATION_NAMES = 200;

export type Transport = "http" | "sse" | "graphql-ws";

export interface OperationObservation {
	transport: Transport;
	/** query, mutation, subscription; "unknown" when the request failed before its operation was known. */
	type: string;
	name: string | undefined;
	/** Error codes of the result; none for a success. */
	codes: readonly string[];
	seconds?: number;
}

export interface ServerMetrics {
	readonly registry: Registry;
	/** The operation name a label shows: the first MAX_OPERATION_NAMES distinct ones, then "(other)". */
	operationLabel(name: string | undefined): string;
	operation(observation: OperationObservation): void;
	/** One root field of a mutation finished: "OK" or its error code. */
	mutationField(field: string, code: string): void;
	subscriptionOpened(transport: Transport): void;
	subscriptionClosed(transport: Transport): void;
	eventDelivered(transport: Transport): void;
	http(route: string, method: string, status: number, seconds: number): void;
}

/** A bounded label for a path: the routes this server has, and "other". */
export function routeOf(pathname: string): string {
	return ["/graphql", "/health", "/health/live", "/health/ready", "/metrics"].includes(pathname)
		? pathname
		: "other";
}

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The transport of an operation from its GraphQL context: a graphql-ws socket, else HTTP (SSE for a subscription). */
function transportOfContext(context: unknown, type: string | undefined): Transport {
	if ((context as { socket?: unknown } | undefined)?.socket !== undefined) return "graphql-ws";
	return type === "subscription" ? "sse" : "http";
}

/** Yoga's Prometheus plugin for the GraphQL pipeline (see the header), on `metrics`' registry. */
export function usePrometheusPipeline(metrics: ServerMetrics): Plugin {
	const { registry } = metrics;
	// The operation the request runs (the plugin's own labels take a document's first definition,
	// a fragment's name included), named as the server's counters name it.
	const labels = (params: FillLabelsFnParams, context: unknown) => {
		const asked = (context as { params?: { operationName?: string | null } } | undefined)?.params;
		const operation = params.document ? getOperationAST(params.document, asked?.operationName) : null;
		const type = operation?.operation ?? "unknown";
		return {
			transport: transportOfContext(context, type),
			type,
			operation: metrics.operationLabel(operation?.name?.value),
		};
	};
	const histogram = <P extends "parse" | "validate" | "execute" | "subscribe">(
		phase: P,
		name: string,
		help: string,
	) =>
		createHistogram<P, "transport" | "type" | "operation">({
			registry,
			histogram: { name, help, labelNames: ["transport", "type", "operation"], buckets: BUCKETS },
			fillLabelsFn: labels,
			phases: [phase],
		});
	return usePrometheus({
		registry,
		endpoint: false,
		metrics: {
			// The server's own histogram times request to result (createMetrics above).
			graphql_envelop_request_duration: false,
			graphql_envelop_phase_parse: histogram(
				"parse",
				"session_tree_graphql_parse_seconds",
				"Time parsing operations",
			),
			graphql_envelop_phase_validate: histogram(
				"validate",
				"session_tree_graphql_validate_seconds",
				"Time validating operations",
			),
			// Envelop times context building within one synchronous call: it would always read 0.
			graphql_envelop_phase_context: false,
			graphql_envelop_phase_execute: histogram(
				"execute",
				"session_tree_graphql_execute_seconds",
				"Time executing queries and mutations",
			),
			graphql_envelop_phase_subscribe: histogram(
				"subscribe",
				"session_tree_graphql_subscribe_seconds",
				"Time starting subscriptions (until the stream starts)",
			),
			// The schema deprecates nothing: walking every document for deprecated fields would find none.
			graphql_envelop_deprecated_field: false,
			graphql_envelop_request: false,
			graphql_envelop_request_time_summary: false,
			graphql_envelop_error_result: false,
			graphql_envelop_schema_change: false,
			graphql_envelop_execute_resolver: false,
			graphql_yoga_http_duration: false,
		},
	});
}

export function createMetrics(
	services: Pick<Services, "bus" | "live" | "storeCalls">,
	extra: { apqCached?: () => number } = {},
): ServerMetrics {
	const registry = new Registry();
	collectDefaultMetrics({ register: registry, prefix: "session_tree_" });
	const registers = [registry];
	const names = new Set<string>();
	const nameOf = (name: string | undefined) => {
		const shown = name ?? "(anonymous)";
		if (names.has(shown)) return shown;
		if (names.size >= MAX_OPERATION_NAMES) return "(other)";
		names.add(shown);
		return shown;
	};

	const operations = new Counter({
		name: "session_tree_graphql_operations_total",
		help: "GraphQL operations by transport, type, name and outcome (OK, or the first error's code)",
		labelNames: ["transport", "type", "operation", "code"],
		registers,
	});
	const errors = new Counter({
		name: "session_tree_graphql_errors_total",
		help: "Errors in GraphQL results by operation and code",
		labelNames: ["transport", "type", "operation", "code"],
		registers,
	});
	const duration = new Histogram({
		name: "session_tree_graphql_operation_duration_seconds",
		help: "Time from request to result of queries and mutations (subscriptions: until the stream starts)",
		labelNames: ["transport", "type", "operation"],
		buckets: BUCKETS,
		registers,
	});
	const mutations = new Counter({
		name: "session_tree_mutations_total",
		help: "Root mutation fields by field and outcome: appendEntry with code OK counts appended entries, importSession imported files",
		labelNames: ["field", "code"],
		registers,
	});
	const subscriptions = new Gauge({
		name: "session_tree_subscriptions_open",
		help: "Open GraphQL subscriptions by transport",
		labelNames: ["transport"],
		registers,
	});
	const events = new Counter({
		name: "session_tree_subscription_events_total",
		help: "Subscription results delivered, by transport",
		labelNames: ["transport"],
		registers,
	});
	const httpDuration = new Histogram({
		name: "session_tree_http_request_duration_seconds",
		help: "HTTP requests by route, method and status (an SSE stream: until its response starts)",
		labelNames: ["route", "method", "status"],
		buckets: BUCKETS,
		registers,
	});
	for (const transport of ["sse", "graphql-ws"] as const) subscriptions.set({ transport }, 0);

	const { bus, live, storeCalls } = services;
	new Gauge({
		name: "session_tree_live_feeds",
		help: "Sessions with live subscribers on this instance",
		registers,
		collect() {
			this.set(live.feedCount);
		},
	});
	new Gauge({
		name: "session_tree_live_activity_pending_sessions",
		help: "Sessions whose commits wait to become activity events (the activity feed's backlog)",
		registers,
		collect() {
			this.set(live.activityPending);
		},
	});
	new Gauge({
		name: "session_tree_bus_listeners",
		help: "Live feeds listening to the commit bus",
		registers,
		collect() {
			this.set(bus.listenerCount);
		},
	});
	new Counter({
		name: "session_tree_bus_reconnects_total",
		help: "Times the Postgres LISTEN connection was re-established after a drop (0 on the in-process bus)",
		registers,
		collect() {
			this.reset();
			this.inc(bus.reconnects);
		},
	});
	new Gauge({
		name: "session_tree_store_calls_in_flight",
		help: "Store calls running now (Postgres: each holds one of the pool's 10 connections or waits for one)",
		registers,
		collect() {
			this.set(storeCalls.inFlight);
		},
	});
	new Counter({
		name: "session_tree_store_calls_total",
		help: "Store calls by method and outcome (ok, failed)",
		labelNames: ["method", "outcome"],
		registers,
		collect() {
			this.reset();
			for (const [method, counts] of storeCalls.byMethod) {
				this.inc({ method, outcome: "ok" }, counts.calls - counts.failures);
				if (counts.failures > 0) this.inc({ method, outcome: "failed" }, counts.failures);
			}
		},
	});
	new Counter({
		name: "session_tree_store_call_seconds_total",
		help: "Time spent in store calls by method (with session_tree_store_calls_total: the mean)",
		labelNames: ["method"],
		registers,
		collect() {
			this.reset();
			for (const [method, counts] of storeCalls.byMethod) this.inc({ method }, counts.seconds);
		},
	});
	const { apqCached } = extra;
	if (apqCached) {
		new Gauge({
			name: "session_tree_apq_cached_queries",
			help: "Queries kept for automatic persisted queries (bounded by APQ_CACHE_SIZE and APQ_CACHE_BYTES)",
			registers,
			collect() {
				this.set(apqCached());
			},
		});
	}

	return {
		registry,
		operationLabel: nameOf,
		operation({ transport, type, name, codes, seconds }) {
			const operation = nameOf(name);
			operations.inc({ transport, type, operation, code: codes[0] ?? "OK" });
			for (const code of codes) errors.inc({ transport, type, operation, code });
			if (seconds !== undefined) duration.observe({ transport, type, operation }, seconds);
		},
		mutationField(field, code) {
			mutations.inc({ field, code });
		},
		subscriptionOpened(transport) {
			subscriptions.inc({ transport });
		},
		subscriptionClosed(transport) {
			subscriptions.dec({ transport });
		},
		eventDelivered(transport) {
			events.inc({ transport });
		},
		http(route, method, status, seconds) {
			httpDuration.observe({ route, method, status: String(status) }, seconds);
		},
	};
}
