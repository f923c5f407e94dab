/**
 * What an operator sees of each request: a request id (the caller's
 * `x-request-id` when it is a sane token, else a new UUID; echoed in the
 * response), one log line per HTTP request (id, method, path, status,
 * operation type and name, workspace, duration, error codes), the
 * Prometheus observations (metrics.ts), and an OpenTelemetry span around
 * each execution.
 *
 * Tracing goes through `@opentelemetry/api` only: without a tracer provider
 * registered by the application (an SDK and an exporter of the user's
 * choice, e.g. `node --import ./otel.mjs`), every span is a no-op.
 *
 * graphql-ws operations have no HTTP request of their own: each is logged
 * when its result is (a subscription: when it ends), with transport graphql-ws.
 */
import { randomUUID } from "node:crypto";
import { context as otelContext, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { type ExecutionResult, getOperationAST, type OperationDefinitionNode } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { Logger } from "../logger.js";
import { routeOf, type ServerMetrics, type Transport } from "./prometheus.js";

export const REQUEST_ID_HEADER = "x-request-id";
const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;
const tracer = trace.getTracer("session-tree-graphql");

interface RequestRecord {
	id: string;
	started: number;
	type?: string;
	name?: string | undefined;
	workspace?: string;
	codes: string[];
	subscription?: boolean;
}

interface OperationContext {
	request?: Request;
	/** Set by server.ts for graphql-ws operations. */
	socket?: unknown;
	workspaceId?: string;
}

function codesOf(result: ExecutionResult | undefined): string[] {
	return (result?.errors ?? []).map((e) => String(e.extensions?.code ?? "INTERNAL_SERVER_ERROR"));
}

/** The root mutation fields and the code each ended with: a field whose error path starts at it failed. */
function mutationOutcomes(
	operation: OperationDefinitionNode,
	result: ExecutionResult,
): Array<[string, string]> {
	const failed = new Map<string, string>();
	for (const error of result.errors ?? []) {
		const key = error.path?.[0];
		if (typeof key === "string" && !failed.has(key)) {
			failed.set(key, String(error.extensions?.code ?? "INTERNAL_SERVER_ERROR"));
		}
	}
	return operation.selectionSet.selections.flatMap((s) =>
		s.kind === "Field"
			? [[s.name.value, failed.get(s.alias?.value ?? s.name.value) ?? "OK"] as [string, string]]
			: [],
	);
}

/**
 * Two plugins sharing their records: `requests` goes first in the pipeline
 * (every request gets its id, whoever answers it), `operations` after the
 * plugin that gives errors their codes, so it counts the codes clients see.
 */
export function telemetry(
	logger: Logger,
	metrics: ServerMetrics | undefined,
): { requests: Plugin; operations: Plugin } {
	const requests = new WeakMap<Request, RequestRecord>();
	const spans = new WeakMap<object, Span>();
	const transportOf = (ctx: OperationContext): Transport =>
		ctx.socket !== undefined ? "graphql-ws" : "http";

	const traced = (name: string, ctx: object, wrapped: () => unknown) => {
		const span = tracer.startSpan(name);
		spans.set(ctx, span);
		return otelContext.with(trace.setSpan(otelContext.active(), span), () =>
			Promise.resolve(wrapped()).finally(() => span.end()),
		);
	};

	/** The operation's name and kind, on its span and on its HTTP request's record. */
	const started = (ctx: OperationContext, operation: OperationDefinitionNode | null | undefined) => {
		const type = operation?.operation ?? "query";
		const name = operation?.name?.value;
		spans.get(ctx)?.updateName(`graphql.${type}${name ? ` ${name}` : ""}`);
		spans.get(ctx)?.setAttributes({
			"graphql.operation.type": type,
			...(name ? { "graphql.operation.name": name } : {}),
			...(ctx.workspaceId ? { "session_tree.workspace": ctx.workspaceId } : {}),
		});
		const record = ctx.request ? requests.get(ctx.request) : undefined;
		if (record) {
			record.type = type;
			record.name = name;
			if (ctx.workspaceId !== undefined) record.workspace = ctx.workspaceId;
		}
		return { type, name, began: performance.now() };
	};

	const finished = (ctx: OperationContext, result: ExecutionResult) => {
		const codes = codesOf(result);
		if (codes.length > 0) spans.get(ctx)?.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(",") });
		return codes;
	};

	const operations: Plugin = {
		instrumentation: {
			execute: ({ context }, wrapped) => traced("graphql.execute", context, wrapped) as Promise<void>,
			subscribe: ({ context }, wrapped) => traced("graphql.subscribe", context, wrapped) as Promise<void>,
		},
		onExecute({ args }) {
			const ctx = args.contextValue as OperationContext;
			const operation = getOperationAST(args.document, args.operationName);
			const { type, name, began } = started(ctx, operation);
			return {
				onExecuteDone: ({ result }) => {
					if (isAsyncIterable(result)) return;
					const codes = finished(ctx, result);
					if (type === "mutation" && operation && metrics) {
						for (const [field, code] of mutationOutcomes(operation, result))
							metrics.mutationField(field, code);
					}
					if (transportOf(ctx) === "graphql-ws") {
						const seconds = (performance.now() - began) / 1000;
						metrics?.operation({ transport: "graphql-ws", type, name, codes, seconds });
						logger.info("operation", {
							transport: "graphql-ws",
							operation: type,
							name,
							workspace: ctx.workspaceId,
							ms: Math.round(seconds * 1000),
							errors: codes.join(",") || undefined,
						});
					}
				},
			};
		},
		onSubscribe({ args }) {
			const ctx = args.contextValue as OperationContext;
			const operation = getOperationAST(args.document, args.operationName);
			const { type, name, began } = started(ctx, operation);
			const transport: Transport = transportOf(ctx) === "graphql-ws" ? "graphql-ws" : "sse";
			const record = ctx.request ? requests.get(ctx.request) : undefined;
			if (record) record.subscription = true;
			return {
				onSubscribeResult: ({ result }) => {
					if (!isAsyncIterable(result)) {
						// It failed to start: counted (and, over HTTP, logged) like any failed request.
						const codes = finished(ctx, result);
						if (transport === "graphql-ws") metrics?.operation({ transport, type, name, codes });
						return;
					}
					metrics?.subscriptionOpened(transport);
					const codes: string[] = [];
					return {
						onNext: ({ result: event }) => {
							metrics?.eventDelivered(transport);
							codes.push(...codesOf(event));
						},
						onEnd: () => {
							metrics?.subscriptionClosed(transport);
							if (transport !== "graphql-ws") return;
							metrics?.operation({ transport, type, name, codes });
							logger.info("operation", {
								transport,
								operation: type,
								name,
								workspace: ctx.workspaceId,
								ms: Math.round(performance.now() - began),
								errors: codes.join(",") || undefined,
							});
						},
					};
				},
			};
		},
	};
	const requestPlugin: Plugin = {
		onRequest({ request }) {
			const given = request.headers.get(REQUEST_ID_HEADER);
			requests.set(request, {
				id: given && SANE_REQUEST_ID.test(given) ? given : randomUUID(),
				started: performance.now(),
				codes: [],
			});
		},
		onResultProcess({ request, result }) {
			const record = requests.get(request);
			if (!record || isAsyncIterable(result)) return;
			for (const one of Array.isArray(result) ? result : [result]) record.codes.push(...codesOf(one));
		},
		onResponse({ request, response }) {
			const record = requests.get(request) ?? { id: randomUUID(), started: performance.now(), codes: [] };
			response.headers.set(REQUEST_ID_HEADER, record.id);
			const url = new URL(request.url);
			const route = routeOf(url.pathname);
			const seconds = (performance.now() - record.started) / 1000;
			metrics?.http(route, request.method, response.status, seconds);
			if (route === "/graphql" && (record.type !== undefined || record.codes.length > 0)) {
				const transport: Transport = record.subscription ? "sse" : "http";
				metrics?.operation({
					transport,
					type: record.type ?? "unknown",
					name: record.name,
					codes: record.codes,
					...(record.subscription ? {} : { seconds }),
				});
			}
			const fields = {
				requestId: record.id,
				method: request.method,
				path: url.pathname,
				status: response.status,
				operation: record.type,
				name: record.name,
				workspace: record.workspace,
				ms: Math.round(seconds * 1000),
				errors: record.codes.join(",") || undefined,
			};
			// Probes and scrapes come every few seconds; they would drown the requests that matter.
			if (route === "/graphql" || route === "other") logger.info("request", fields);
			else logger.debug("request", fields);
		},
	};
	return { requests: requestPlugin, operations };
}
