/**
 * Every result is measured before a transport encodes it: an operation's
 * response, and each subscription event on SSE and graphql-ws alike. A
 * result larger than the limit, or nested too deep for an encoder's stack,
 * is replaced by a LIMIT_EXCEEDED error, so that encoding can never throw
 * outside a request ("Invalid string length", stack overflow) and take the
 * process down. A subscription whose event fails ends after that error: its
 * next events would not be the ones the client is counting on. The same
 * goes for a failure the execution reports for the whole result (`failure`).
 *
 * An operation's data is measured by encoding it: the text is what the
 * response sends (Yoga encodes a result with its `stringify`, which splices
 * the text in), so the data is walked once, not once to measure and once to
 * encode; stored JSON passed on as text (RawJson) is written in as it
 * stands. A transport that encodes on its own (graphql-ws) encodes it again;
 * the verdict holds either way, since it was taken on the real encoding.
 * Subscription events are walked (`measureJson`) before they are encoded.
 */
import { type ExecutionResult, GraphQLError } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { type JsonText, joinJsonText, RawJson, stringifyToParts } from "../session/raw-json.js";

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
		// Stored JSON text, nested no deeper than the input limits allow (session/raw-json.ts).
		else if (v instanceof RawJson) length += v.text.length;
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

/** A result whose `stringify` (Yoga's hook for encoding it) reuses the text of its data. */
type Encodable = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/**
 * `result` as JSON, with `data` given as its text (`dataText`), keys in the
 * result's own order, as JSON.stringify would write them: only the
 * members around the data (errors, extensions: small) are encoded here.
 */
export function encodeWithData(result: ExecutionResult, dataText: string): string {
	const members: string[] = [];
	for (const [key, value] of Object.entries(result)) {
		const text = key === "data" ? dataText : JSON.stringify(value);
		// JSON.stringify leaves out undefined and functions (a `stringify` member) the same way.
		if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
	}
	return `{${members.join(",")}}`;
}

/** Nothing but `data` would be encoded (functions and undefined members are left out). */
export function onlyData(result: ExecutionResult): boolean {
	for (const [key, value] of Object.entries(result))
		if (key !== "data" && value !== undefined && typeof value !== "function") return false;
	return true;
}

/** How `{ data }` encodes around the data's own text. */
const DATA_OPEN = '{"data":';
const DATA_CLOSE = "}";

/**
 * A result's encoding in pieces (stored JSON among them as it stands);
 * joined, the result's `{"data":…}` text. `length` is the pieces' lengths
 * summed: a string's in UTF-16 units, stored bytes' in bytes.
 */
export interface EncodedParts {
	parts: readonly JsonText[];
	length: number;
}

/** The encoding of each result encodedOnce encoded, with the data it encoded. */
const encodings = new WeakMap<object, EncodedParts & { data: unknown }>();

/** The encoding of a data-only result as encodedOnce made it; undefined for any other result. */
export function encodedParts(result: ExecutionResult): EncodedParts | undefined {
	const encoded = encodings.get(result);
	// A plugin that replaced the data after the encoding gets none.
	return encoded !== undefined && encoded.data === result.data ? encoded : undefined;
}

/**
 * The operation's result, its data encoded once and measured on that text;
 * or the LIMIT_EXCEEDED result that replaces it. The text is used for the
 * response only while the result still holds the very data it encodes (a
 * plugin that replaced the data after this check gets a full encoding).
 * Encoded as `{"data":…}`, the common response (data, no errors or
 * extensions) is that text as it stands, joined from its pieces only when
 * asked for (streamed-response.ts sends the pieces instead).
 */
function encodedOnce(result: ExecutionResult, { maxBytes, failure, context }: Check): ExecutionResult {
	const failed = failure(context);
	if (failed) return { errors: [failed] };
	if (result.data === undefined || result.data === null) return result;
	const { data } = result;
	let parts: JsonText[];
	try {
		parts = stringifyToParts({ data });
	} catch (error) {
		// A string past V8's limit ("Invalid string length") or a stack overflow: nothing partial is sent.
		return tooLarge(`cannot be encoded (${(error as Error).message})`, "response");
	}
	let length = 0;
	for (const part of parts) length += part.length;
	if (length - DATA_OPEN.length - DATA_CLOSE.length > maxBytes)
		return tooLarge(`is larger than ${maxBytes} bytes`, "response");
	let text: string | undefined;
	const whole = () => {
		text ??= joinJsonText(parts);
		return text;
	};
	const encodable = result as Encodable;
	const encode = encodable.stringify ?? JSON.stringify;
	encodable.stringify = (r) => {
		if (r.data !== data) return encode(r);
		if (onlyData(r)) return whole();
		return encodeWithData(r, whole().slice(DATA_OPEN.length, whole().length - DATA_CLOSE.length));
	};
	encodings.set(encodable, { data, parts, length });
	return encodable;
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
			const value = encodedOnce(result as ExecutionResult, check);
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
