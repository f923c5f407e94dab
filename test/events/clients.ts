/**
 * Small real subscription clients over the two transports the server speaks,
 * behind one interface so the same tests loop over both (like graphql-ws's
 * tests/utils/tservers.ts):
 *
 * - SSE: `fetch` POST with `accept: text/event-stream` (Yoga's "distinct
 *   connections" mode: one HTTP response per subscription), parsing
 *   `event: next` / `event: complete` frames and counting `:` pings. The body
 *   is read only when the consumer asks for the next result, so a consumer
 *   that stops calling `next()` applies real TCP backpressure to the server.
 * - WebSocket: `createClient` from graphql-ws with `ws` as the implementation,
 *   one socket per subscription so closing a client closes its connection.
 *
 * A result carrying errors (e.g. NOT_FOUND, LIMIT_EXCEEDED) is yielded like
 * any other result on both transports; graphql-ws's `error` message (a
 * subscription that failed before it started) is turned into such a result.
 *
 * No vitest imports: the benchmark (bench/subscriptions.ts) uses these too.
 */
import { createClient } from "graphql-ws";
import WebSocket from "ws";

export interface ResultError {
	message: string;
	path?: Array<string | number>;
	extensions?: { code?: string; field?: string; [key: string]: unknown };
}

export interface SubscriptionResult<T = Record<string, unknown>> {
	data?: T | null;
	errors?: ResultError[];
}

export interface SubscriptionClient<T = Record<string, unknown>>
	extends AsyncIterableIterator<SubscriptionResult<T>> {
	readonly transport: TransportName;
	/**
	 * Stop reading from the connection, so the server's writes back up (TCP
	 * backpressure). SSE reads only on `next()` anyway; WebSocket pauses the
	 * socket, which also leaves the server's pings unanswered.
	 */
	pause(): void;
	resume(): void;
	/** Close the connection (the server should detach the subscription at once). */
	close(): Promise<void>;
}

export type TransportName = "sse" | "ws";

export interface Endpoint {
	url: string;
	wsUrl: string;
	/** Sent as the `Authorization` header (SSE) or `connectionParams.authorization` (WebSocket). */
	authorization?: string;
}

export interface Transport {
	readonly name: TransportName;
	subscribe<T = Record<string, unknown>>(
		endpoint: Endpoint,
		query: string,
		variables?: Record<string, unknown>,
	): SubscriptionClient<T>;
}

const done = <T>(): IteratorResult<SubscriptionResult<T>> => ({ value: undefined, done: true });

/** An SSE client that also counts keep-alive pings (`:` comment frames) it has read. */
export interface SseClient<T = Record<string, unknown>> extends SubscriptionClient<T> {
	readonly pings: number;
	/** Resolves with the HTTP status once response headers arrived (the server has subscribed). */
	readonly opened: Promise<number>;
}

export function sseSubscribe<T = Record<string, unknown>>(
	endpoint: Endpoint,
	query: string,
	variables?: Record<string, unknown>,
): SseClient<T> {
	const abort = new AbortController();
	const responding = fetch(endpoint.url, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "text/event-stream",
			...(endpoint.authorization ? { authorization: endpoint.authorization } : {}),
		},
		body: JSON.stringify({ query, variables }),
		signal: abort.signal,
	});
	// Observed by `opened` and by `next`; never an unhandled rejection when the client is closed early.
	responding.catch(() => {});
	const decoder = new TextDecoder();
	const pending: SubscriptionResult<T>[] = [];
	let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
	let buffer = "";
	let finished = false;
	let closed = false;
	let pings = 0;

	const frame = (text: string) => {
		let event = "message";
		const data: string[] = [];
		for (const line of text.split("\n")) {
			if (line.startsWith(":")) pings += 1;
			else if (line.startsWith("event:")) event = line.slice(6).trim();
			else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
		}
		if (event === "next") pending.push(JSON.parse(data.join("\n")) as SubscriptionResult<T>);
		else if (event === "complete") finished = true;
	};

	const open = async (): Promise<ReadableStreamDefaultReader<Uint8Array> | undefined> => {
		const response = await responding;
		const type = response.headers.get("content-type") ?? "";
		if (!type.includes("text/event-stream")) {
			// A request error the server answered with a plain GraphQL response.
			pending.push((await response.json()) as SubscriptionResult<T>);
			finished = true;
			return undefined;
		}
		if (!response.body) throw new Error("SSE response without a body");
		return response.body.getReader();
	};

	const opened = responding.then((r) => r.status);
	opened.catch(() => {});
	const client: SseClient<T> = {
		transport: "sse",
		get pings() {
			return pings;
		},
		opened,
		async next() {
			for (;;) {
				const value = pending.shift();
				if (value) return { value, done: false };
				if (finished || closed) return done<T>();
				try {
					if (!reader) {
						reader = await open();
						continue;
					}
					const chunk = await reader.read();
					if (chunk.done) {
						finished = true;
						continue;
					}
					buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
					for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
						frame(buffer.slice(0, end));
						buffer = buffer.slice(end + 2);
					}
				} catch (error) {
					if (closed) return done<T>();
					throw error;
				}
			}
		},
		async return() {
			await client.close();
			return done<T>();
		},
		pause() {},
		resume() {},
		async close() {
			if (closed) return;
			closed = true;
			abort.abort();
			await reader?.cancel().catch(() => {});
		},
		[Symbol.asyncIterator]() {
			return client;
		},
	};
	return client;
}

