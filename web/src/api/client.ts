/**
 * One urql client for queries and mutations (HTTP, same origin) and one
 * graphql-ws client for subscriptions, on the page's own origin: the app is
 * served by the service it talks to, so there is no URL to configure.
 */
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import { createClient as createWsClient, type Client as WsClient } from "graphql-ws";
import { Client, cacheExchange, fetchExchange } from "urql";

const httpUrl = new URL("/graphql", window.location.href).href;
const wsUrl = httpUrl.replace(/^http/, "ws");

export const client = new Client({
	url: httpUrl,
	exchanges: [cacheExchange, fetchExchange],
	preferGetMethod: false,
	requestPolicy: "cache-and-network",
});

export type ConnectionState = "connecting" | "live" | "reconnecting";

const stateListeners = new Set<(state: ConnectionState) => void>();
let connectionState: ConnectionState = "connecting";
function setConnectionState(state: ConnectionState) {
	connectionState = state;
	for (const listener of stateListeners) listener(state);
}

export function onConnectionState(listener: (state: ConnectionState) => void): () => void {
	stateListeners.add(listener);
	listener(connectionState);
	return () => stateListeners.delete(listener);
}

export const wsClient: WsClient = createWsClient({
	url: wsUrl,
	// Never give up on a dropped connection; a page left open reconnects when the server is back.
	retryAttempts: Number.POSITIVE_INFINITY,
	shouldRetry: () => true,
	// Short waits: the server's restart or a network blip should cost a viewer a second, not ten.
	retryWait: async (retries) => {
		const ms = Math.min(250 * 2 ** retries, 5_000) + Math.random() * 250;
		await new Promise((resolve) => setTimeout(resolve, ms));
	},
	on: {
		connected: () => setConnectionState("live"),
		closed: () => setConnectionState("reconnecting"),
	},
});

export interface LiveHandlers<T> {
	next(data: T): void;
	/** A result with errors, or a subscription the server refused: the subscription has ended. */
	error(message: string, code: string | undefined): void;
}

interface ResultLike<T> {
	data?: T | null;
	errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** Codes after which subscribing again can succeed: the server restarted, the database blinked, we fell behind. */
const RETRYABLE = new Set(["UNAVAILABLE", "LIMIT_EXCEEDED", "UNAUTHENTICATED"]);

/**
 * A subscription that survives reconnects and resumes correctly.
 *
 * graphql-ws re-sends a subscription's original payload after it reconnects,
 * so a resume position passed as a plain variable would be the stale one of
 * the first subscribe, and every event since would come again (or, for a
 * position read at subscribe time, be skipped). Here `variables` is a getter,
 * called when the payload is serialised for each (re)subscribe, so it always
 * carries the caller's latest position (e.g. the last applied seq).
 *
 * The server also ends subscriptions itself (shutdown, a lagging reader);
 * such an end, or a retryable error, subscribes again after a short wait,
 * again with fresh variables. Callers must still drop events they already
 * have (by seq): the stream is at-least-once across these seams by design.
 */
export function subscribeLive<T, V extends Record<string, unknown>>(
	document: TypedDocumentNode<T, V>,
	variables: () => V,
	handlers: LiveHandlers<T>,
): () => void {
	const query = print(document);
	let stopped = false;
	let dispose: (() => void) | undefined;
	let retries = 0;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const again = () => {
		if (stopped) return;
		const ms = Math.min(250 * 2 ** retries, 5_000);
		retries++;
		timer = setTimeout(start, ms);
	};
	function start() {
		if (stopped) return;
		let ended = false;
		const payload = {
			query,
			get variables() {
				return variables();
			},
		};
		dispose = wsClient.subscribe<T>(payload, {
			next(result: ResultLike<T>) {
				if (result.errors?.length) {
					const first = result.errors[0];
					const code = first?.extensions?.code as string | undefined;
					if (result.data == null) {
						ended = true;
						dispose?.();
						if (code !== undefined && RETRYABLE.has(code)) again();
						else handlers.error(first?.message ?? "error", code);
						return;
					}
				}
				if (result.data != null) {
					retries = 0;
					handlers.next(result.data);
				}
			},
			error(error: unknown) {
				if (ended || stopped) return;
				ended = true;
				// graphql-ws reports a refused operation as a list of GraphQL errors.
				if (Array.isArray(error)) {
					const first = error[0] as { message?: string; extensions?: { code?: string } } | undefined;
					const code = first?.extensions?.code;
					if (code !== undefined && RETRYABLE.has(code)) again();
					else handlers.error(first?.message ?? "subscription refused", code);
					return;
				}
				again();
			},
			complete() {
				if (ended || stopped) return;
				ended = true;
				again();
			},
		});
	}
	start();
	return () => {
		stopped = true;
		if (timer !== undefined) clearTimeout(timer);
		dispose?.();
	};
}
