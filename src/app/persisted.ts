/**
 * Persisted operations: a client sends the SHA-256 of its query instead of
 * the query (`extensions.persistedQuery.sha256Hash`, Apollo Client's and
 * urql's persisted exchange's format).
 *
 * - Automatic (the default): a hash the server does not know is answered
 *   `PersistedQueryNotFound` (code PERSISTED_QUERY_NOT_FOUND, HTTP 200, the
 *   form both clients retry on); the client then sends the query with its
 *   hash, the server checks the hash (PERSISTED_QUERY_MISMATCH otherwise)
 *   and keeps the query. Kept queries are bounded in count and in bytes
 *   (least recently used go first): any client can register queries, so
 *   none may grow the server's memory without limit.
 * - Allow-list (PERSISTED_ONLY): only the operations of a manifest file run,
 *   asked for by hash or sent in full; anything else is PERSISTED_QUERY_NOT_FOUND
 *   (a hash) or PERSISTED_ONLY (a query), before it is parsed.
 *
 * HTTP goes through Yoga's plugins (@graphql-yoga/plugin-apq and
 * -persisted-operations); graphql-ws operations through `resolve`, with the
 * same store and list.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { useAPQ } from "@graphql-yoga/plugin-apq";
import { usePersistedOperations } from "@graphql-yoga/plugin-persisted-operations";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { ConfigError, type PersistedConfig } from "../config.js";

export function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

const NOT_FOUND = "PersistedQueryNotFound";

function notFound(): GraphQLError {
	return new GraphQLError(NOT_FOUND, { extensions: { code: "PERSISTED_QUERY_NOT_FOUND" } });
}

function notAllowed(): GraphQLError {
	return new GraphQLError(
		"This server runs only its persisted operations (PERSISTED_ONLY), and this query is not one of them",
		{ extensions: { code: "PERSISTED_ONLY" } },
	);
}

function mismatch(): GraphQLError {
	return new GraphQLError("PersistedQueryMismatch: the query's SHA-256 is not the hash sent with it", {
		extensions: { code: "PERSISTED_QUERY_MISMATCH" },
	});
}

/**
 * A manifest of allowed operations: either `{ "<sha256>": "<query>", … }`
 * (GraphQL Code Generator's persisted documents) or Apollo's
 * `{ "format": "apollo-persisted-query-manifest", "operations": [{ "id", "body" }] }`.
 * Every hash must be its query's SHA-256, so a client computing it finds it.
 */
export function readManifest(path: string): Map<string, string> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(path, "utf8"));
	} catch (error) {
		throw new ConfigError(
			`PERSISTED_OPERATIONS_FILE ${JSON.stringify(path)} is not a readable JSON file: ${(error as Error).message}`,
		);
	}
	const pairs: Array<[unknown, unknown]> =
		parsed !== null &&
		typeof parsed === "object" &&
		"operations" in parsed &&
		Array.isArray(parsed.operations)
			? parsed.operations.map((o: { id?: unknown; body?: unknown }) => [o?.id, o?.body])
			: parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
				? Object.entries(parsed)
				: [];
	const operations = new Map<string, string>();
	for (const [hash, query] of pairs) {
		if (typeof hash !== "string" || typeof query !== "string" || sha256(query) !== hash) {
			throw new ConfigError(
				`PERSISTED_OPERATIONS_FILE ${JSON.stringify(path)}: each operation needs its query and that query's SHA-256 (hex) as its id; ${JSON.stringify(String(hash)).slice(0, 80)} is not`,
			);
		}
		operations.set(hash, query);
	}
	if (operations.size === 0) {
		throw new ConfigError(`PERSISTED_OPERATIONS_FILE ${JSON.stringify(path)} lists no operations`);
	}
	return operations;
}

export interface PersistedOperations {
	readonly mode: "automatic" | "allow-list";
	/** Yoga plugins for HTTP requests; first in the pipeline, before anything parses the query. */
	plugins: Plugin[];
	/** The query a graphql-ws operation runs, or why it may not. */
	resolve(params: {
		query?: string | null | undefined;
		extensions?: Record<string, unknown> | null | undefined;
	}): string | GraphQLError;
	/** Automatic persisted queries kept now (0 with an allow-list). */
	readonly cached: number;
}

function requestedHash(extensions: Record<string, unknown> | null | undefined): string | undefined {
	const persisted = extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
	return persisted?.version === 1 && typeof persisted.sha256Hash === "string"
		? persisted.sha256Hash
		: undefined;
}

export function persistedOperations(
	config: Pick<PersistedConfig, "only" | "cacheEntries" | "cacheBytes">,
	allowed?: ReadonlyMap<string, string>,
): PersistedOperations {
	if (config.only) {
		if (!allowed) throw new ConfigError("PERSISTED_ONLY needs the operations of PERSISTED_OPERATIONS_FILE");
		return allowList(allowed);
	}
	const cache = new LRUCache<string, string>({
		max: config.cacheEntries,
		maxSize: config.cacheBytes,
		// A query larger than the whole cache is not kept: it runs, and its client keeps sending it in full.
		sizeCalculation: (query) => Math.max(1, Buffer.byteLength(query)),
	});
	const store = {
		get: (hash: string) => cache.get(hash),
		set: (hash: string, query: string) => {
			cache.set(hash, query);
		},
	};
	return {
		mode: "automatic",
		plugins: [useAPQ({ store, hash: sha256, responseConfig: { forceStatusCodeOk: true } })],
		resolve(params) {
			const hash = requestedHash(params.extensions);
			if (hash === undefined) return params.query ?? "";
			// graphql-ws requires a query string: an empty one asks by hash alone.
			if (!params.query) return cache.get(hash) ?? notFound();
			if (sha256(params.query) !== hash) return mismatch();
			store.set(hash, params.query);
			return params.query;
		},
		get cached() {
			return cache.size;
		},
	};
}

function allowList(allowed: ReadonlyMap<string, string>): PersistedOperations {
	/** A query sent in full that is on the list runs as if asked for by its hash. */
	const byText: Plugin = {
		onParams({ params, setParams }) {
			if (typeof params.query !== "string") return;
			const hash = sha256(params.query);
			if (!allowed.has(hash)) throw notAllowed();
			const { query: _sent, ...rest } = params;
			setParams({
				...rest,
				extensions: { ...params.extensions, persistedQuery: { version: 1, sha256Hash: hash } },
			});
		},
	};
	return {
		mode: "allow-list",
		plugins: [
			byText,
			usePersistedOperations({
				getPersistedOperation: (hash) => allowed.get(hash) ?? null,
				allowArbitraryOperations: false,
				customErrors: {
					notFound: () => notFound(),
					keyNotFound: () => notAllowed(),
					persistedQueryOnly: () => notAllowed(),
				},
			}),
		],
		resolve(params) {
			const hash = requestedHash(params.extensions) ?? (params.query ? sha256(params.query) : undefined);
			if (hash === undefined) return notAllowed();
			const query = allowed.get(hash);
			if (query === undefined) return params.query ? notAllowed() : notFound();
			return query;
		},
		cached: 0,
	};
}
