import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import { uniqueId, userMessage } from "../graphql/http.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { SESSION_EVENTS } from "./helpers.js";
import { connect, type Fetch, type SseEvent } from "./sse-client.js";

const seqOf = (event: SseEvent): number => {
	const seq = (event.data.data?.sessionEvents as { seq?: number } | undefined)?.seq;
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
