/**
 * A deleted session's live subscribers, in process (memory): the stream
 * ends with SessionDeleted, drops what it had queued, and is released; a
 * deletion whose notice this instance never heard (another store on the
 * same data) ends it too, from the feed's periodic re-read.
 */
import { describe, expect, it } from "vitest";
import { InProcessBus } from "../../src/events/bus.js";
import { isSessionDeleted, type SessionStreamItem } from "../../src/events/entry-stream.js";
import { LiveEvents } from "../../src/events/live.js";
import { silentLogger } from "../../src/logger.js";
import type { DraftEntry } from "../../src/session/entry.js";
import { MemoryDatabase, MemoryStore } from "../../src/store/memory.js";
import { rejectsWithCode, within } from "../support/expect.js";
import { waitUntil } from "./helpers.js";

const WS = "default";
const user = (text: string): DraftEntry => ({
	type: "message",
	message: { role: "user", content: text, timestamp: 1 },
});

async function rest(stream: AsyncIterator<SessionStreamItem>): Promise<SessionStreamItem[]> {
	const items: SessionStreamItem[] = [];
	for (;;) {
		const next = await stream.next();
		if (next.done) return items;
		items.push(next.value);
	}
}

describe("a deleted session's live subscribers", () => {
	it("end with SessionDeleted, what they had queued dropped, and are released", async () => {
		const bus = new InProcessBus();
		const store = new MemoryStore(undefined, { onCommit: bus.publish });
		const live = new LiveEvents({ store, bus, logger: silentLogger });
		await store.createSession(WS, { sessionId: "s" });
		await store.appendEntry(WS, "s", user("one"));
		const reading = await live.sessionEntries(WS, "s", 0);
		const idle = await live.sessionEntries(WS, "s", 0);
		const first = await within(5_000, "the first entry", reading.next());
		expect(first.value).toMatchObject({ seq: 1 });
		// `idle` has the entry queued, unread, when the session goes.
		await store.appendEntry(WS, "s", user("two"));
		await store.deleteSession(WS, "s");
		for (const stream of [reading, idle])
			expect(await within(5_000, "the stream's end", rest(stream))).toEqual([
				{ deleted: true, sessionId: "s" },
			]);
		await waitUntil(
			"the subscriptions are released",
			() => live.subscriptionCount === 0 && live.feedCount === 0,
		);
		await rejectsWithCode(live.sessionEntries(WS, "s", 0), "NOT_FOUND");
	});

	it("end too when the deletion's notice never came: the feed's periodic re-read finds the session gone", async () => {
		const db = new MemoryDatabase();
		const bus = new InProcessBus();
		const watched = new MemoryStore(db, { onCommit: bus.publish });
		// Another instance on the same data, whose notices this one does not hear.
		const elsewhere = new MemoryStore(db);
		// The re-read a Postgres bus has by default, every 100 ms here.
		const live = new LiveEvents({ store: watched, bus, logger: silentLogger, safetyReadMs: 100 });
		await watched.createSession(WS, { sessionId: "quiet" });
		await watched.appendEntry(WS, "quiet", user("one"));
		const stream = await live.sessionEntries(WS, "quiet", 0);
		// Caught up: the stream waits for the feed, and reads nothing by itself.
		expect((await within(5_000, "the stored entry", stream.next())).value).toMatchObject({ seq: 1 });
		await elsewhere.deleteSession(WS, "quiet");
		const items = await within(10_000, "the stream's end", rest(stream));
		expect(items).toEqual([{ deleted: true, sessionId: "quiet" }]);
		expect(items.every(isSessionDeleted)).toBe(true);
		live.close();
	});

	it("an activity subscriber skips a session deleted between reading its records and its entries, without a failed read", async () => {
		const bus = new InProcessBus();
		const store = new MemoryStore(undefined, { onCommit: bus.publish });
		// The feed's reads of the doomed session's entries find it deleted just then.
		const racing = new Proxy(store, {
			get(target, property, receiver) {
				if (property !== "listEntries") return Reflect.get(target, property, receiver);
				return async (ws: string, sessionId: string, query: unknown) => {
					if (sessionId === "doomed" && (await target.getSession(ws, sessionId)))
						await target.deleteSession(ws, sessionId);
					return target.listEntries(ws, sessionId, query as never);
				};
			},
		});
		const warnings: string[] = [];
		const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
		const live = new LiveEvents({ store: racing, bus, logger });
		await store.createSession(WS, { sessionId: "doomed" });
		await store.createSession(WS, { sessionId: "kept" });
		const feed = await live.activityEvents(WS);
		await store.appendEntry(WS, "doomed", user("gone soon"));
		await store.appendEntry(WS, "kept", user("stays"));
		const next = await within(5_000, "the kept session's append", feed.next());
		expect(next.value).toMatchObject({ kind: "APPENDED", session: { sessionId: "kept" } });
		// Skipped at once, not after a failed read and a retry.
		expect(warnings).toEqual([]);
		await feed.return?.();
		live.close();
	});
});
