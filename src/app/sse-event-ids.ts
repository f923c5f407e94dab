/**
 * SSE events carry `id: <event id>` (a session event's seq; see
 * graphql/event-ids.ts), so that a browser's EventSource reconnects with
 * `Last-Event-ID` and the subscription resumes after the last event it got.
 *
 * Yoga's SSE writer (graphql-yoga result-processor/sse.js) writes each result
 * as `event: next` and `data: <result.stringify(result)>` and has no hook
 * for an id. Its encoder calls a result's own `stringify` when there is one
 * (as app/shared-results.ts uses to encode a shared result once), and an SSE
 * event's fields may come in any order before the blank line that ends it,
 * so each result is replaced by one whose encoding is its JSON (a single
 * line: JSON.stringify escapes newlines) followed by `\nid: <id>`. The
 * result is replaced, never changed: it may be shared by other subscribers.
 *
 * Only subscriptions over HTTP, whose streaming result Yoga can only write as
 * SSE (its multipart writer is offered for queries with @defer, not for
 * subscriptions; see use-result-processor.js); WebSocket results do not pass
 * through result processing. An event without an id (a failure) gets none.
 */
import type { ExecutionResult } from "graphql";
import { isAsyncIterable, mapAsyncIterator, type Plugin } from "graphql-yoga";
import { eventIdOf } from "../graphql/event-ids.js";

/** An SSE `id:` line ends at a line break and cannot hold U+0000; ids are seqs and cursors, never such. */
const SAFE_ID = /^[^\r\n\0]+$/;

type Encodable = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

function withEventId(result: Encodable, id: string | undefined): Encodable {
	if (id === undefined || !SAFE_ID.test(id)) return result;
	const encode = result.stringify ?? JSON.stringify;
	const replaced: Encodable = { ...result };
	Object.defineProperty(replaced, "stringify", {
		enumerable: false,
		// The original, not the copy Yoga passes in: a shared result's own stringify encodes that object once for all its subscribers.
		value: (value: ExecutionResult) =>
			`${encode.call(result, value === replaced ? result : value)}\nid: ${id}`,
	});
	return replaced;
}

export function useSseEventIds(): Plugin {
	/** The operation context of each subscription request, to read its current event id from. */
	const contexts = new WeakMap<object, object>();
	return {
		onSubscribe({ args }) {
			// Yoga's context carries the fetch Request it hands to result processing; a WebSocket's has none.
			const { request } = args.contextValue as { request?: unknown };
			if (typeof request === "object" && request !== null) contexts.set(request, args.contextValue);
		},
		onResultProcess({ request, result, setResult }) {
			const context = contexts.get(request);
			if (!context || !isAsyncIterable(result)) return;
			setResult(
				mapAsyncIterator(result as AsyncIterable<Encodable>, (value) =>
					withEventId(value, eventIdOf(context)),
				) as typeof result,
			);
		},
	};
}
