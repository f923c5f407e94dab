/**
 * The GraphQL application: schema, per-request context, error policy. It does
 * not listen; main.ts (or a test) serves it over HTTP, or calls `fetch`.
 */
import { type GraphQLError, getOperationAST } from "graphql";
import { createYoga, isAsyncIterable, type Plugin, type YogaServerInstance } from "graphql-yoga";
import type { GraphQLContext } from "./graphql/builder.js";
import {
	createMaskError,
	isGraphQLError,
	withRequestErrorCode,
	withStoreErrorCode,
} from "./graphql/errors.js";
import { GRAPHIQL_EXAMPLE } from "./graphql/examples.js";
import { createLoaders } from "./graphql/loaders.js";
import { schema } from "./graphql/schema.js";
import type { Logger } from "./logger.js";
import type { Services } from "./services.js";
import { DEFAULT_WORKSPACE } from "./store/store.js";

export interface AppOptions {
	services: Pick<Services, "store" | "live">;
	logger: Logger;
	/** Serve GraphiQL on GET /graphql (development). */
	graphiql?: boolean;
}

export type App = YogaServerInstance<Record<string, never>, GraphQLContext>;

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
	onExecute: () => ({ onExecuteDone: ({ result, setResult }) => setResult(coded(result)) }),
	onSubscribe: () => ({ onSubscribeResult: ({ result, setResult }) => setResult(coded(result)) }),
};

function coded<T>(result: T): T {
	if (isAsyncIterable(result)) return result;
	const r = result as { data?: unknown; errors?: readonly GraphQLError[] };
	if (!r.errors) return result;
	// Without data the request never ran (variables did not coerce) or a subscription failed to start.
	const code = (e: GraphQLError) =>
		r.data === undefined ? withRequestErrorCode(withStoreErrorCode(e)) : withStoreErrorCode(e);
	return { ...r, errors: r.errors.map(code) } as T;
}

/** One log line per operation: mutations at info, reads at debug. */
function useOperationLog(logger: Logger): Plugin {
	return {
		onExecute: ({ args }) => {
			const started = performance.now();
			const operation = getOperationAST(args.document, args.operationName);
			const kind = operation?.operation ?? "query";
			const name = operation?.name?.value;
			return {
				onExecuteDone: ({ result }) => {
					if (isAsyncIterable(result)) return;
					const fields = {
						operation: kind,
						name: name ?? "(anonymous)",
						ms: Math.round(performance.now() - started),
						errors: result.errors?.map((e) => e.extensions?.code ?? "INTERNAL").join(",") || undefined,
					};
					if (kind === "mutation") logger.info("graphql", fields);
					else logger.debug("graphql", fields);
				},
			};
		},
	};
}

export function createApp(options: AppOptions): App {
	const { logger } = options;
	const { store, live } = options.services;
	return createYoga<Record<string, never>, GraphQLContext>({
		schema,
		graphqlEndpoint: "/graphql",
		healthCheckEndpoint: "/health",
		landingPage: false,
		graphiql: options.graphiql ? { title: "Session trees", defaultQuery: GRAPHIQL_EXAMPLE } : false,
		maskedErrors: { maskError: createMaskError(logger) },
		logging: {
			debug: (...args) => logger.debug(args.map(String).join(" ")),
			info: (...args) => logger.info(args.map(String).join(" ")),
			warn: (...args) => logger.warn(args.map(String).join(" ")),
			error: (...args) => logger.error(args.map(String).join(" ")),
		},
		// Until authentication exists every caller is in the default workspace.
		context: () => ({
			store,
			live,
			workspaceId: DEFAULT_WORKSPACE,
			loaders: createLoaders(store, DEFAULT_WORKSPACE),
		}),
		plugins: [useErrorCodes, useOperationLog(logger)],
	});
}
