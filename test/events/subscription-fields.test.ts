/**
 * The subscription fields themselves, run by graphql-js against the served
 * schema (no transport): a client that goes away before the first event is
 * pulled releases every listener at once, and each event resolves with empty
 * loader caches and a full result budget of its own.
 */
import { type ExecutionResult, parse, subscribe } from "graphql";
import { describe, expect, it } from "vitest";
import { anonymousIdentity } from "../../src/auth/identity.js";
import { InProcessBus } from "../../src/events/bus.js";
import { LiveEvents } from "../../src/events/live.js";
import { PresenceHub } from "../../src/events/presence.js";
import { InProcessPresenceTransport } from "../../src/events/presence-transport.js";
import { resultBudget } from "../../src/graphql/budget.js";
import type { GraphQLContext } from "../../src/graphql/builder.js";
import { createLoaders } from "../../src/graphql/loaders.js";
import { schema } from "../../src/graphql/schema.js";
import { silentLogger } from "../../src/logger.js";
import type { DraftEntry } from "../../src/session/entry.js";
import { MemoryStore } from "../../src/store/memory.js";
import { within } from "../support/expect.js";

const WS_ID = "default";

const user = (id: string): DraftEntry => ({
	type: "message",
	id,
	message: { role: "user", content: id, timestamp: 1_764_000_000_000 },
});

function setup(resultItems = 1000) {
	const bus = new InProcessBus();
	const store = new MemoryStore(undefined, { onCommit: bus.publish });
	const live = new LiveEvents({ store, bus, logger: silentLogger });
	const context: GraphQLContext = {
		store,
		live,
		presence: new PresenceHub({ transport: new InProcessPresenceTransport(), logger: silentLogger }),
		identity: anonymousIdentity(WS_ID),
		workspaceId: WS_ID,
		loaders: createLoaders(store, WS_ID),
		budget: resultBudget(resultItems),
	};
	const open = async (query: string) => {
		const result = await subscribe({ schema, document: parse(query), contextValue: context });
		if (!(Symbol.asyncIterator in result)) throw new Error(`not a stream: ${JSON.stringify(result)}`);
		return result as AsyncGenerator<ExecutionResult>;
	};
	return { bus, store, live, open, context };
}

