/**
 * Subscriptions. `sessionEvents` is the reliable one: every entry of a
 * session in seq order (stored ones after `afterSeq` first, then live), each
 * exactly once; a client that reconnects with the last seq it saw misses
 * nothing. The others are filtered views of it. `sessionActivity` is the
 * workspace's activity log for dashboards, resumable the same way with the
 * cursor of the last event seen.
 */
import { MAX_RECENT_WRITES } from "../../events/activity.js";
import { isSessionDeleted, type SessionDeleted, type SessionStreamItem } from "../../events/entry-stream.js";
import type { ActivityEvent } from "../../events/live.js";
import type { StoredEntry } from "../../session/entry.js";
import { SessionError } from "../../session/errors.js";
import { leafAfter } from "../../session/tree.js";
import { resetBudget } from "../budget.js";
import { builder, type GraphQLContext } from "../builder.js";
import { toGraphQLError } from "../errors.js";
import { noteEventId, resumeCursor, resumeSeq } from "../event-ids.js";
import { EntryRef, SessionRef } from "../refs.js";
import { LeafEntryRef } from "./entry-types.js";

/** A stream's failure, delivered as a last event so both transports report it the same way. */
interface StreamFailure {
	failure: unknown;
}
export type Item<T> = T | StreamFailure;
const isFailure = <T>(item: Item<T>): item is StreamFailure =>
	typeof item === "object" && item !== null && "failure" in item;

/**
 * Wraps a source: keeps items passing `keep`, turns a rejection into a final
 * StreamFailure item, and forwards `return()` at once so listeners detach
 * immediately when the client goes away.
 *
 * Written by hand rather than with Yoga's `pipe`/`filter`/`map` or a
 * `Repeater`: a Repeater starts its executor on the first `next()`, and a
 * `return()` before that finishes it without ever running the executor, so
 * the source, which holds its listeners from the moment it is opened, would
 * never be returned. That happens when a client goes away before the first
 * event is pulled (Yoga's SSE stream pulls only when the client reads; see
 * test/events/subscription-fields.test.ts). Yoga's `filter`/`map` also do not
 * wait for the source's `return()`, and a source's rejection rejects the
 * consumer's `next()` instead of arriving as the StreamFailure item both
 * transports report the same way.
 */
export function guarded<T>(
	source: AsyncIterator<T>,
	keep: (item: T) => boolean = () => true,
): AsyncIterableIterator<Item<T>> {
	let done = false;
	const iterator: AsyncIterableIterator<Item<T>> = {
		async next() {
			while (!done) {
				try {
					const result = await source.next();
					if (result.done) break;
					if (keep(result.value)) return { value: result.value, done: false };
				} catch (failure) {
					done = true;
					return { value: { failure }, done: false };
				}
			}
			done = true;
			return { value: undefined, done: true };
		},
		async return() {
			done = true;
			await source.return?.();
			return { value: undefined, done: true };
		},
		[Symbol.asyncIterator]: () => iterator,
	};
	return iterator;
}

/**
 * Notes each item's event id on the operation's context as the subscriber's
 * source yields it, for the SSE writer (graphql/event-ids.ts); a failure has none.
 */
function identified<T>(
	items: AsyncIterableIterator<Item<T>>,
	context: object,
	idOf: (item: T) => string | undefined,
): AsyncIterableIterator<Item<T>> {
	const iterator: AsyncIterableIterator<Item<T>> = {
		async next() {
			const result = await items.next();
			if (!result.done) noteEventId(context, isFailure(result.value) ? undefined : idOf(result.value));
			return result;
		},
		return: () => items.return?.() ?? Promise.resolve({ value: undefined, done: true }),
		[Symbol.asyncIterator]: () => iterator,
	};
	return iterator;
}

/**
 * A session's entries after the resume point (argument or Last-Event-ID),
 * each event identified by its seq. A deleted session's stream ends with
 * SessionDeleted (which has no id); `keep` picks entries, and `final`
 * whether that last event is sent (the filtered views just end).
 */
async function entryEvents(
	context: GraphQLContext,
	sessionId: string,
	afterSeq: number | null | undefined,
	keep: (entry: StoredEntry) => boolean = () => true,
	final = true,
): Promise<AsyncIterableIterator<Item<SessionStreamItem>>> {
	const { live, workspaceId } = context;
	const from = resumeSeq(afterSeq, context);
	const items = guarded(await live.sessionEntries(workspaceId, sessionId, from), (item) =>
		isSessionDeleted(item) ? final : keep(item),
	);
	return identified(items, context, (item) => (isSessionDeleted(item) ? undefined : String(item.seq)));
}

/**
 * Each event is resolved with empty loader caches (labels and sessions change
 * between events) and a full result budget of its own. The operation's context
 * keeps its objects; only their state starts over.
 */
export function eventPayload<T>(item: Item<T>, context: GraphQLContext): T {
	if (isFailure(item)) {
		const { failure } = item;
		throw failure instanceof SessionError ? toGraphQLError(failure) : failure;
	}
	context.loaders.clear();
	resetBudget(context.budget);
	return item;
}

const EntryAppendedRef = builder.objectRef<StoredEntry>("EntryAppended").implement({
	isTypeOf: (e) => (e as StoredEntry).entry?.type !== "leaf",
	fields: (t) => ({
		seq: t.int({ resolve: (e) => e.seq }),
		entry: t.field({ type: EntryRef, resolve: (e) => e }),
		leafId: t.string({
			nullable: true,
			description: "The session's leaf pointer after this entry.",
			resolve: (e) => leafAfter(e.entry),
		}),
	}),
});

