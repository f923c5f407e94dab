/**
 * A large operation result leaves in pieces of about 64 KiB, each encoded to
 * UTF-8 as the socket asks for it, instead of as one string and one buffer
 * of its whole size. A fresh multi-megabyte allocation is paid in page
 * faults and garbage collection (on this project's 2-core VMs, 2 MB of
 * fresh memory took ~5 ms, the same copy into reused memory 0.4 ms), where
 * pieces this small reuse the same memory; a slow reader holds only the
 * pieces in flight.
 *
 * Only a result that result-limit.ts encoded (it keeps the encoding's
 * pieces, stored JSON among them as it stands) and that is data alone (no
 * errors, no extensions: Yoga answers it with status 200) is streamed. Yoga
 * still chooses the status and headers: it processes a stand-in with an
 * empty body, and the response keeps its status and headers with the
 * pieces as its body.
 */
import type { ExecutionResult } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { encodedParts, onlyData } from "./result-limit.js";

/** Smaller results are sent as one string, as Yoga sends every result. */
const STREAM_FROM_CHARS = 256 * 1024;
/** About this many UTF-16 units are encoded per piece. */
const PIECE_CHARS = 64 * 1024;

/** `text` cut into pieces of at most PIECE_CHARS units, never between the two halves of a surrogate pair. */
function* slices(text: string): Generator<string> {
	let from = 0;
	while (text.length - from > PIECE_CHARS) {
		let to = from + PIECE_CHARS;
		const unit = text.charCodeAt(to - 1);
		if (unit >= 0xd800 && unit <= 0xdbff) to -= 1;
		yield text.slice(from, to);
		from = to;
	}
	yield from === 0 ? text : text.slice(from);
}

/** The parts, regrouped into pieces of about PIECE_CHARS units. */
export function* pieces(parts: readonly string[]): Generator<string> {
	let group: string[] = [];
	let length = 0;
	for (const part of parts) {
		for (const slice of slices(part)) {
			group.push(slice);
			length += slice.length;
			if (length >= PIECE_CHARS) {
				yield group.join("");
				group = [];
				length = 0;
			}
		}
	}
	if (group.length > 0) yield group.join("");
}

export function useStreamedResponses(): Plugin {
	const streamed = new WeakMap<Request, readonly string[]>();
	return {
		onResultProcess({ request, result, setResult }) {
			if (isAsyncIterable(result) || Array.isArray(result)) return;
			const parts = encodedParts(result);
			if (parts === undefined || !onlyData(result)) return;
			let chars = 0;
			for (const part of parts) chars += part.length;
			if (chars < STREAM_FROM_CHARS) return;
			streamed.set(request, parts);
			// Yoga's processor answers the stand-in with the status and headers of a data-only result.
			setResult({ data: null, stringify: () => "" } as ExecutionResult);
		},
		onResponse({ request, response, setResponse, fetchAPI }) {
			const parts = streamed.get(request);
			if (parts === undefined) return;
			const headers = new fetchAPI.Headers(response.headers);
			headers.delete("content-length");
			const encoder = new fetchAPI.TextEncoder();
			const source = pieces(parts);
			const body = new fetchAPI.ReadableStream<Uint8Array>({
				pull(controller) {
					const next = source.next();
					if (next.done) controller.close();
					else controller.enqueue(encoder.encode(next.value));
				},
			});
			setResponse(new fetchAPI.Response(body, { status: response.status, headers }));
		},
	};
}
