/**
 * Serving the app on a real port: HTTP (queries, mutations, SSE
 * subscriptions) and graphql-ws WebSocket subscriptions on the same /graphql
 * path. Graceful shutdown: stop accepting, end subscriptions, let in-flight
 * requests finish, then close the store and the bus.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type DocumentNode, type ExecutionArgs, GraphQLError } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { type App, createApp } from "./app.js";
import { isGraphQLError, withRequestErrorCode } from "./graphql/errors.js";
import type { Logger } from "./logger.js";
import type { Services } from "./services.js";

export interface RunningServer {
	app: App;
	server: Server;
	/** e.g. http://127.0.0.1:4000/graphql */
	url: string;
	/** ws://…/graphql */
	wsUrl: string;
	/** Stop accepting, end subscriptions, wait for in-flight requests (up to `graceMs`), close the services. */
	close(graceMs?: number): Promise<void>;
}

export interface ServeOptions {
	services: Services;
	logger: Logger;
	port: number;
	host: string;
	graphiql?: boolean;
	/** WebSocket keep-alive ping interval; a peer that misses a pong is dropped. */
	keepAliveMs?: number;
}

interface ExecutorRoot {
	execute(args: ExecutionArgs): unknown;
	subscribe(args: ExecutionArgs): unknown;
}

/** graphql-ws runs every operation through Yoga's envelop, so plugins, errors and context are the same as over HTTP. */
function attachWebSocket(app: App, server: Server, keepAliveMs: number) {
	const wss = new WebSocketServer({ server, path: app.graphqlEndpoint });
	const disposable = useServer(
		{
			execute: (args) => (args.rootValue as ExecutorRoot).execute(args) as never,
			subscribe: (args) => (args.rootValue as ExecutorRoot).subscribe(args) as never,
			onSubscribe: async (ctx, _id, params) => {
				const { schema, execute, subscribe, contextFactory, parse, validate } = app.getEnveloped({
					...ctx,
					req: ctx.extra.request,
					socket: ctx.extra.socket,
					params,
				});
				let document: DocumentNode;
				try {
					document = parse(params.query);
				} catch (error) {
					// A bad query fails this operation only, not the connection and its other subscriptions;
					// with the code Yoga gives it over HTTP.
					const syntax = isGraphQLError(error) ? error : new GraphQLError(String(error));
					return [
						new GraphQLError(syntax.message, {
							...(syntax.source ? { source: syntax.source } : {}),
							...(syntax.positions ? { positions: syntax.positions } : {}),
							extensions: { code: "GRAPHQL_PARSE_FAILED" },
						}),
					];
				}
				const args: ExecutionArgs = {
					schema,
					operationName: params.operationName ?? null,
					document,
					variableValues: params.variables ?? null,
					contextValue: await contextFactory(),
					rootValue: { execute, subscribe } satisfies ExecutorRoot,
				};
				const errors = validate(args.schema, args.document);
				return errors.length > 0 ? errors.map(withRequestErrorCode) : args;
			},
		},
		wss,
		keepAliveMs,
	);
	return { wss, disposable };
}

export async function serve(options: ServeOptions): Promise<RunningServer> {
	const { services, logger } = options;
	const app = createApp({ services, logger, graphiql: options.graphiql ?? false });
	const server = createServer(app);
	let shuttingDown = false;
	// While shutting down, a keep-alive connection is closed as soon as its last response is sent.
	server.on("request", (_req, res) => {
		res.on("finish", () => {
			if (shuttingDown) server.closeIdleConnections();
		});
	});
	const ws = attachWebSocket(app, server, options.keepAliveMs ?? 12_000);
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port, options.host, () => {
			server.off("error", reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const host = options.host.includes(":") ? `[${options.host}]` : options.host;
	const url = `http://${host}:${port}/graphql`;

	let closing: Promise<void> | undefined;
	const close = (graceMs = 10_000) => {
		closing ??= (async () => {
			shuttingDown = true;
			const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
			// Subscriptions never finish on their own: end them so clients reconnect elsewhere.
			services.live.close();
			await ws.disposable.dispose();
			ws.wss.close();
			// Idle keep-alive sockets would hold close() open; busy ones finish their request first.
			server.closeIdleConnections();
			const timer = setTimeout(() => {
				logger.warn("shutdown grace period over; closing open connections", { graceMs });
				server.closeAllConnections();
			}, graceMs);
			await stopped;
			clearTimeout(timer);
			await services.close();
		})();
		return closing;
	};
	return { app, server, url, wsUrl: url.replace(/^http/, "ws"), close };
}
