/**
 * A large operation result leaves in pieces of 64 KiB, each written as the
 * socket asks for it, instead of as one string and one buffer of its whole
 * size. A fresh multi-megabyte allocation is paid in page faults and
 * garbage collection (on this project's 2-core VMs, 2 MB of fresh memory
 * took ~5 ms, the same copy into reused memory 0.4 ms); a slow reader holds
 * only the pieces in flight. Stored JSON that came as bytes (JsonText) is
 * copied into the pieces as it stands, never decoded.
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
import type { JsonText } from "../session/raw-json.js";
import { encodedParts, onlyData } from "./result-limit.js";

/** Smaller results are sent as one string, as Yoga sends every result (in EncodedParts' length). */
const STREAM_FROM = 256 * 1024;
/** The size of a piece (the last one may be shorter). */
const PIECE_BYTES = 64 * 1024;
/** A UTF-16 unit is at most this many bytes of UTF-8 (a surrogate pair is 4 bytes for 2 units). */
const MAX_BYTES_PER_UNIT = 3;

const encoder = new TextEncoder();

/** The parts as UTF-8, in pieces of PIECE_BYTES bytes (a string's characters never split between two). */
export function* pieces(parts: readonly JsonText[]): Generator<Uint8Array> {
	let piece = Buffer.allocUnsafeSlow(PIECE_BYTES);
	let used = 0;
	// Hands the full piece over and starts the next (never reused: the stream holds what it was given).
	const next = () => {
		const full = used === PIECE_BYTES ? piece : piece.subarray(0, used);
		piece = Buffer.allocUnsafeSlow(PIECE_BYTES);
		used = 0;
		return full;
	};
	// Indexed, not for…of: this loop runs per part (20,000 for a 10,000-message context) and the
	// generator's iterator results were not optimised away.
	for (let index = 0; index < parts.length; index++) {
		const part = parts[index] as JsonText;
		if (typeof part === "string") {
			// A string sure to fit is written at once; a longer one as far as it fits (encodeInto writes whole
			// characters only and says how much it read), the rest into the next pieces.
			if (part.length * MAX_BYTES_PER_UNIT <= PIECE_BYTES - used) {
				used += piece.write(part, used);
				continue;
			}
			let rest = part;
			for (;;) {
				const { read, written } = encoder.encodeInto(rest, piece.subarray(used));
				used += written;
				if (read === rest.length) break;
				rest = rest.slice(read);
				yield next();
			}
			continue;
		}
		for (let from = 0; from < part.length; ) {
			const end = Math.min(part.length, from + PIECE_BYTES - used);
			// Most stored parts fit whole (a message is far smaller than a piece): no view made for them.
			piece.set(from === 0 && end === part.length ? part : part.subarray(from, end), used);
			used += end - from;
			from = end;
			if (used === PIECE_BYTES) yield next();
		}
	}
	if (used > 0) yield piece.subarray(0, used);
}

export function useStreamedResponses(): Plugin {
	const streamed = new WeakMap<Request, readonly JsonText[]>();
	return {
		onResultProcess({ request, result, setResult }) {
			if (isAsyncIterable(result) || Array.isArray(result)) return;
			const encoded = encodedParts(result);
			if (encoded === undefined || encoded.length < STREAM_FROM || !onlyData(result)) return;
			streamed.set(request, encoded.parts);
			// Yoga's processor answers the stand-in with the status and headers of a data-only result.
			setResult({ data: null, stringify: () => "" } as ExecutionResult);
		},
		onResponse({ request, response, setResponse, fetchAPI }) {
			const parts = streamed.get(request);
			if (parts === undefined) return;
			const headers = new fetchAPI.Headers(response.headers);
			headers.delete("content-length");
			const source = pieces(parts);
			const body = new fetchAPI.ReadableStream<Uint8Array>({
				pull(controller) {
					const next = source.next();
					if (next.done) controller.close();
					else controller.enqueue(next.value);
				},
			});
			setResponse(new fetchAPI.Response(body, { status: response.status, headers }));
		},
	};
}
