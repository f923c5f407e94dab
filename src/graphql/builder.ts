/**
 * The one SchemaBuilder: context and scalar types. Every GraphQL type lives in
 * types/*.ts with its own root fields; schema.ts imports them all.
 */
import SchemaBuilder from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { GraphQLError, Kind, type ValueNode } from "graphql";
import type { Identity, Scope } from "../auth/identity.js";
import type { LiveEvents } from "../events/live.js";
import type { PresenceHub } from "../events/presence.js";
import { assertNever } from "../session/assert-never.js";
import { type StoredEntry, typeOrOther } from "../session/entry.js";
import { isSessionError, SessionError } from "../session/errors.js";
import { kindOf } from "../session/kinds.js";
import { normalizeTimestamp } from "../session/validate.js";
import type { SessionStore } from "../store/store.js";
import type { ResultBudget } from "./budget.js";
import { decodeGlobalIdParts, encodeGlobalId, globalIdOf } from "./global-ids.js";
import type { Loaders } from "./loaders.js";

export interface GraphQLContext {
	store: SessionStore;
	/** Who is calling (see auth/identity.ts). */
	identity: Identity;
	/** The caller's tenant (`identity.workspaceId`); every store call is scoped to it. */
	workspaceId: string;
	readonly loaders: Loaders;
	live: LiveEvents;
	/** Who views which session now (events/presence.ts). */
	presence: PresenceHub;
	/** List items this operation (or this subscription event) may still resolve. */
	readonly budget: ResultBudget;
	/** The HTTP request that started the operation (Yoga's own context field); none over WebSocket. */
	readonly request?: Request;
}

/** Mutations that need the admin scope instead of write (what cannot be undone). */
export const ADMIN_FIELDS: ReadonlySet<string> = new Set(["deleteSession", "deleteWorkspaceSessions"]);

export const builder = new SchemaBuilder<{
	Context: GraphQLContext;
	Scalars: {
		DateTime: { Input: string; Output: string };
		JSON: { Input: unknown; Output: unknown };
	};
	/** Output fields are non-null unless marked `nullable: true`. */
	DefaultFieldNullability: false;
	/** The token's scopes (see auth/identity.ts). */
	AuthScopes: Record<Scope, boolean>;
	/** Relay connections: `edges: [XEdge!]!`, each edge's `node` non-null. */
	DefaultEdgesNullability: false;
	DefaultNodeNullability: false;
}>({
	defaultFieldNullability: false,
	// Scope checks first, before any other plugin's wrapper runs a resolver.
	plugins: [ScopeAuthPlugin, ComplexityPlugin, RelayPlugin],
	// Relay (Global Object Identification, cursor connections) with this API's own global ids
	// (./global-ids.ts) and cursors (store/paging.ts); `node` loads through the request's loaders.
	relay: {
		cursorType: "String",
		encodeGlobalID: encodeGlobalId,
		decodeGlobalID: decodeGlobalIdParts,
		nodeTypeOptions: {
			description: "An object with a global id (Relay Global Object Identification).",
			// A Node is a SessionRecord or a StoredEntry (refs.ts); an entry's object type is its kind's.
			resolveType: (value) =>
				typeof value === "object" && value !== null && "entry" in value
					? kindOf(typeOrOther((value as StoredEntry).entry.type)).graphqlName
					: "Session",
		},
		idFieldOptions: { description: "Opaque global id (Relay Global Object Identification)." },
		nodeQueryOptions: {
			description: "Refetch a Session or an Entry by its global id.",
			resolve: async (_root, { id }, { loaders }) => {
				const target = globalIdOf(id);
				const session = await loaders.session.load(target.sessionId);
				if (!session || target.kind === "Session") return session;
				return loaders.entry.load({ sessionId: target.sessionId, entryId: target.entryId });
			},
		},
		nodesQueryOptions: false,
		// The field returning a connection sets its cost (page size × selection); edges cost nothing more.
		edgesFieldOptions: { complexity: { field: 0, multiplier: 1 } },
	},
	scopeAuth: {
		authScopes: ({ identity }) => ({
			read: identity.scopes.has("read"),
			write: identity.scopes.has("write"),
			admin: identity.scopes.has("admin"),
		}),
		// A subscription without the scope is refused when it starts, not at its first event.
		authorizeOnSubscribe: true,
		unauthorizedError: (_parent, { identity }, info) =>
			new SessionError(
				"FORBIDDEN",
				`${info.parentType.name}.${info.fieldName} needs the ${ADMIN_FIELDS.has(info.fieldName) ? "admin" : info.parentType.name === "Mutation" ? "write" : "read"} scope; this token has ${[...identity.scopes].join(" and ") || "no scope"}`,
			),
	},
	// Field costs for the static cost check; the limit is applied as a validation rule (app/operation-limits.ts).
	complexity: { defaultComplexity: 1, defaultListMultiplier: 10 },
});

// Reads need `read`, writes need `write`: every root field, present and future, by its type.
builder.queryType({ authScopes: { read: true } });
builder.mutationType({ authScopes: { write: true } });
builder.subscriptionType({ authScopes: { read: true } });

/** The same rule as every stored timestamp (session/validate.ts), normalised to `toISOString()` form. */
function parseDateTime(value: unknown): string {
	try {
		return normalizeTimestamp(value, "DateTime");
	} catch (error) {
		// A GraphQLError keeps its code when graphql-js wraps a scalar's parse error.
		if (!isSessionError(error)) throw error;
		throw new GraphQLError(error.message, { extensions: { code: error.code } });
	}
}

builder.scalarType("DateTime", {
	description: "ISO-8601 date-time string.",
	serialize: (value) => value,
	parseValue: parseDateTime,
	parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

/**
 * A JSON literal written inline in a query, as its JS value. Not
 * graphql-scalars' GraphQLJSON: its literal parser drops an enum nested in a
 * literal (`{ x: FOO, y: 1 }` becomes `{ y: 1 }`), which would store less
 * than the client wrote; here any enum is INVALID_INPUT (test/graphql/scalars.test.ts).
 */
function jsonLiteral(ast: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
	switch (ast.kind) {
		case Kind.STRING:
		case Kind.BOOLEAN:
			return ast.value;
		case Kind.INT:
		case Kind.FLOAT:
			return Number(ast.value);
		case Kind.NULL:
			return null;
		case Kind.LIST:
			return ast.values.map((v) => jsonLiteral(v, variables));
		case Kind.OBJECT:
			return Object.fromEntries(ast.fields.map((f) => [f.name.value, jsonLiteral(f.value, variables)]));
		case Kind.VARIABLE:
			return variables?.[ast.name.value];
		case Kind.ENUM:
			throw new GraphQLError(`JSON cannot represent ${ast.kind}`, { extensions: { code: "INVALID_INPUT" } });
		default:
			return assertNever(ast, "value kind");
	}
}

builder.scalarType("JSON", {
	description: "Any JSON value.",
	serialize: (value) => value,
	parseValue: (value) => value,
	parseLiteral: (ast, variables) => jsonLiteral(ast, variables),
});
