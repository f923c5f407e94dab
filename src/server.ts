/**
 * Serving the app on a real port: HTTP (queries, mutations, SSE
 * subscriptions) and graphql-ws WebSocket subscriptions on the same /graphql
 * path. Graceful shutdown: stop accepting, end subscriptions, let in-flight
 * requests finish, then close the store and the bus.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type DocumentNode, type ExecutionArgs, GraphQLError } from "graphql";
import type { Context, SubscribePayload } from "graphql-ws";
import { type Extra, useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { type App, type AppOptions, createApp } from "./app.js";
import type { Identity } from "./auth/identity.js";
import { DEFAULT_LIMITS, type ServerLimits } from "./config.js";
import { isGraphQLError, withRequestErrorCode } from "./graphql/errors.js";
import type { Logger } from "./logger.js";
import type { Services } from "./services.js";
import { isSessionError } from "./session/errors.js";

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

export interface ServeOptions
	extends Pick<
		AppOptions,
		"development" | "graphiql" | "corsOrigins" | "introspection" | "authenticate" | "metrics" | "persisted"
	> {
	services: Services;
	logger: Logger;
	port: number;
	host: string;
	limits?: ServerLimits;
	/** WebSocket keep-alive ping interval; a peer that misses a pong is dropped. */
	keepAliveMs?: number;
}

/**
 * The operation's own envelop `execute`/`subscribe`, carried to graphql-ws in
 * `rootValue`: graphql-ws takes one `execute`/`subscribe` for all operations,
 * but each operation gets its own pair from its `getEnveloped` call. This is
 * graphql-yoga's documented graphql-ws integration (Yoga docs, Subscriptions:
 * "GraphQL over WebSocket Protocol (via graphql-ws)"). Root fields ignore
 * their parent value, so no resolver sees it.
 */
interface ExecutorRoot {
	execute(args: ExecutionArgs): unknown;
	subscribe(args: ExecutionArgs): unknown;
}

