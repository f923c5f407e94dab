import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import { uniqueId, userMessage } from "../graphql/http.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { SESSION_EVENTS } from "./helpers.js";

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

interface SseEvent {
	/** The last event id after this event (EventSource's `lastEventId`). */
	lastEventId: string;
	data: {
		data?: { sessionEvents?: { seq: number } } | null;
		errors?: Array<{ extensions?: { code?: string } }>;
	};
}

/**
 * One EventSource connection: POSTs `body` (as a GraphQL-over-SSE client
 * does), with `Last-Event-ID` when resuming; `next()` waits (bounded) for the
 * next `event: next` frame.
 */
function connect(fetchFn: Fetch, url: string, body: unknown, lastEventId?: string) {
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

const seqOf = (event: SseEvent): number => {
	const seq = event.data.data?.sessionEvents?.seq;
	if (seq === undefined) throw new Error(`not a session event: ${JSON.stringify(event.data)}`);
	return seq;
};

describe("SSE resume with Last-Event-ID", () => {
	let server: TestServer;
	/** The real server's endpoint, whatever URL a case names. */
	let withIds: Fetch;

	beforeAll(async () => {
		server = await startTestServer("memory");
		withIds = (_url, init) => fetch(server.url, init);
	});
	afterAll(async () => {
		await server?.close();
	});

	const append = async (sessionId: string, n: number) => {
		for (let i = 0; i < n; i++)
			await server.services.store.appendEntry(DEFAULT_WORKSPACE, sessionId, {
				type: "message",
				message: userMessage(`m${i}`),
			});
	};
	const newSession = async () =>
		(await server.services.store.createSession(DEFAULT_WORKSPACE, { sessionId: uniqueId("sse") })).sessionId;

	it("an EventSource-style client that reconnects with Last-Event-ID gets every later seq exactly once", async () => {
		const sessionId = await newSession();
		await append(sessionId, 3);
		// The request EventSource repeats on every reconnect: afterSeq 0, stale after the first events.
		const body = { query: SESSION_EVENTS, variables: { sessionId, afterSeq: 0 } };
		const url = "http://localhost/graphql";
		const seen: number[] = [];

		const first = connect(withIds, url, body);
		for (let i = 0; i < 3; i++) seen.push(seqOf(await first.next()));
		await append(sessionId, 1);
		const fourth = await first.next();
		seen.push(seqOf(fourth));
		// Every event's id is its seq, a leaf move's included.
		expect(fourth.lastEventId).toBe("4");
		await server.services.store.moveLeaf(DEFAULT_WORKSPACE, sessionId, { targetId: null });
		const moved = await first.next();
		seen.push(seqOf(moved));
		expect(moved.lastEventId).toBe("5");
		await first.close();

		// Written while the client was away.
		await append(sessionId, 3);
		const second = connect(withIds, url, body, moved.lastEventId);
		for (let i = 0; i < 3; i++) seen.push(seqOf(await second.next()));
		await append(sessionId, 1);
		const live = await second.next();
		seen.push(seqOf(live));
		expect(live.lastEventId).toBe("9");
		await second.close();

		const third = connect(withIds, url, body, live.lastEventId);
		await append(sessionId, 1);
		seen.push(seqOf(await third.next()));
		await third.close();

		expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
	});

	it("Last-Event-ID resumes through the real server; a later afterSeq wins over an earlier header", async () => {
		const sessionId = await newSession();
		await append(sessionId, 8);
		const query = (afterSeq?: number) => ({
			query: SESSION_EVENTS,
			variables: afterSeq === undefined ? { sessionId } : { sessionId, afterSeq },
		});
		const realFetch: Fetch = (url, init) => fetch(url, init);
		const cases: Array<[number | undefined, string, number]> = [
			[0, "5", 6], // the stale argument EventSource repeats: the header wins
			[undefined, "2", 3], // no argument: the header is the position
			[7, "5", 8], // a client resuming on purpose past the header
		];
		for (const [afterSeq, header, firstSeq] of cases) {
			const client = connect(realFetch, server.url, query(afterSeq), header);
			expect(seqOf(await client.next())).toBe(firstSeq);
			await client.close();
		}
	});

	it("a Last-Event-ID that is no seq is INVALID_INPUT naming the header", async () => {
		const sessionId = await newSession();
		for (const header of ["abc", "-1", "1.5"]) {
			const client = connect(
				(url, init) => fetch(url, init),
				server.url,
				{
					query: SESSION_EVENTS,
					variables: { sessionId, afterSeq: 0 },
				},
				header,
			);
			const event = await client.next();
			expect(event.data.errors?.[0]?.extensions).toMatchObject({
				code: "INVALID_INPUT",
				field: "Last-Event-ID",
			});
			await client.close();
		}
	});
});