describe("subscription fields", () => {
	it.each([
		`subscription { sessionEvents(sessionId: "s", afterSeq: 0) { __typename } }`,
		`subscription { entryAppended(sessionId: "s") { seq } }`,
		`subscription { leafMoved(sessionId: "s") { seq } }`,
		"subscription { sessionActivity { seq } }",
	])("a client gone before the first event is pulled releases the listeners at once: %s", async (query) => {
		const { bus, store, live, open } = setup();
		await store.createSession(WS_ID, { sessionId: "s" });
		const stream = await open(query);
		expect(live.subscriptionCount).toBe(1);
		expect(bus.listenerCount).toBe(1);
		await stream.return(undefined);
		expect([live.subscriptionCount, live.feedCount, bus.listenerCount]).toEqual([0, 0, 0]);
	});

	it("each event sees the state after it, not what an earlier event cached", async () => {
		const { store, open } = setup();
		await store.createSession(WS_ID, { sessionId: "s", name: "before" });
		const stream = await open(
			`subscription { entryAppended(sessionId: "s") { seq entry { session { name } } } }`,
		);
		const first = stream.next();
		await store.appendEntry(WS_ID, "s", user("a"));
		expect((await within(5_000, "the first event", first)).value?.data).toEqual({
			entryAppended: { seq: 1, entry: { session: { name: "before" } } },
		});
		// The rename is itself an entry (session_info), so it is the next event.
		await store.renameSession(WS_ID, "s", "after");
		expect((await within(5_000, "the rename's event", stream.next())).value?.data).toEqual({
			entryAppended: { seq: 2, entry: { session: { name: "after" } } },
		});
		await stream.return(undefined);
	});

	it("each event has the whole result budget: three events of 1, 2 and 3 path entries under a budget of 3", async () => {
		const { store, open } = setup(3);
		await store.createSession(WS_ID, { sessionId: "s" });
		const stream = await open(
			`subscription { entryAppended(sessionId: "s") { seq entry { session { branch { entryId } } } } }`,
		);
		const branches: string[][] = [];
		for (const id of ["a", "b", "c"]) {
			const event = stream.next();
			await store.appendEntry(WS_ID, "s", user(id));
			const { value } = await within(5_000, `the event of ${id}`, event);
			const data = value?.data as {
				entryAppended: { entry: { session: { branch: { entryId: string }[] } } };
			};
			branches.push(data.entryAppended.entry.session.branch.map((e) => e.entryId));
		}
		expect(branches).toEqual([["a"], ["a", "b"], ["a", "b", "c"]]);
		await stream.return(undefined);
	});

	it("serves pi 1.6's entry types live, typed, and a type it does not know as OtherEntry", async () => {
		const { store, open } = setup();
		await store.createSession(WS_ID, { sessionId: "s" });
		await store.appendEntry(WS_ID, "s", user("u"));
		const stream = await open(
			`subscription { entryAppended(sessionId: "s") {
				entry { __typename type typeName ... on UsageEntry { kind } ... on ContextEditEntry { targetId omits } }
			} }`,
		);
		const drafts: DraftEntry[] = [
			{ type: "usage", kind: "cache_warm", provider: "p", model: "m", usage: { input: 1 } },
			{ type: "context_edit", targetId: "u", replacement: null },
			{ type: "checkpoint", files: [] } as DraftEntry,
		];
		const seen: unknown[] = [];
		for (const draft of drafts) {
			const event = stream.next();
			await store.appendEntry(WS_ID, "s", draft);
			seen.push((await within(5_000, `the event of a ${draft.type}`, event)).value?.data);
		}
		expect(seen).toEqual([
			{
				entryAppended: {
					entry: { __typename: "UsageEntry", type: "USAGE", typeName: "usage", kind: "cache_warm" },
				},
			},
			{
				entryAppended: {
					entry: {
						__typename: "ContextEditEntry",
						type: "CONTEXT_EDIT",
						typeName: "context_edit",
						targetId: "u",
						omits: true,
					},
				},
			},
			{ entryAppended: { entry: { __typename: "OtherEntry", type: "OTHER", typeName: "checkpoint" } } },
		]);
		await stream.return(undefined);
	});

	it("sessionActivity(last:) begins with the last writes' events, then goes on live; more than 100 is refused", async () => {
		const { store, open, context } = setup();
		await store.createSession(WS_ID, { sessionId: "s" });
		for (const id of ["a", "b", "c", "d"]) await store.appendEntry(WS_ID, "s", user(id));
		const stream = await open(`subscription { sessionActivity(last: 2) { kind seq } }`);
		const next = async () => (await within(5_000, "an activity event", stream.next())).value?.data;
		expect([await next(), await next()]).toEqual([
			{ sessionActivity: { kind: "APPENDED", seq: 3 } },
			{ sessionActivity: { kind: "APPENDED", seq: 4 } },
		]);
		const live = next();
		await store.appendEntry(WS_ID, "s", user("e"));
		expect(await live).toEqual({ sessionActivity: { kind: "APPENDED", seq: 5 } });
		await stream.return(undefined);
		// Asked for more writes than there are: all of them, the creation first.
		const all = await open(`subscription { sessionActivity(last: 50) { kind seq } }`);
		expect((await within(5_000, "the first event", all.next())).value?.data).toEqual({
			sessionActivity: { kind: "CREATED", seq: 0 },
		});
		await all.return(undefined);
		const refused = await subscribe({
			schema,
			document: parse(`subscription { sessionActivity(last: 101) { seq } }`),
			contextValue: context,
		});
		expect(JSON.stringify(refused)).toContain("last: must be an integer from 0 to 100");
	});
});