const LeafMovedRef = builder.objectRef<StoredEntry>("LeafMoved").implement({
	isTypeOf: (e) => (e as StoredEntry).entry?.type === "leaf",
	fields: (t) => ({
		seq: t.int({ resolve: (e) => e.seq }),
		leafEntry: t.field({ type: LeafEntryRef, resolve: (e) => e }),
		fromId: t.string({
			nullable: true,
			description: "The leaf before the move.",
			resolve: (e) => e.entry.parentId,
		}),
		toId: t.string({ nullable: true, description: "The move's target.", resolve: (e) => leafAfter(e.entry) }),
		author: t.string({
			nullable: true,
			description:
				"Who moved the leaf: subject of the token that wrote the leaf record; null when written without authentication.",
			resolve: (e) => e.author,
		}),
		leafId: t.string({
			nullable: true,
			description: "The session's leaf pointer after the move.",
			resolve: (e) => leafAfter(e.entry),
		}),
	}),
});

const SessionDeletedRef = builder.objectRef<SessionDeleted>("SessionDeleted").implement({
	description:
		"The session was deleted (deleteSession): the last event of its stream, which then ends. Nothing of it can be read again; resubscribing is NOT_FOUND.",
	isTypeOf: (e) => typeof e === "object" && e !== null && "deleted" in e,
	fields: (t) => ({ sessionId: t.exposeString("sessionId") }),
});

const SessionEventUnion = builder.unionType("SessionEvent", {
	types: [EntryAppendedRef, LeafMovedRef, SessionDeletedRef],
	resolveType: (e) =>
		isSessionDeleted(e) ? SessionDeletedRef : e.entry.type === "leaf" ? LeafMovedRef : EntryAppendedRef,
});

const ActivityKindEnum = builder.enumType("ActivityKind", {
	values: ["CREATED", "APPENDED", "LEAF_MOVED", "RENAMED"] as const,
});

const SessionActivityRef = builder.objectRef<ActivityEvent>("SessionActivity").implement({
	fields: (t) => ({
		cursor: t.string({
			description:
				"This event's place in the workspace's activity log: subscribe with afterCursor set to it to get every later event once (over SSE it is the event's id, sent back as Last-Event-ID).",
			resolve: (a) => a.position.cursor,
		}),
		kind: t.field({ type: ActivityKindEnum, resolve: (a) => a.kind }),
		session: t.field({ type: SessionRef, resolve: (a) => a.session }),
		seq: t.exposeInt("seq"),
		at: t.field({ type: "DateTime", resolve: (a) => a.at }),
		entry: t.field({
			type: EntryRef,
			nullable: true,
			description:
				"The entry this event announces, typed (a MessageEntry has role, model, usage, preview): a feed needs no other request. Null for CREATED.",
			resolve: (a) => a.entry,
		}),
	}),
});

builder.subscriptionFields((t) => ({
	sessionEvents: t.field({
		type: SessionEventUnion,
		description:
			"Every entry of one session in seq order: first those with seq > afterSeq already stored, then live ones, each exactly once, without gaps.",
		args: {
			sessionId: t.arg.string({ required: true }),
			afterSeq: t.arg.int({
				description:
					"Resume after this seq; default: only entries appended from now on. Over SSE, a Last-Event-ID header (an event's id: its seq) resumes after that seq when it is later.",
			}),
		},
		subscribe: (_, { sessionId, afterSeq }, context) => entryEvents(context, sessionId, afterSeq),
		resolve: (item: Item<SessionStreamItem>, _args, context) => eventPayload(item, context),
	}),
	entryAppended: t.field({
		type: EntryAppendedRef,
		description: "Like sessionEvents, without leaf moves.",
		args: { sessionId: t.arg.string({ required: true }), afterSeq: t.arg.int() },
		subscribe: (_, { sessionId, afterSeq }, context) =>
			entryEvents(context, sessionId, afterSeq, (e) => e.entry.type !== "leaf", false),
		resolve: (item: Item<SessionStreamItem>, _args, context) => eventPayload(item, context) as StoredEntry,
	}),
	leafMoved: t.field({
		type: LeafMovedRef,
		description: "Like sessionEvents, leaf moves only.",
		args: { sessionId: t.arg.string({ required: true }), afterSeq: t.arg.int() },
		subscribe: (_, { sessionId, afterSeq }, context) =>
			entryEvents(context, sessionId, afterSeq, (e) => e.entry.type === "leaf", false),
		resolve: (item: Item<SessionStreamItem>, _args, context) => eventPayload(item, context) as StoredEntry,
	}),
	sessionActivity: t.field({
		type: SessionActivityRef,
		description:
			"Activity across all sessions the caller may read (dashboards), one event per change, in the workspace's activity log order: first those after afterCursor already committed, then live ones, each exactly once.",
		args: {
			afterCursor: t.arg.string({
				description:
					"Resume after this event's cursor; default: only activity from now on. Over SSE, a Last-Event-ID header (an event's id: its cursor) resumes after that event when it is later.",
			}),
			sessionIds: t.arg.stringList({ description: "Only these sessions' activity; default: every session." }),
			last: t.arg.int({
				description: `Without afterCursor (and Last-Event-ID): begin with the events of the workspace's last \`last\` writes (at most ${MAX_RECENT_WRITES}), then go on live, so a feed opens with what happened recently.`,
			}),
		},
		subscribe: async (_, { afterCursor, sessionIds, last }, context) => {
			const { live, workspaceId } = context;
			const from = resumeCursor(afterCursor, context);
			const events = await live.activityEvents(workspaceId, {
				afterCursor: from ?? null,
				sessionIds: sessionIds ?? null,
				last: last ?? null,
			});
			return identified(guarded(events), context, (a) => a.position.cursor);
		},
		resolve: (item: Item<ActivityEvent>, _args, context) => eventPayload(item, context),
	}),
}));
