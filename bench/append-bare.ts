/**
 * A generic GraphQL server for appends (bench/append-generic.ts): bare
 * graphql-yoga with its defaults (parser and validation caches, no plugins
 * of ours: no auth, limits, logs or metrics) whose `appendEntry` resolver
 * runs the raw baseline's own transaction (bench/baseline.ts: BEGIN;
 * SELECT … FOR UPDATE; INSERT; UPDATE; COMMIT) on the benchmark's database.
 * It serves the slice of our schema the benchmark's client sends, with the
 * same names and shapes, so both servers get byte-for-byte the same
 * requests:
 *
 * - `appendEntry(input: { sessionId, entry: { message } }) { entry { seq } }`
 *
 * Sessions are created by the benchmark itself (RawBaseline.createSession).
 * Env: PORT, HOST (default 127.0.0.1), DATABASE_URL. Prints "bare ready" on
 * stderr when listening.
 */
import { createServer } from "node:http";
import { GraphQLScalarType } from "graphql";
import { createSchema, createYoga } from "graphql-yoga";
import { RawBaseline } from "./baseline.js";

const typeDefs = /* GraphQL */ `
	scalar JSON
	input EntryDraft {
		message: JSON!
	}
	input AppendEntryInput {
		sessionId: String!
		entry: EntryDraft!
	}
	type Entry {
		seq: Int!
	}
	type AppendEntryPayload {
		entry: Entry!
	}
	type Query {
		ok: Boolean!
	}
	type Mutation {
		appendEntry(input: AppendEntryInput!): AppendEntryPayload!
	}
`;

interface AppendArgs {
	input: { sessionId: string; entry: { message: unknown } };
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("bench/append-bare.ts needs DATABASE_URL");
const raw = new RawBaseline(databaseUrl);
const JSONScalar = new GraphQLScalarType({ name: "JSON" });

const yoga = createYoga({
	schema: createSchema({
		typeDefs,
		resolvers: {
			JSON: JSONScalar,
			Query: { ok: () => true },
			Mutation: {
				appendEntry: async (_: unknown, { input }: AppendArgs) => ({
					entry: { seq: await raw.append("default", input.sessionId, { message: input.entry.message }) },
				}),
			},
		},
	}),
	logging: false,
});

const server = createServer(yoga);
server.listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1", () => {
	process.stderr.write("bare ready\n");
});
const stop = () => server.close(() => void raw.close().then(() => process.exit(0)));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
