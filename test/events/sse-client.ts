/**
 * An EventSource-style SSE client for resume tests: one connection that POSTs
 * a GraphQL body (as a GraphQL-over-SSE client does), with `Last-Event-ID`
 * when resuming, and reads `event: next` frames with the last `id:` seen.
 */
import { expect } from "vitest";

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface SseEvent {
	/** The last event id after this event (EventSource's `lastEventId`). */
	lastEventId: string;
	data: {
		data?: Record<string, unknown> | null;
		errors?: Array<{ extensions?: { code?: string; field?: string } }>;
	};
}

/**
 * One EventSource connection: POSTs `body` (as a GraphQL-over-SSE client
 * does), with `Last-Event-ID` when resuming; `next()` waits (bounded) for the
 * next `event: next` frame.
 */
export function connect(fetchFn: Fetch, url: string, body: unknown, lastEventId?: string) {
	const abort = new AbortController();
	const responding = fetchFn(url, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "text/event-stream",
			...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
		},
		body: JSON.stringify(body),
		signal: abort.signal,
	});
	responding.catch(() => {});
	const decoder = new TextDecoder();
	let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
	let buffer = "";
	let last = lastEventId ?? "";
	const ready: SseEvent[] = [];

	const frame = (text: string) => {
		let event = "message";
		const data: string[] = [];
		for (const line of text.split("\n")) {
			const colon = line.indexOf(":");
			if (colon === 0) continue;
			const field = colon < 0 ? line : line.slice(0, colon);
			const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
			if (field === "event") event = value;
			else if (field === "data") data.push(value);
			else if (field === "id" && !value.includes("\0")) last = value;
		}
		if (event === "next") ready.push({ lastEventId: last, data: JSON.parse(data.join("\n")) });
	};

	return {
		async next(ms = 5_000): Promise<SseEvent> {
			const deadline = Date.now() + ms;
			for (;;) {
				const event = ready.shift();
				if (event) return event;
				if (Date.now() > deadline) throw new Error(`no SSE event within ${ms} ms`);
				if (!reader) {
					const response = await responding;
					expect(response.headers.get("content-type")).toContain("text/event-stream");
					reader = (response.body as ReadableStream<Uint8Array>).getReader();
				}
				const chunk = await Promise.race([
					reader.read(),
					new Promise<never>((_, reject) =>
						setTimeout(() => reject(new Error(`no SSE event within ${ms} ms`)), deadline - Date.now()),
					),
				]);
				if (chunk.done) throw new Error("the SSE stream ended");
				buffer += decoder.decode(chunk.value, { stream: true });
				for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
					frame(buffer.slice(0, end));
					buffer = buffer.slice(end + 2);
				}
			}
		},
		async close() {
			abort.abort();
			await reader?.cancel().catch(() => {});
		},
	};
}
