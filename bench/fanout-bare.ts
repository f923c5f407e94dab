/**
 * The fan-out benchmark's baseline server (bench/fanout.ts): bare graphql-yoga
 * with `createPubSub`, no database, no plugins of ours, in a child process of
 * its own like the real server. It serves the slice of our schema the
 * benchmark's clients use, with the same names and shapes, so both servers get
 * byte-for-byte the same requests:
 *
 * - `createSession(input: { sessionId }) { sessionId }`
 * - `appendEntry(input: { sessionId, entry: { message } }) { entry { seq } }`:
 *   numbers the entry (seq, parent = the previous one), publishes it, returns.
 * - `sessionEvents(sessionId, afterSeq)`: the union `SessionEvent` of
 *   `EntryAppended { seq leafId entry }` (entry: the `Entry` interface,
 *   resolved as `MessageEntry`) and `LeafMoved`; live events only (the
 *   benchmark subscribes to fresh sessions, so there is nothing to replay).
 *
 * The commit instant (bench/fanout-probe.ts has ours) is taken just before
 * `publish`: this server's "write" is done then. It is sent to the parent over
 * IPC as `{ kind: "commit", seq, at }`, `at` in nanoseconds of the
 * CLOCK_MONOTONIC clock (`process.hrtime.bigint()`), which the parent's own
 * receipt times share (one machine, one clock).
 *
 * Env: PORT, HOST (default 127.0.0.1). Prints "bare ready" on stderr when
 * listening.
 */
import { createServer } from "node:http";
import { GraphQLScalarType } from "graphql";
import { createPubSub, createSchema, createYoga } from "graphql-yoga";

interface BareEntry {
	seq: number;
	entryId: string;
	parentId: string | null;
	type: "MESSAGE";
	timestamp: string;
	role: string;
	message: unknown;
}

const typeDefs = /* GraphQL */ `
	scalar JSON
	scalar DateTime
	enum EntryType { MESSAGE }
	interface Entry { entryId: String! parentId: String seq: Int! timestamp: DateTime! type: EntryType! }
	type MessageEntry implements Entry {
		entryId: String! parentId: String seq: Int! timestamp: DateTime! type: EntryType!
		role: String! message: JSON!
	}
	type EntryAppended { seq: Int! entry: Entry! leafId: String }
	type LeafMoved { seq: Int! fromId: String toId: String leafId: String }
	union SessionEvent = EntryAppended | LeafMoved
	type Session { sessionId: String! lastSeq: Int! }
	type AppendEntryPayload { created: Boolean! entry: Entry! session: Session! }
	input NewEntryInput { message: JSON }
	input AppendEntryInput { sessionId: String! entry: NewEntryInput! }
	input CreateSessionInput { sessionId: String }
	type Query { session(sessionId: String!): Session }
	type Mutation {
		createSession(input: CreateSessionInput!): Session!
		appendEntry(input: AppendEntryInput!): AppendEntryPayload!
	}
	type Subscription { sessionEvents(sessionId: String!, afterSeq: Int): SessionEvent! }
`;

const identity = (value: unknown) => value;
const JSONScalar = new GraphQLScalarType({
	name: "JSON",
	serialize: identity,
	parseValue: identity,
});
const DateTime = new GraphQLScalarType({
	name: "DateTime",
	serialize: identity,
	parseValue: identity,
});

interface SessionState {
	sessionId: string;
	lastSeq: number;
	leafId: string | null;
}

const sessions = new Map<string, SessionState>();
const pubSub = createPubSub<{ [key: `session:${string}`]: [BareEntry] }>();
const report = (message: unknown) => process.send?.(message);

let ids = 0;
const newId = () => (++ids).toString(16).padStart(8, "0");

const yoga = createYoga({
	schema: createSchema({
		typeDefs,
		resolvers: {
			JSON: JSONScalar,
			DateTime,
			Entry: { __resolveType: () => "MessageEntry" },
			SessionEvent: { __resolveType: () => "EntryAppended" },
			EntryAppended: { entry: (e: BareEntry) => e, leafId: (e: BareEntry) => e.entryId },
			Query: { session: (_: unknown, args: { sessionId: string }) => sessions.get(args.sessionId) ?? null },
			Mutation: {
				createSession: (_: unknown, { input }: { input: { sessionId?: string } }) => {
					const sessionId = input.sessionId ?? newId();
					const session = { sessionId, lastSeq: 0, leafId: null };
					sessions.set(sessionId, session);
					return session;
				},
				appendEntry: (
					_: unknown,
					{ input }: { input: { sessionId: string; entry: { message?: { role?: string } } } },
				) => {
					const session = sessions.get(input.sessionId);
					if (!session) throw new Error(`Session ${input.sessionId} not found`);
					const entry: BareEntry = {
						seq: session.lastSeq + 1,
						entryId: newId(),
						parentId: session.leafId,
						type: "MESSAGE",
						timestamp: new Date().toISOString(),
						role: input.entry.message?.role ?? "user",
						message: input.entry.message ?? null,
					};
					session.lastSeq = entry.seq;
					session.leafId = entry.entryId;
					report({ kind: "commit", seq: entry.seq, at: String(process.hrtime.bigint()) });
					pubSub.publish(`session:${input.sessionId}`, entry);
					return { created: true, entry, session };
				},
			},
			Subscription: {
				sessionEvents: {
					subscribe: (_: unknown, args: { sessionId: string }) => {
						if (!sessions.has(args.sessionId)) throw new Error(`Session ${args.sessionId} not found`);
						return pubSub.subscribe(`session:${args.sessionId}`);
					},
					resolve: (entry: BareEntry) => entry,
				},
			},
		},
	}),
	graphqlEndpoint: "/graphql",
	landingPage: false,
	graphiql: false,
	logging: false,
});

const server = createServer(yoga);
server.maxConnections = 1_000_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
	process.stderr.write("bare ready\n");
});
process.once("SIGTERM", () => {
	server.closeAllConnections();
	server.close(() => process.exit(0));
});