const isFormattedErrors = (value: unknown): value is ResultError[] =>
	Array.isArray(value) &&
	value.length > 0 &&
	value.every((e) => typeof e === "object" && e !== null && "message" in e);

export function wsSubscribe<T = Record<string, unknown>>(
	endpoint: Endpoint,
	query: string,
	variables?: Record<string, unknown>,
): SubscriptionClient<T> {
	let socket: WebSocket | undefined;
	/** `ws`, remembering the socket graphql-ws opens so it can be paused. */
	class TrackedWebSocket extends WebSocket {
		constructor(address: string, protocols?: string | string[]) {
			super(address, protocols);
			socket = this;
		}
	}
	const client = createClient({
		url: endpoint.wsUrl,
		webSocketImpl: TrackedWebSocket,
		...(endpoint.authorization ? { connectionParams: { authorization: endpoint.authorization } } : {}),
		retryAttempts: 0,
		lazy: true,
		lazyCloseTimeout: 0,
		// The server pings; ws answers with pongs by itself (unless paused).
		keepAlive: 0,
	});
	const pending: SubscriptionResult<T>[] = [];
	let finished = false;
	let failure: Error | undefined;
	let closed = false;
	let wake: (() => void) | undefined;
	const notify = () => {
		const w = wake;
		wake = undefined;
		w?.();
	};
	const unsubscribe = client.subscribe<T>(
		{ query, ...(variables ? { variables } : {}) },
		{
			next: (value) => {
				pending.push(value as SubscriptionResult<T>);
				notify();
			},
			error: (error) => {
				if (isFormattedErrors(error)) pending.push({ errors: error });
				else if (!closed) {
					const e = error as { code?: number; reason?: string; message?: string };
					failure = new Error(
						e.code === undefined
							? `WebSocket subscription failed: ${e.message ?? String(error)}`
							: `WebSocket closed: ${e.code} ${e.reason ?? ""}`,
					);
				}
				finished = true;
				notify();
			},
			complete: () => {
				finished = true;
				notify();
			},
		},
	);

	const subscription: SubscriptionClient<T> = {
		transport: "ws",
		async next() {
			for (;;) {
				const value = pending.shift();
				if (value) return { value, done: false };
				if (failure) throw failure;
				if (finished || closed) return done<T>();
				await new Promise<void>((resolve) => {
					wake = resolve;
				});
			}
		},
		async return() {
			await subscription.close();
			return done<T>();
		},
		pause() {
			if (socket?.readyState === WebSocket.OPEN) socket.pause();
		},
		resume() {
			socket?.resume();
		},
		async close() {
			if (closed) return;
			closed = true;
			unsubscribe();
			await client.dispose();
			notify();
		},
		[Symbol.asyncIterator]() {
			return subscription;
		},
	};
	return subscription;
}

export const SSE: Transport = { name: "sse", subscribe: sseSubscribe };
export const WS: Transport = { name: "ws", subscribe: wsSubscribe };

/** Every transport the server speaks; tests loop over this. */
export const TRANSPORTS: readonly Transport[] = [SSE, WS];

/**
 * Take results until `stop` returns true for one (inclusive) or the stream
 * ends; the caller bounds the wait (`within`).
 */
export async function collect<T>(
	client: AsyncIterator<SubscriptionResult<T>>,
	stop: (result: SubscriptionResult<T>, all: SubscriptionResult<T>[]) => boolean,
): Promise<SubscriptionResult<T>[]> {
	const all: SubscriptionResult<T>[] = [];
	for (;;) {
		const next = await client.next();
		if (next.done) return all;
		all.push(next.value);
		if (stop(next.value, all)) return all;
	}
}
