/**
 * The GraphQL application: schema, per-request context, error policy. It does
 * not listen; main.ts (or a test) serves it over HTTP, or calls `fetch`.
 */
import { useDisableIntrospection } from "@graphql-yoga/plugin-disable-introspection";
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import type { GraphQLError, Source } from "graphql";
import { createYoga, isAsyncIterable, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { type Authenticate, requestIdentity, useTokenExpiry } from "./app/authentication.js";
import { useSubscriptionsPerClient } from "./app/client-limits.js";
import { useHealthRoutes } from "./app/health.js";
import { type CompileOptions, useCompiledExecution } from "./app/jit.js";
import { useOperationLimits } from "./app/operation-limits.js";
import { corsOptions, type OriginPolicy, originPolicy, useOriginPolicy } from "./app/origins.js";
import { type PersistedOperations, persistedOperations } from "./app/persisted.js";
import { createMetrics, type ServerMetrics, usePrometheusPipeline } from "./app/prometheus.js";
import { useRequestBody } from "./app/request-body.js";
import { useResultLimit } from "./app/result-limit.js";
import { type SharedResultsStats, useSharedEventResults } from "./app/shared-results.js";
import { useSseEventIds } from "./app/sse-event-ids.js";
import { useStreamedResponses } from "./app/streamed-response.js";
import { telemetry } from "./app/telemetry.js";
import { useWebApp } from "./app/web-app.js";
import { anonymousIdentity, type Identity } from "./auth/identity.js";
import { DEFAULT_LIMITS, DEFAULT_PERSISTED, type ServerLimits } from "./config.js";
import { budgetError, resultBudget } from "./graphql/budget.js";
import type { GraphQLContext } from "./graphql/builder.js";
import {
	createMaskError,
	isGraphQLError,
	toGraphQLError,
	withRequestErrorCode,
	withSourcePositions,
	withStoreErrorCode,
} from "./graphql/errors.js";
import { GRAPHIQL_EXAMPLE } from "./graphql/examples.js";
import { createLoaders } from "./graphql/loaders.js";
import { schema } from "./graphql/schema.js";
import type { Logger } from "./logger.js";
import type { Readiness, Services } from "./services.js";
import { limitConcurrency } from "./store/limited.js";
import { DEFAULT_WORKSPACE } from "./store/store.js";

export interface AppOptions {
	services: Pick<Services, "store" | "live" | "presence" | "bus" | "storeCalls" | "ready">;
	logger: Logger;
	/** Development: GraphiQL on GET /graphql, local pages allowed, "Did you mean …" in errors. Off in production. */
	development?: boolean;
	/** Serve GraphiQL (default: in development). */
	graphiql?: boolean;
	limits?: ServerLimits;
	/** Browser origins allowed besides the server's own (CORS_ORIGINS). */
	corsOrigins?: readonly string[];
	/** Schema introspection (default on: codegen and GraphiQL use it). */
	introspection?: boolean;
	/** Who is calling (default: everyone is anonymous in the default workspace, with every scope). */
	authenticate?: Authenticate;
	/** When operations run compiled (default DEFAULT_COMPILE: app/jit.ts); false: always on graphql-js. */
	compile?: CompileOptions | false;
	/** Prometheus text at /metrics (default on). */
	metrics?: boolean;
	/** Persisted operations (default: automatic persisted queries, DEFAULT_PERSISTED's cache bounds). */
	persisted?: PersistedOperations;
	/** Readiness for /health/ready (default: the services'). */
	ready?: () => Promise<Readiness>;
}

export type App = YogaServerInstance<Record<string, never>, GraphQLContext> & {
	/** The origin rule, shared with the WebSocket handshake. */
	originPolicy: OriginPolicy;
	/** The identity rule, shared with the WebSocket handshake. */
	authenticate: Authenticate;
	/** How often subscription events were executed, reused and encoded (app/shared-results.ts); read-only. */
	sharedEventResults: Readonly<SharedResultsStats>;
	/** The persisted operations rule, shared with graphql-ws. */
	persisted: PersistedOperations;
	/** Undefined when metrics are off. */
	metrics: ServerMetrics | undefined;
};

/**
 * Expected errors get their code here, before Yoga's masking (which logs
 * everything it masks): store errors keep theirs, and request errors
 * (validation, variable coercion), which graphql-js leaves without one, are
 * INVALID_INPUT.
 */
const useErrorCodes: Plugin = {
	onValidate:
		() =>
		({ result, setResult }) => {
			if (result.length > 0) setResult(result.map((e) => (isGraphQLError(e) ? withRequestErrorCode(e) : e)));
		},
	onExecute: ({ args }) => ({
		onExecuteDone: ({ result, setResult }) => setResult(coded(result, args.document.loc?.source)),
	}),
	onSubscribe: ({ args }) => ({
		onSubscribeResult: ({ result, setResult }) => setResult(coded(result, args.document.loc?.source)),
	}),
};

function coded<T>(result: T, source: Source | undefined): T {
	if (isAsyncIterable(result)) return result;
	const r = result as { data?: unknown; errors?: readonly GraphQLError[] };
	if (!r.errors) return result;
	// Without data the request never ran (variables did not coerce) or a subscription failed to start.
	const code = (e: GraphQLError) =>
		r.data === undefined ? withRequestErrorCode(withStoreErrorCode(e)) : withStoreErrorCode(e);
	return { ...r, errors: r.errors.map((e) => code(withSourcePositions(e, source))) } as T;
}

/**
 * What of the caller a subscription event's result may depend on: the
 * workspace every store read is scoped to, and the scopes Pothos' scope
 * checks read. Not the subject: no field a subscription can select reads it
 * (mutations record it as the author; a LeafMoved's `author` is the stored
 * entry's), so every caller of a workspace with the same scopes shares. A
 * field that reads `identity.subject` must add it here.
 */
function eventResultKey(context: unknown): string | undefined {
	const { workspaceId, identity } = context as Partial<GraphQLContext>;
	if (workspaceId === undefined || identity === undefined) return undefined;
	return JSON.stringify([workspaceId, [...identity.scopes].sort()]);
}

export function createApp(options: AppOptions): App {
	const { logger } = options;
	const { store, live, presence } = options.services;
	const development = options.development ?? false;
	const limits = options.limits ?? DEFAULT_LIMITS;
	const policy = originPolicy(options.corsOrigins ?? [], development);
	const authenticate = options.authenticate ?? (async () => anonymousIdentity(DEFAULT_WORKSPACE));
	const sharedEventResults: SharedResultsStats = { executions: 0, reused: 0, encodings: 0 };
	const persisted = options.persisted ?? persistedOperations(DEFAULT_PERSISTED);
	const metrics =
		options.metrics === false
			? undefined
			: createMetrics(
					options.services,
					persisted.mode === "automatic" ? { apqCached: () => persisted.cached } : {},
				);
	const ready = options.ready ?? (() => options.services.ready());
	const observed = telemetry(logger, metrics);
	const yoga = createYoga<Record<string, never>, GraphQLContext>({
		schema,
		graphqlEndpoint: "/graphql",
		healthCheckEndpoint: "/health",
		landingPage: false,
		// Served from the package: the page loads nothing from outside this server.
		renderGraphiQL,
		graphiql:
			(options.graphiql ?? development) ? { title: "Session trees", defaultQuery: GRAPHIQL_EXAMPLE } : false,
		cors: corsOptions(policy),
		// Uploads are not part of this API; a multipart POST is refused like a form.
		multipart: false,
		// useRequestBody counts every POST body against limits.bodyBytes as it streams in; Yoga's own
		// limit would pipe each body through a second stream (and a second Request) to count it again.
		maxRequestBodySize: false,
		maskedErrors: { maskError: createMaskError(logger) },
		logging: {
			debug: (...args) => logger.debug(args.map(String).join(" ")),
			info: (...args) => logger.info(args.map(String).join(" ")),
			warn: (...args) => logger.warn(args.map(String).join(" ")),
			error: (...args) => logger.error(args.map(String).join(" ")),
		},
		// The caller's identity comes with the WebSocket connection, or from this request's header.
		// Each request gets its own view of the store, so it can hold only so many database connections at once.
		context: async (initial) => {
			const given = (initial as { identity?: Identity }).identity;
			const identity = given ?? (await requestIdentity(authenticate, initial.request));
			const requestStore = limitConcurrency(store, limits.requestConcurrency);
			return {
				store: requestStore,
				live,
				presence,
				identity,
				workspaceId: identity.workspaceId,
				loaders: createLoaders(requestStore, identity.workspaceId),
				budget: resultBudget(limits.resultItems),
			};
		},
		plugins: [
			// First: every request gets its id and log line, whoever answers it.
			observed.requests,
			// Each SSE event of an entry stream carries its seq as the event id (Last-Event-ID resumes).
			useSseEventIds(),
			useHealthRoutes({ ready, ...(metrics ? { metrics } : {}) }),
			useOriginPolicy(policy),
			// The browser app at / (web/dist); never /graphql, /health* or /metrics.
			useWebApp(),
			useRequestBody(limits.bodyBytes),
			// Before anything reads the query: a hash-only request gets its query here.
			...persisted.plugins,
			...useOperationLimits(limits, { suggestions: development }),
			...(options.introspection === false ? [useDisableIntrospection()] : []),
			useErrorCodes,
			// After useErrorCodes: results are counted and logged with the codes clients see.
			observed.operations,
			...(metrics ? [usePrometheusPipeline(metrics)] : []),
			useResultLimit(limits.responseBytes, (context) => {
				const { budget } = context as GraphQLContext;
				return budget?.exceeded ? toGraphQLError(budgetError(budget)) : undefined;
			}),
			// After useResultLimit, whose encoding it sends in pieces.
			useStreamedResponses(),
			useSubscriptionsPerClient(limits.subscriptionsPerClient),
			useTokenExpiry(),
			...(options.compile === false ? [] : [useCompiledExecution(logger, options.compile)]),
			// Each subscription event executed once per selection and caller key, for every subscriber
			// of a session (app/shared-results.ts). Order:
			// - Last, because it replaces the subscribe function and envelop keeps the last one set.
			//   graphql-jit sets one only for documents it compiles, never a subscription (app/jit.ts),
			//   so the two never compete. Events then run on graphql-js' createSourceEventStream and
			//   execute instead of Yoga's @graphql-tools/executor, whose additions are @defer/@stream
			//   (not in this schema) and abort signals (a subscription ends by its stream's return()).
			// - The plugins above that wrap a subscription's stream (result limit, token expiry,
			//   subscriptions per client, error codes and Yoga's masking) wrap each subscriber's own
			//   stream, whatever this plugin shares: each subscriber's event, shared or not, is
			//   measured against the response limit and its budget, and a failing one is replaced
			//   (a new object) for that subscriber alone; the shared result is never changed.
			// - `shareable` reads the executing subscriber's budget right after its execution, so a
			//   result cut short by a spent budget stays its own (the result limit then replaces it
			//   with the budget's error), and the others execute theirs. A result the response limit
			//   refuses is shared: the verdict depends on the result and the server-wide limit only,
			//   so each subscriber's check refuses it alike, after one execution instead of N.
			useSharedEventResults(
				{
					contextKey: eventResultKey,
					shareable: (context) => !(context as GraphQLContext).budget.exceeded,
				},
				sharedEventResults,
			),
		],
	});
	return Object.assign(yoga, { originPolicy: policy, authenticate, sharedEventResults, persisted, metrics });
}
