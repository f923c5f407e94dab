/**
 * Live updates over real connections, for one backend: a listening server,
 * writers over HTTP, subscribers over SSE and WebSocket (the same tests loop
 * over both transports). Each `*.test.ts` next to this file runs it on one
 * backend: PGlite (in-process bus) or Postgres (LISTEN/NOTIFY).
 *
 * Every wait is bounded (`within` / `waitUntil`); nothing sleeps for a fixed
 * time. After each test every subscription, feed and bus listener of the
 * server must be released.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { within } from "../support/expect.js";
import { type BackendName, startTestServer, type TestServer } from "../support/server.js";
import { collect, type SubscriptionClient, type SubscriptionResult, TRANSPORTS } from "./clients.js";
import {
	type ActivityFields,
	allReleased,
	append,
	createSession,
	ENTRY_APPENDED,
	eventOf,
	LEAF_MOVED,
	moveLeaf,
	pool,
	range,
	rename,
	SESSION_ACTIVITY,
	SESSION_EVENTS,
	seqsOf,
	subscriptionsReach,
} from "./helpers.js";

const WAIT = 20_000;

export function describeSubscriptions(backend: Exclude<BackendName, "memory">): void {
	describe(`live updates over real connections (${backend})`, () => {
		let server: TestServer;
		const opened: SubscriptionClient[] = [];

		beforeAll(async () => {
			server = await startTestServer(backend);
		});

		afterAll(async () => {
			await server?.close();
		});

		afterEach(async () => {
			await Promise.all(opened.splice(0).map((c) => c.close()));
			// Nothing leaks past a test: closed clients release their listeners at once.
			await allReleased(server);
		});

		for (const transport of TRANSPORTS) {
			describe(`over ${transport.name === "sse" ? "SSE" : "WebSocket"}`, () => {
				const open = (query: string, variables?: Record<string, unknown>) => {
					const client = transport.subscribe(server, query, variables);
					opened.push(client);
					return client;
				};
				const sid = (name: string) => `${transport.name}-${name}`;

				it("50 concurrent writers, 4 subscribers: each gets seq 1..50 exactly once, in order", async () => {
					const id = sid("concurrent");
					await createSession(server, id);
					const N = 50;
					const early = range(1, 3).map(() => open(SESSION_EVENTS, { sessionId: id, afterSeq: 0 }));
					await subscriptionsReach(server, 3);
					const receiving = early.map((c) => collect(c, (r) => eventOf(r).seq >= N));

					// A fourth subscriber joins halfway through with afterSeq 0: replay, then live, no seam.
					let completed = 0;
					let late: Promise<SubscriptionResult[]> | undefined;
					const written = await within(
						WAIT,
						"50 concurrent appends",
						Promise.all(
							range(1, N).map(async (i) => {
								const entry = await append(server, id, `w${i}`);
								if (++completed === N / 2) {
									late = collect(
										open(SESSION_EVENTS, { sessionId: id, afterSeq: 0 }),
										(r) => eventOf(r).seq >= N,
									);
								}
								return entry;
							}),
						),
					);
					expect(written.map((e) => e.seq).sort((a, b) => a - b)).toEqual(range(1, N));
					const idAt = new Map(written.map((e) => [e.seq, e.entryId]));

					if (!late) throw new Error("the late subscriber was never opened");
					const all = await within(
						WAIT,
						"every subscriber to reach seq 50",
						Promise.all([...receiving, late]),
					);
					for (const results of all) {
						expect(seqsOf(results)).toEqual(range(1, N));
						const events = results.map((r) => eventOf(r));
						for (const event of events) {
							expect(event.__typename).toBe("EntryAppended");
							// The entry at each seq is the one the writer got that seq for, chained in log order.
							expect(event.entry?.entryId).toBe(idAt.get(event.seq));
							expect(event.entry?.parentId).toBe(idAt.get(event.seq - 1) ?? null);
							expect(event.leafId).toBe(event.entry?.entryId);
						}
					}
				});

				it("resumes with afterSeq after a disconnect during writes: the union is exactly 1..N", async () => {
					const id = sid("resume");
					await createSession(server, id);
					const N = 40;
					const first = open(SESSION_EVENTS, { sessionId: id, afterSeq: 0 });
					await subscriptionsReach(server, 1);
					// The second half of the writes waits until the client has resumed, so the resumed
					// subscription replays what it missed and then switches to live entries.
					let resume = () => {};
					const resumed = new Promise<void>((resolve) => {
						resume = resolve;
					});
					const writing = pool(N, 4, async (i) => {
						if (i >= N / 2) await resumed;
						await append(server, id, `r${i + 1}`);
					});
					const before = await within(
						WAIT,
						"the first 10 events",
						collect(first, (r) => eventOf(r).seq >= 10),
					);
					await first.close();
					const last = seqsOf(before).at(-1) ?? 0;
					// Reconnect at once, as a client does: the old subscription may still be tearing down.
					// No readiness wait is needed: afterSeq makes the new one replay whatever it missed.
					const second = open(SESSION_EVENTS, { sessionId: id, afterSeq: last });
					resume();
					const after = await within(
						WAIT,
						`events after ${last} up to ${N}`,
						collect(second, (r) => eventOf(r).seq >= N),
					);
					await within(WAIT, "the writers", writing);

					expect(seqsOf(before)).toEqual(range(1, last));
					expect(seqsOf(after)).toEqual(range(last + 1, N));
					expect([...seqsOf(before), ...seqsOf(after)]).toEqual(range(1, N));
				});

				it("a moveLeaf with a summary arrives as LeafMoved, then the summary's EntryAppended", async () => {
					const id = sid("move");
					await createSession(server, id);
					for (const e of ["a1", "a2", "a3"]) await append(server, id, e);
					const sub = open(SESSION_EVENTS, { sessionId: id });
					await subscriptionsReach(server, 1);
					const moved = await moveLeaf(server, id, "a1", "Tried a2 and a3; going back.");
					expect(moved.summaryEntry).not.toBeNull();
					const [leaf, summary] = (
						await within(
							WAIT,
							"the move's two events",
							collect(sub, (_, all) => all.length === 2),
						)
					).map((r) => eventOf(r));
					expect(leaf).toEqual({
						__typename: "LeafMoved",
						seq: 4,
						fromId: "a3",
						toId: "a1",
						leafId: "a1",
						leafEntry: { entryId: moved.leafEntry.entryId, targetId: "a1" },
					});
					expect(summary).toEqual({
						__typename: "EntryAppended",
						seq: 5,
						leafId: moved.summaryEntry?.entryId,
						entry: { entryId: moved.summaryEntry?.entryId, type: "BRANCH_SUMMARY", parentId: "a1" },
					});
				});

				it("a subscription to a missing session fails with NOT_FOUND and holds nothing", async () => {
					for (const query of [SESSION_EVENTS, ENTRY_APPENDED, LEAF_MOVED]) {
						const sub = open(query, { sessionId: sid("no-such-session"), afterSeq: 0 });
						const results = await within(
							WAIT,
							"the NOT_FOUND result",
							collect(sub, () => false),
						);
						expect(results).toHaveLength(1);
						expect(results[0]?.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
						expect(results[0]?.errors?.[0]?.message).toContain(sid("no-such-session"));
					}
					await allReleased(server);
				});

				it("a negative afterSeq fails with INVALID_INPUT naming afterSeq", async () => {
					const id = sid("negative");
					await createSession(server, id);
					const results = await within(
						WAIT,
						"the INVALID_INPUT result",
						collect(open(SESSION_EVENTS, { sessionId: id, afterSeq: -1 }), () => false),
					);
					expect(results).toHaveLength(1);
					expect(results[0]?.errors?.[0]?.extensions).toMatchObject({
						code: "INVALID_INPUT",
						field: "afterSeq",
					});
				});

				it("an afterSeq past the session's end fails with INVALID_INPUT instead of waiting for other entries", async () => {
					const id = sid("future");
					await createSession(server, id);
					await append(server, id, undefined, "only");
					const results = await within(
						WAIT,
						"the INVALID_INPUT result",
						collect(open(SESSION_EVENTS, { sessionId: id, afterSeq: 10 }), () => false),
					);
					expect(results).toHaveLength(1);
					expect(results[0]?.errors?.[0]?.extensions).toMatchObject({
						code: "INVALID_INPUT",
						field: "afterSeq",
					});
					expect(results[0]?.errors?.[0]?.message).toMatch(/last seq is 1/);
				});

				it("a malformed operation fails alone: other subscriptions on the connection keep going", async () => {
					const id = sid("malformed");
					await createSession(server, id);
					const healthy = open(SESSION_EVENTS, { sessionId: id, afterSeq: 0 });
					const broken = await within(
						WAIT,
						"the syntax error",
						collect(open("subscription {"), () => false),
					);
					// Yoga's code for a query that does not parse, the same over both transports.
					expect(broken[0]?.errors?.[0]?.extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
					await append(server, id, undefined, "still here");
					const results = await within(
						WAIT,
						"the entry after the malformed operation",
						collect(healthy, (_, all) => all.length >= 1),
					);
					expect(seqsOf(results)).toEqual([1]);
				});

				it("entryAppended skips leaf records and leafMoved gets only leaf records (replayed and live)", async () => {
					const id = sid("filters");
					await createSession(server, id);
					await append(server, id, "e1"); // 1
					await append(server, id, "e2"); // 2
					await moveLeaf(server, id, "e1"); // 3 leaf e2 -> e1
					const appended = open(ENTRY_APPENDED, { sessionId: id, afterSeq: 0 });
					const leafMoves = open(LEAF_MOVED, { sessionId: id, afterSeq: 0 });
					await subscriptionsReach(server, 2);
					await append(server, id, "e3"); // 4 under e1
					await moveLeaf(server, id, "e2"); // 5 leaf e3 -> e2
					await append(server, id, "e4"); // 6 under e2
					await moveLeaf(server, id, "e1"); // 7 leaf e4 -> e1
					await append(server, id, "e5"); // 8 under e1

					const [entries, moves] = await within(
						WAIT,
						"the filtered events",
						Promise.all([
							collect(appended, (r) => eventOf(r, "entryAppended").seq >= 8),
							collect(leafMoves, (r) => eventOf(r, "leafMoved").seq >= 7),
						]),
					);
					expect(entries.map((r) => eventOf(r, "entryAppended"))).toEqual(
						[
							[1, "e1", null],
							[2, "e2", "e1"],
							[4, "e3", "e1"],
							[6, "e4", "e2"],
							[8, "e5", "e1"],
						].map(([seq, entryId, parentId]) => ({
							__typename: "EntryAppended",
							seq,
							leafId: entryId,
							entry: { entryId, type: "MESSAGE", parentId },
						})),
					);
					expect(moves.map((r) => eventOf(r, "leafMoved"))).toEqual(
						[
							[3, "e2", "e1"],
							[5, "e3", "e2"],
							[7, "e4", "e1"],
						].map(([seq, fromId, toId]) => ({
							__typename: "LeafMoved",
							seq,
							fromId,
							toId,
							leafId: toId,
							leafEntry: { entryId: expect.any(String), targetId: toId },
						})),
					);
				});

				it("sessionActivity: one event per created session, append, leaf move and rename, with seq", async () => {
					const id = sid("activity");
					const other = sid("activity-other");
					const sub = open(SESSION_ACTIVITY);
					await subscriptionsReach(server, 1);
					await createSession(server, id); // CREATED 0
					await append(server, id, "x1"); // APPENDED 1
					await createSession(server, other); // CREATED 0 (another session)
					await append(server, id, "x2"); // APPENDED 2
					await moveLeaf(server, id, "x1"); // LEAF_MOVED 3
					await rename(server, id, "Renamed"); // RENAMED 4
					await moveLeaf(server, id, "x2", "a summary"); // LEAF_MOVED 5, APPENDED 6
					await append(server, other, "o1"); // APPENDED 1 (another session)

					const results = await within(
						WAIT,
						"the activity events",
						collect(sub, (r) => {
							const a = (r.data as { sessionActivity?: ActivityFields } | null)?.sessionActivity;
							return a?.session.sessionId === other && a.kind === "APPENDED";
						}),
					);
					const events = results
						.map((r) => {
							expect(r.errors).toBeUndefined();
							return (r.data as { sessionActivity: ActivityFields }).sessionActivity;
						})
						// The feed is the workspace's: an earlier test's last writes may still arrive first, when a
						// transaction elsewhere on the server held them back as this feed started (the contract allows it).
						.filter((e) => e.session.sessionId === id || e.session.sessionId === other);
					expect(events.map((e) => [e.session.sessionId, e.kind, e.seq])).toEqual([
						[id, "CREATED", 0],
						[id, "APPENDED", 1],
						[other, "CREATED", 0],
						[id, "APPENDED", 2],
						[id, "LEAF_MOVED", 3],
						[id, "RENAMED", 4],
						[id, "LEAF_MOVED", 5],
						[id, "APPENDED", 6],
						[other, "APPENDED", 1],
					]);
					const renamed = events.find((e) => e.kind === "RENAMED");
					expect(renamed?.session.name).toBe("Renamed");
					for (const e of events) expect(Number.isNaN(Date.parse(e.at))).toBe(false);
				});

				it("sessionActivity(sessionIds) shows only those sessions, each event carrying its entry, typed", async () => {
					const id = sid("activity-only");
					const skipped = sid("activity-skipped");
					const sub = open(
						`subscription ($ids: [String!]) { sessionActivity(sessionIds: $ids) {
							kind seq session { sessionId }
							entry { entryId type ... on MessageEntry { role preview usage { totalTokens } } }
						} }`,
						{ ids: [id] },
					);
					await subscriptionsReach(server, 1);
					// The skipped session is written first: were it shown, it would come first.
					await createSession(server, skipped);
					await append(server, skipped, "s1");
					await createSession(server, id);
					await append(server, id, "w1", "hello   there");
					type Activity = { sessionActivity: { kind: string } };
					const results = await within(
						WAIT,
						"the chosen session's events",
						collect(sub, (r) => (r.data as Activity | null)?.sessionActivity.kind === "APPENDED"),
					);
					expect(results.map((r) => r.data)).toEqual([
						{ sessionActivity: { kind: "CREATED", seq: 0, session: { sessionId: id }, entry: null } },
						{
							sessionActivity: {
								kind: "APPENDED",
								seq: 1,
								session: { sessionId: id },
								entry: { entryId: "w1", type: "MESSAGE", role: "user", preview: "hello there", usage: null },
							},
						},
					]);
				});

				it("without afterSeq a subscription is live only: it starts after the current end", async () => {
					const id = sid("live-only");
					await createSession(server, id);
					for (const e of ["l1", "l2", "l3"]) await append(server, id, e);
					const sub = open(SESSION_EVENTS, { sessionId: id });
					await subscriptionsReach(server, 1);
					await append(server, id, "l4");
					await append(server, id, "l5");
					const results = await within(
						WAIT,
						"the live events",
						collect(sub, (r) => eventOf(r).seq >= 5),
					);
					expect(seqsOf(results)).toEqual([4, 5]);
					expect(results.map((r) => eventOf(r).entry?.entryId)).toEqual(["l4", "l5"]);
				});
			});
		}
	});
}