/** Parse and validate one graphql-ws operation through Yoga's envelop; errors fail this operation only. */
async function prepareOperation(
	app: App,
	ctx: Context<Record<string, unknown> | undefined, Extra>,
	identity: Identity,
	params: SubscribePayload,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
	const { schema, execute, subscribe, contextFactory, parse, validate } = app.getEnveloped({
		...ctx,
		req: ctx.extra.request,
		socket: ctx.extra.socket,
		params,
		identity,
	});
	// Persisted operations apply to WebSocket operations too (app/persisted.ts): a hash becomes its query.
	const query = app.persisted.resolve(params);
	if (typeof query !== "string") return [query];
	let document: DocumentNode;
	try {
		document = parse(query);
	} catch (error) {
		// A bad query fails this operation only, not the connection and its other subscriptions;
		// with the code Yoga gives it over HTTP (a limit's error keeps its own).
		const syntax = isGraphQLError(error) ? error : new GraphQLError(String(error));
		if (syntax.extensions?.code !== undefined) return [syntax];
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
}

/**
 * graphql-ws runs every operation through Yoga's envelop, so plugins, limits,
 * errors and context are the same as over HTTP. The handshake is refused
 * (403) for an origin the app's policy does not allow; a message over the
 * body limit closes the socket with 1009 and a text frame that is not UTF-8
 * with 1007, as RFC 6455 defines (ws checks both before graphql-ws sees them).
 */
function attachWebSocket(app: App, server: Server, keepAliveMs: number, limits: ServerLimits) {
	const wss = new WebSocketServer({
		server,
		path: app.graphqlEndpoint,
		maxPayload: limits.bodyBytes,
		verifyClient: ({ origin, req }, done) => {
			if (app.originPolicy.allows(origin, req.headers.host)) done(true);
			else done(false, 403, "Origin not allowed");
		},
	});
	// Operations started on each connection, counted from the moment they are asked for
	// (several may be preparing at once), until they complete or fail to start.
	const operations = new WeakMap<object, Set<string>>();
	// The caller of each connection, decided once when it connects.
	const identities = new WeakMap<object, Identity>();
	const started = (ctx: object) => {
		const ids = operations.get(ctx) ?? new Set<string>();
		operations.set(ctx, ids);
		return ids;
	};
	const disposable = useServer(
		{
			execute: (args) => (args.rootValue as ExecutorRoot).execute(args) as never,
			subscribe: (args) => (args.rootValue as ExecutorRoot).subscribe(args) as never,
			// A connection without a valid token is closed with graphql-ws' 4403 Forbidden.
			onConnect: async (ctx) => {
				const authorization = ctx.connectionParams?.authorization;
				try {
					identities.set(
						ctx,
						await app.authenticate(typeof authorization === "string" ? authorization : null),
					);
					return true;
				} catch (error) {
					if (isSessionError(error, "UNAUTHENTICATED")) return false;
					throw error;
				}
			},
			onSubscribe: async (ctx, id, params) => {
				const identity = identities.get(ctx);
				if (!identity)
					return [new GraphQLError("Not connected", { extensions: { code: "UNAUTHENTICATED" } })];
				const ids = started(ctx);
				if (ids.size >= limits.subscriptionsPerConnection) {
					return [
						new GraphQLError(
							`This connection already has ${limits.subscriptionsPerConnection} open subscriptions (subscriptions per connection limit; the server's MAX_SUBSCRIPTIONS_PER_CONNECTION)`,
							{ extensions: { code: "LIMIT_EXCEEDED", limit: "subscriptionsPerConnection" } },
						),
					];
				}
				ids.add(id);
				const prepared = await prepareOperation(app, ctx, identity, params);
				if (Array.isArray(prepared)) ids.delete(id);
				return prepared;
			},
			onComplete: (ctx, id) => {
				operations.get(ctx)?.delete(id);
			},
			onError: (ctx, id) => {
				operations.get(ctx)?.delete(id);
			},
		},
		wss,
		keepAliveMs,
	);
	return { wss, disposable };
}

/** The server could not listen; its message is the whole story (no stack: nothing in this code failed). */
export class ListenError extends Error {
	override name = "ListenError";
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
	if (error.code === "EADDRINUSE") {
		return new ListenError(`port ${port} on ${host} is already in use (EADDRINUSE); set PORT to a free one`);
	}
	if (error.code === "EACCES") {
		return new ListenError(
			`no permission to listen on port ${port} on ${host} (EACCES); use a port above 1023`,
		);
	}
	if (error.code === "EADDRNOTAVAIL") {
		return new ListenError(`${host} is not an address of this machine (EADDRNOTAVAIL); check HOST`);
	}
	return error;
}

/**
 * Slow or greedy clients: headers and whole requests must arrive in time
 * (checked every second, not Node's default 30 s), idle keep-alive sockets
 * close, and connections are capped overall and per client address.
 */
function guardConnections(server: Server, limits: ServerLimits): void {
	server.headersTimeout = limits.headersTimeoutMs;
	server.requestTimeout = limits.requestTimeoutMs;
	server.keepAliveTimeout = limits.keepAliveTimeoutMs;
	server.maxConnections = limits.connections;
	const perClient = new Map<string, number>();
	server.on("connection", (socket) => {
		const address = socket.remoteAddress ?? "unknown";
		const open = (perClient.get(address) ?? 0) + 1;
		perClient.set(address, open);
		socket.once("close", () => {
			const left = (perClient.get(address) ?? 1) - 1;
			if (left <= 0) perClient.delete(address);
			else perClient.set(address, left);
		});
		if (open > limits.connectionsPerClient) socket.destroy();
	});
}

/**
 * Ends, when called at shutdown, the connections no byte of a request has
 * arrived on. Node's server counts such a connection as waiting for a
 * request, not idle, so closeIdleConnections() leaves it and close() would
 * wait out its whole grace period; clients do open them (Node's fetch, when
 * a stream it aborted gives its socket back). A connection that has received
 * anything (a request under way, a keep-alive one between requests, a
 * WebSocket) is left to the rest of the shutdown.
 */
function unusedConnections(server: Server): { end(): void } {
	const open = new Set<Socket>();
	server.on("connection", (socket: Socket) => {
		open.add(socket);
		socket.once("close", () => open.delete(socket));
	});
	return {
		end() {
			// bytesRead counts what the HTTP parser has taken from the socket, request or upgrade.
			for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
		},
	};
}

export async function serve(options: ServeOptions): Promise<RunningServer> {
	const { services, logger } = options;
	const limits = options.limits ?? DEFAULT_LIMITS;
	let shuttingDown = false;
	const app = createApp({
		services,
		logger,
		limits,
		// Draining: a load balancer stops sending new requests while in-flight ones finish.
		ready: async () => (shuttingDown ? { ready: false, reason: "shutting down" } : services.ready()),
		...(options.metrics === undefined ? {} : { metrics: options.metrics }),
		...(options.persisted === undefined ? {} : { persisted: options.persisted }),
		...(options.development === undefined ? {} : { development: options.development }),
		...(options.graphiql === undefined ? {} : { graphiql: options.graphiql }),
		...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
		...(options.introspection === undefined ? {} : { introspection: options.introspection }),
		...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
	});
	const server = createServer({ connectionsCheckingInterval: 1_000 }, app);
	guardConnections(server, limits);
	const unused = unusedConnections(server);
	// While shutting down, a keep-alive connection is closed as soon as its last response is sent.
	server.on("request", (_req, res) => {
		res.on("finish", () => {
			if (shuttingDown) server.closeIdleConnections();
		});
	});
	await new Promise<void>((resolve, reject) => {
		const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, options.port, options.host));
		server.once("error", failed);
		server.listen(options.port, options.host, () => {
			server.off("error", failed);
			resolve();
		});
	});
	// Attached once listening: the WebSocket server re-emits the HTTP server's errors, and graphql-ws
	// reports those as its own "Internal error" before the real cause (a busy port) is seen.
	const webSockets = attachWebSocket(app, server, options.keepAliveMs ?? 12_000, limits);
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
			await webSockets.disposable.dispose();
			webSockets.wss.close();
			// Idle keep-alive sockets and unused ones would hold close() open; busy ones finish their
			// request first. No connection arrives after server.close(), so this one pass ends them all.
			server.closeIdleConnections();
			unused.end();
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
