/**
 * Who is calling, decided once per HTTP request (the `Authorization`
 * header, SSE included) and once per WebSocket connection (graphql-ws'
 * `connectionParams.authorization`, checked in `onConnect`). A request
 * whose token does not verify never reaches GraphQL: HTTP 401 with
 * `WWW-Authenticate: Bearer`, or the WebSocket closed with 4403. A live
 * subscription ends with UNAUTHENTICATED when the token it started with
 * expires; the client renews its token and resumes with `afterSeq`.
 */
import { type ExecutionResult, GraphQLError } from "graphql";
import { createGraphQLError, isAsyncIterable, type Plugin } from "graphql-yoga";
import type { Identity } from "../auth/identity.js";
import { isSessionError } from "../session/errors.js";

/** Turns an `Authorization` value (`Bearer <token>`, or nothing) into the caller's identity, or UNAUTHENTICATED. */
export type Authenticate = (authorization: unknown) => Promise<Identity>;

export async function requestIdentity(authenticate: Authenticate, request: Request): Promise<Identity> {
	try {
		return await authenticate(request.headers.get("authorization"));
	} catch (error) {
		// The signing keys could not be fetched (AUTH_JWKS_URL): not the token's fault, retry later.
		if (isSessionError(error, "UNAVAILABLE")) {
			throw createGraphQLError(error.message, { extensions: { code: "UNAVAILABLE", http: { status: 503 } } });
		}
		if (!isSessionError(error, "UNAUTHENTICATED")) throw error;
		throw createGraphQLError(error.message, {
			extensions: {
				code: "UNAUTHENTICATED",
				http: { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="session-tree"' } },
			},
		});
	}
}

function expired(): ExecutionResult {
	return {
		errors: [
			new GraphQLError(
				"The token this subscription was started with has expired: renew it and resubscribe (with afterSeq, nothing is missed)",
				{ extensions: { code: "UNAUTHENTICATED" } },
			),
		],
	};
}

/** The source's events until `deadline`; then one UNAUTHENTICATED result and the end. `return()` is passed on at once. */
function untilExpiry(
	source: AsyncIterableIterator<ExecutionResult>,
	deadline: number,
): AsyncIterableIterator<ExecutionResult> {
	let ended = false;
	let timer: NodeJS.Timeout | undefined;
	const expiry = new Promise<"expired">((resolve) => {
		// A timer holds at most 2^31-1 ms: re-armed until the deadline has passed.
		const arm = () => {
			const left = deadline - Date.now();
			if (left <= 0) return resolve("expired");
			timer = setTimeout(arm, Math.min(left, 2 ** 31 - 1));
			timer.unref();
		};
		arm();
	});
	const finish = () => {
		ended = true;
		clearTimeout(timer);
	};
	const stream: AsyncIterableIterator<ExecutionResult> = {
		async next() {
			if (ended) return { done: true, value: undefined };
			const pending = source.next();
			const next = await Promise.race([pending, expiry]);
			if (next === "expired") {
				finish();
				// The source's next() lost the race: whatever it settles with, nobody waits for it any more.
				pending.catch(() => {});
				source.return?.()?.catch(() => {});
				return { done: false, value: expired() };
			}
			if (next.done) finish();
			return next;
		},
		return: () => {
			finish();
			return source.return?.() ?? Promise.resolve({ done: true, value: undefined });
		},
		throw: (error) => {
			finish();
			return source.throw?.(error) ?? Promise.reject(error);
		},
		[Symbol.asyncIterator]: () => stream,
	};
	return stream;
}

export function useTokenExpiry(): Plugin {
	return {
		onSubscribe: ({ args }) => ({
			onSubscribeResult: ({ result, setResult }) => {
				const { identity } = args.contextValue as { identity?: Identity };
				if (!isAsyncIterable(result) || !identity || identity.expiresAt === null) return;
				setResult(untilExpiry(result as AsyncIterableIterator<ExecutionResult>, identity.expiresAt) as never);
			},
		}),
	};
}
