/** Operations and waits shared by the live-update tests. */
import type { TestServer } from "../support/server.js";
import type { SubscriptionResult } from "./clients.js";

/** Poll `predicate` (every few ms) until it holds; fail after `ms` naming `what`. No fixed sleeps. */
export async function waitUntil(what: string, predicate: () => boolean, ms = 10_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!predicate()) {
		if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

/** The server's open subscriptions (entry streams and activity feeds). */
export const openSubscriptions = (server: TestServer) => server.services.live.subscriptionCount;

/** Wait until the server holds exactly `n` subscriptions (a subscriber is attached, or has been released). */
export const subscriptionsReach = (server: TestServer, n: number, ms = 10_000) =>
	waitUntil(
		`the server holds ${n} subscriptions (now ${openSubscriptions(server)})`,
		() => openSubscriptions(server) === n,
		ms,
	);

/** Wait until every live listener of the server is released. */
export const allReleased = (server: TestServer, ms = 10_000) =>
	waitUntil(
		"subscriptions, feeds and bus listeners return to zero " +
			`(now ${server.services.live.subscriptionCount}/${server.services.live.feedCount}/${server.services.bus.listenerCount})`,
		() =>
			server.services.live.subscriptionCount === 0 &&
			server.services.live.feedCount === 0 &&
			server.services.bus.listenerCount === 0,
		ms,
	);

export interface EventFields {
	__typename: "EntryAppended" | "LeafMoved";
	seq: number;
	leafId: string | null;
	entry?: { entryId: string; type: string; parentId: string | null };
	fromId?: string | null;
	toId?: string | null;
	leafEntry?: { entryId: string; targetId: string | null };
}

const EVENT_SELECTION = `
	__typename
	... on EntryAppended { seq leafId entry { entryId type parentId } }
	... on LeafMoved { seq fromId toId leafId leafEntry { entryId targetId } }
	... on SessionDeleted { sessionId }
`;

export const SESSION_EVENTS = `subscription SessionEvents($sessionId: String!, $afterSeq: Int) {
	sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) { ${EVENT_SELECTION} }
}`;

export const ENTRY_APPENDED = `subscription EntryAppended($sessionId: String!, $afterSeq: Int) {
	entryAppended(sessionId: $sessionId, afterSeq: $afterSeq) { __typename seq leafId entry { entryId type parentId } }
}`;

export const LEAF_MOVED = `subscription LeafMoved($sessionId: String!, $afterSeq: Int) {
	leafMoved(sessionId: $sessionId, afterSeq: $afterSeq) { __typename seq fromId toId leafId leafEntry { entryId targetId } }
}`;

export const SESSION_ACTIVITY = `subscription Activity {
	sessionActivity { kind seq at session { sessionId name lastSeq } }
}`;

export interface ActivityFields {
	kind: "CREATED" | "APPENDED" | "LEAF_MOVED" | "RENAMED";
	seq: number;
	at: string;
	session: { sessionId: string; name: string | null; lastSeq: number };
}

export type Field = "sessionEvents" | "entryAppended" | "leafMoved";

/** The event of one result; a result with errors fails the test with its message. */
export function eventOf(result: SubscriptionResult, field: Field = "sessionEvents"): EventFields {
	if (result.errors?.length) throw new Error(`subscription error: ${JSON.stringify(result.errors)}`);
	const event = (result.data as Record<string, EventFields> | null | undefined)?.[field];
	if (!event) throw new Error(`no ${field} in ${JSON.stringify(result)}`);
	return event;
}

export const seqsOf = (results: SubscriptionResult[], field: Field = "sessionEvents") =>
	results.map((r) => eventOf(r, field).seq);

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Run one operation and fail with its errors instead of returning them. */
export async function mutate<T>(
	server: TestServer,
	query: string,
	variables: Record<string, unknown>,
): Promise<T> {
	const result = await server.request<T>(query, variables);
	if (result.errors?.length || !result.data) {
		throw new Error(`operation failed: ${JSON.stringify(result.errors ?? result)}`);
	}
	return result.data;
}

export async function createSession(server: TestServer, sessionId: string): Promise<void> {
	await mutate(server, "mutation($id: String!) { createSession(input: {sessionId: $id}) { sessionId } }", {
		id: sessionId,
	});
}

export const message = (text: string) => ({ role: "user", content: text, timestamp: Date.now() });

/** appendEntry over HTTP; resolves with the stored entry's seq. */
export async function append(
	server: TestServer,
	sessionId: string,
	entryId?: string,
	text = `entry ${entryId ?? ""}`,
): Promise<{ seq: number; entryId: string }> {
	const data = await mutate<{ appendEntry: { entry: { seq: number; entryId: string } } }>(
		server,
		`mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq entryId } } }`,
		{ input: { sessionId, ...(entryId ? { entryId } : {}), entry: { message: message(text) } } },
	);
	return data.appendEntry.entry;
}

export async function moveLeaf(
	server: TestServer,
	sessionId: string,
	targetId: string | null,
	summary?: string,
): Promise<{
	leafEntry: { entryId: string; seq: number };
	summaryEntry: { entryId: string; seq: number } | null;
}> {
	const data = await mutate<{
		moveLeaf: {
			leafEntry: { entryId: string; seq: number };
			summaryEntry: { entryId: string; seq: number } | null;
		};
	}>(
		server,
		`mutation($input: MoveLeafInput!) {
			moveLeaf(input: $input) { leafEntry { entryId seq } summaryEntry { entryId seq } }
		}`,
		{ input: { sessionId, targetId, ...(summary ? { summary: { summary } } : {}) } },
	);
	return data.moveLeaf;
}

export async function rename(server: TestServer, sessionId: string, name: string): Promise<number> {
	const data = await mutate<{ renameSession: { entry: { seq: number } } }>(
		server,
		"mutation($input: RenameSessionInput!) { renameSession(input: $input) { entry { seq } } }",
		{ input: { sessionId, name } },
	);
	return data.renameSession.entry.seq;
}

/** Run `count` tasks with at most `concurrency` in flight; resolves with their results in task order. */
export async function pool<T>(
	count: number,
	concurrency: number,
	task: (i: number) => Promise<T>,
): Promise<T[]> {
	const results: T[] = new Array(count);
	let next = 0;
	const worker = async () => {
		for (let i = next++; i < count; i = next++) results[i] = await task(i);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
	return results;
}
