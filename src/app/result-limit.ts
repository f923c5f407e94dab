/**
 * Every result is measured before a transport encodes it: an operation's
 * response, and each subscription event on SSE and graphql-ws alike. A
 * result larger than the limit, or nested too deep for an encoder's stack,
 * is replaced by a LIMIT_EXCEEDED error, so that encoding can never throw
 * outside a request ("Invalid string length", stack overflow) and take the
 * process down. A subscription whose event fails ends after that error: its
 * next events would not be the ones the client is counting on. The same
 * goes for a failure the execution reports for the whole result (`failure`).
 */
import { type ExecutionResult, GraphQLError } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";

/** Far below what JSON.stringify survives, far above an operation's depth plus an entry's JSON depth. */
const MAX_RESULT_DEPTH = 256;

type Verdict = { ok: true } | { ok: false; reason: string };

/**
 * The length of `value` as JSON text, walked without recursion; stops as
 * soon as it passes `maxLength` or nests deeper than MAX_RESULT_DEPTH.
 */
export function measureJson(value: unknown, maxLength: number): Verdict {
	const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
	let length = 0;
	while (stack.length > 0) {
		const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
		if (typeof v === "string") length += v.length + 2;
		else if (v === null || typeof v !== "object") length += 8;
		else {
			if (depth >= MAX_RESULT_DEPTH)
				return { ok: false, reason: `nests deeper than ${MAX_RESULT_DEPTH} levels` };
			length += 2;
			if (Array.isArray(v)) {
				for (const item of v) stack.push({ value: item, depth: depth + 1 });
			} else {
				for (const key in v) {
					const item = (v as Record<string, unknown>)[key];
					if (item === undefined || typeof item === "function") continue;
					length += key.length + 4;
					stack.push({ value: item, depth: depth + 1 });
				}
			}
		}
		if (length > maxLength) return { ok: false, reason: `is larger than ${maxLength} bytes` };
	}
	return { ok: true };
}

function tooLarge(reason: string, what: string): ExecutionResult {
	return {
		errors: [
			new GraphQLError(
				`The ${what} ${reason} (response limit; the server's MAX_RESPONSE_BYTES): select fewer or smaller fields, or page`,
				{ extensions: { code: "LIMIT_EXCEEDED", limit: "response" } },
			),
		],
	};
}

/** A reason the execution itself gives for failing the whole result (e.g. a spent result budget). */
export type ResultFailure = (context: unknown) => GraphQLError | undefined;

interface Check {
	maxBytes: number;
	failure: ResultFailure;
	context: unknown;
}

function checked(
	result: ExecutionResult,
	{ maxBytes, failure, context }: Check,
	what: string,
): ExecutionResult {
	const failed = failure(context);
	if (failed) return { errors: [failed] };
	try {
		// Errors are small and made by us; the data is what a query can inflate.
		const verdict = measureJson(result.data, maxBytes);
		return verdict.ok ? result : tooLarge(verdict.reason, what);
	} catch (error) {
		return tooLarge(`cannot be encoded (${(error as Error).message})`, what);
	}
}

/** The source's events, each checked; after a failed one the stream ends. `return()` is passed on at once. */
function checkedStream(
	source: AsyncIterableIterator<ExecutionResult>,
	check: Check,
): AsyncIterableIterator<ExecutionResult> {
	let ended = false;
	const stream: AsyncIterableIterator<ExecutionResult> = {
		async next() {
			if (ended) return { done: true, value: undefined };
			const item = await source.next();
			if (item.done) return item;
			const value = checked(item.value, check, "subscription event");
			if (value !== item.value) {
				ended = true;
				source.return?.()?.catch(() => {});
			}
			return { done: false, value };
		},
		return: () => {
			ended = true;
			return source.return?.() ?? Promise.resolve({ done: true, value: undefined });
		},
		throw: (error) => {
			ended = true;
			return source.throw?.(error) ?? Promise.reject(error);
		},
		[Symbol.asyncIterator]: () => stream,
	};
	return stream;
}

export function useResultLimit(maxBytes: number, failure: ResultFailure = () => undefined): Plugin {
	const limit = (context: unknown, result: unknown, setResult: (r: never) => void) => {
		const check = { maxBytes, failure, context };
		if (isAsyncIterable(result)) {
			setResult(checkedStream(result as AsyncIterableIterator<ExecutionResult>, check) as never);
		} else {
			const value = checked(result as ExecutionResult, check, "response");
			if (value !== result) setResult(value as never);
		}
	};
	return {
		onExecute: ({ args }) => ({
			onExecuteDone: ({ result, setResult }) => limit(args.contextValue, result, setResult),
		}),
		onSubscribe: ({ args }) => ({
			onSubscribeResult: ({ result, setResult }) => limit(args.contextValue, result, setResult),
		}),
	};
}
