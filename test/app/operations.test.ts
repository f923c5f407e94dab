/**
 * What an operator and a client library see of the running server, through
 * a real listening server on the memory backend: Prometheus text at
 * /metrics whose counters move with requests, appends and subscriptions on
 * both transports; /health/live and /health/ready; one JSON log line per
 * request with its id (the caller's `x-request-id` when sane, echoed back),
 * operation, workspace, duration and error codes; automatic persisted
 * queries the way Apollo Client and urql send them, with a bounded cache;
 * and the allow-list mode (PERSISTED_ONLY).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
	type PersistedOperations,
	persistedOperations,
	readManifest,
	sha256,
} from "../../src/app/persisted.js";
import { MAX_OPERATION_NAMES } from "../../src/app/prometheus.js";
import { ConfigError, DEFAULT_PERSISTED, loadConfig, persistedConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { type RunningServer, serve } from "../../src/server.js";
import { openServices } from "../../src/services.js";
import { sseSubscribe, wsSubscribe } from "../events/clients.js";
import { within } from "../support/expect.js";
import type { GraphQLResponse } from "../support/server.js";

interface Server {
	running: RunningServer;
	url: string;
	wsUrl: string;
	origin: string;
	/** Parsed JSON log lines so far. */
	log: Array<Record<string, unknown>>;
	close(): Promise<void>;
}

async function start(options: { persisted?: PersistedOperations } = {}): Promise<Server> {
	const log: Array<Record<string, unknown>> = [];
	const logger = createLogger("info", (line) => log.push(JSON.parse(line)), "json");
	const services = await openServices({ backend: "memory" }, logger);
	const running = await serve({
		services,
		logger,
		port: 0,
		host: "127.0.0.1",
		development: false,
		...(options.persisted ? { persisted: options.persisted } : {}),
	});
	return {
		running,
		url: running.url,
		wsUrl: running.wsUrl,
		origin: new URL(running.url).origin,
		log,
		close: () => running.close(2_000),
	};
}

async function post(
	server: Server,
	body: Record<string, unknown>,
	headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: GraphQLResponse }> {
	const response = await fetch(server.url, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...headers },
		body: JSON.stringify(body),
	});
	return {
		status: response.status,
		headers: response.headers,
		body: (await response.json()) as GraphQLResponse,
	};
}

/**
 * Prometheus' text format (0.0.4), strictly: `# HELP`/`# TYPE` lines, and
 * samples `name{label="value",…} number`; anything else fails. Returns each
 * series (name and labels as written) with its value.
 */
function parseExposition(text: string): Map<string, number> {
	const series = new Map<string, number>();
	const typed = new Set<string>();
	for (const line of text.split("\n")) {
		if (line === "") continue;
		const type = /^# TYPE ([a-zA-Z_:][\w:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
		if (type) {
			typed.add(type[1] as string);
			continue;
		}
		if (/^# HELP [a-zA-Z_:][\w:]* .*$/.test(line)) continue;
		// A value is a Go float: NaN in any case (prom-client writes an empty summary's mean as "Nan").
		const sample =
			/^([a-zA-Z_:][\w:]*)(\{(?:[a-zA-Z_]\w*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|[Nn]a[Nn]|\+Inf|-Inf))$/.exec(
				line,
			);
		expect(sample, `not a Prometheus line: ${line}`).not.toBeNull();
		const [, name, labels, value] = sample as unknown as [string, string, string | undefined, string];
		const family = name.replace(/_(bucket|sum|count)$/, "");
		expect(typed.has(name) || typed.has(family), `${name} has no # TYPE`).toBe(true);
		series.set(`${name}${labels ?? ""}`, Number(value));
	}
	return series;
}

async function scrape(server: Server): Promise<Map<string, number>> {
	const response = await fetch(`${server.origin}/metrics`);
	expect(response.status).toBe(200);
	expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
	return parseExposition(await response.text());
}

/** One graphql-ws operation with any payload (hash-only included); its first result, or its error as a result. */
async function wsOnce(
	server: Server,
	payload: { query: string; extensions?: Record<string, unknown> },
): Promise<GraphQLResponse> {
	const client = createClient({ url: server.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0 });
	try {
		return await within(
			5_000,
			"the graphql-ws result",
			new Promise<GraphQLResponse>((resolve, reject) => {
				client.subscribe(payload, {
					next: (result) => resolve(result as GraphQLResponse),
					error: (error) =>
						Array.isArray(error) ? resolve({ errors: error } as GraphQLResponse) : reject(error),
					complete: () => {},
				});
			}),
		);
	} finally {
		await client.dispose();
	}
}

const create = (id: string) =>
	`mutation Create { createSession(input: { sessionId: "${id}" }) { sessionId } }`;
const append = (id: string, entryId: string) =>
	`mutation Append { appendEntry(input: { sessionId: "${id}", entryId: "${entryId}", entry: { message: { role: "user", content: "hi", timestamp: 1 } } }) { entry { seq } } }`;
const events = (id: string) =>
	`subscription Watch { sessionEvents(sessionId: "${id}", afterSeq: 0) { ... on EntryAppended { seq } } }`;

describe("metrics, health and request logs", () => {
	let server: Server;
	beforeAll(async () => {
		server = await start();
	});
	afterAll(() => server?.close());

	it("/metrics is Prometheus text whose counters move with queries, appends and errors", async () => {
		const before = await scrape(server);
		const ok = '{transport="http",type="mutation",operation="Append",code="OK"}';
		expect(before.get(`session_tree_graphql_operations_total${ok}`) ?? 0).toBe(0);

		expect((await post(server, { query: create("m1") })).body.errors).toBeUndefined();
		expect((await post(server, { query: append("m1", "e1") })).body.errors).toBeUndefined();
		expect((await post(server, { query: append("m1", "e2") })).body.errors).toBeUndefined();
		const missing = await post(server, { query: append("no-such-session", "e1") });
		expect(missing.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
		const invalid = await post(server, { query: "query Broken { nope }" });
		expect(invalid.body.errors?.[0]?.extensions?.code).toBeDefined();

		const after = await scrape(server);
		expect(after.get(`session_tree_graphql_operations_total${ok}`)).toBe(2);
		expect(
			after.get(
				'session_tree_graphql_operations_total{transport="http",type="mutation",operation="Append",code="NOT_FOUND"}',
			),
		).toBe(1);
		expect(
			after.get(
				'session_tree_graphql_errors_total{transport="http",type="mutation",operation="Append",code="NOT_FOUND"}',
			),
		).toBe(1);
		expect(after.get('session_tree_mutations_total{field="appendEntry",code="OK"}')).toBe(2);
		expect(after.get('session_tree_mutations_total{field="appendEntry",code="NOT_FOUND"}')).toBe(1);
		expect(
			after.get(
				'session_tree_graphql_operation_duration_seconds_count{transport="http",type="mutation",operation="Append"}',
			),
		).toBe(3);
		// The pipeline's phases, from Yoga's Prometheus plugin, labelled like the rest: three appends executed.
		expect(
			after.get(
				'session_tree_graphql_execute_seconds_count{transport="http",type="mutation",operation="Append"}',
			),
		).toBe(3);
		for (const phase of ["parse", "validate"])
			expect(
				after.get(
					`session_tree_graphql_${phase}_seconds_count{transport="http",type="mutation",operation="Append"}`,
				) ?? 0,
				phase,
			).toBeGreaterThanOrEqual(1);
		// The request that failed validation is counted without an operation type.
		const unknown = [...after.keys()].filter(
			(k) => k.startsWith("session_tree_graphql_operations_total") && k.includes('type="unknown"'),
		);
		expect(unknown).toHaveLength(1);
		expect(after.get('session_tree_store_calls_total{method="appendEntry",outcome="ok"}')).toBe(2);
		expect(after.get('session_tree_store_calls_total{method="appendEntry",outcome="failed"}')).toBe(1);
		expect(after.get("session_tree_store_calls_in_flight")).toBe(0);
		expect(after.get("session_tree_bus_reconnects_total")).toBe(0);
		expect(after.get("session_tree_process_resident_memory_bytes")).toBeGreaterThan(0);
	});

	it("counts open subscriptions by transport and the events delivered, down to zero when they end", async () => {
		expect((await post(server, { query: create("m2") })).body.errors).toBeUndefined();
		expect((await post(server, { query: append("m2", "e1") })).body.errors).toBeUndefined();
		const sse = sseSubscribe(server, events("m2"));
		const ws = wsSubscribe(server, events("m2"));
		await within(5_000, "both subscriptions' first event", Promise.all([sse.next(), ws.next()]));
		const open = await scrape(server);
		expect(open.get('session_tree_subscriptions_open{transport="sse"}')).toBe(1);
		expect(open.get('session_tree_subscriptions_open{transport="graphql-ws"}')).toBe(1);
		expect(open.get('session_tree_subscription_events_total{transport="sse"}')).toBe(1);
		expect(open.get('session_tree_subscription_events_total{transport="graphql-ws"}')).toBe(1);
		expect(open.get("session_tree_live_feeds")).toBe(1);

		expect((await post(server, { query: append("m2", "e2") })).body.errors).toBeUndefined();
		await within(5_000, "the second event", Promise.all([sse.next(), ws.next()]));
		await sse.close();
		await ws.close();
		const closed = await within(
			5_000,
			"the gauges to return to zero",
			(async () => {
				for (;;) {
					const now = await scrape(server);
					if (
						now.get('session_tree_subscriptions_open{transport="sse"}') === 0 &&
						now.get('session_tree_subscriptions_open{transport="graphql-ws"}') === 0
					)
						return now;
					await new Promise((resolve) => setTimeout(resolve, 20));
				}
			})(),
		);
		expect(closed.get('session_tree_subscription_events_total{transport="sse"}')).toBe(2);
		expect(closed.get('session_tree_subscription_events_total{transport="graphql-ws"}')).toBe(2);
		// Each start is timed by transport (Yoga's Prometheus plugin, the subscribe phase).
		const started = (transport: string) =>
			[...closed.entries()]
				.filter(([k]) =>
					k.startsWith(`session_tree_graphql_subscribe_seconds_count{transport="${transport}"`),
				)
				.reduce((sum, [, v]) => sum + v, 0);
		expect(started("sse")).toBeGreaterThanOrEqual(1);
		expect(started("graphql-ws")).toBeGreaterThanOrEqual(1);
	});

	it("labels the pipeline's phases with the operation the request runs, as the counters name it", async () => {
		const chosen = await post(server, {
			query: `fragment Typename on Query { __typename } query A { ...Typename } mutation B { createSession(input: { sessionId: "labelled" }) { sessionId } }`,
			operationName: "B",
		});
		expect(chosen.body.errors).toBeUndefined();
		expect((await post(server, { query: "{ __typename }" })).body.errors).toBeUndefined();
		const after = await scrape(server);
		const execute = [...after.keys()].filter((k) =>
			k.startsWith("session_tree_graphql_execute_seconds_count"),
		);
		expect(execute).toContain(
			'session_tree_graphql_execute_seconds_count{transport="http",type="mutation",operation="B"}',
		);
		expect(execute).toContain(
			'session_tree_graphql_execute_seconds_count{transport="http",type="query",operation="(anonymous)"}',
		);
		expect(execute.filter((k) => k.includes('operation="A"') || k.includes('operation="Typename"'))).toEqual(
			[],
		);
		expect(
			after.get(
				'session_tree_graphql_operations_total{transport="http",type="mutation",operation="B",code="OK"}',
			),
		).toBe(1);
	});

	it("bounds the operation names it labels: a client inventing names cannot grow the registry", async () => {
		const names = MAX_OPERATION_NAMES + 20;
		for (let i = 0; i < names; i += 1) {
			const response = await post(server, { query: `query Invented${i} { __typename }` });
			expect(response.status).toBe(200);
		}
		const after = await scrape(server);
		const labelled = new Set(
			[...after.keys()]
				.filter((k) => k.startsWith("session_tree_graphql_operations_total"))
				.map((k) => /operation="([^"]*)"/.exec(k)?.[1]),
		);
		expect(labelled.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 1);
		expect(labelled.has("(other)")).toBe(true);
		// Other clients are still served.
		expect((await post(server, { query: "query Ok { __typename }" })).body).toEqual({
			data: { __typename: "Query" },
		});
	});

	it("/health/live, /health/ready and /health answer 200 with JSON while the database answers", async () => {
		const live = await fetch(`${server.origin}/health/live`);
		expect(live.status).toBe(200);
		expect(await live.json()).toEqual({ status: "live" });
		const ready = await fetch(`${server.origin}/health/ready`);
		expect(ready.status).toBe(200);
		expect(await ready.json()).toEqual({ status: "ready" });
		expect((await fetch(`${server.origin}/health`)).status).toBe(200);
	});

	it("logs one JSON line per request: id (the caller's, echoed), operation, workspace, duration, codes", async () => {
		const given = "req-42.abc";
		const response = await post(server, { query: append("no-such", "x") }, { "x-request-id": given });
		expect(response.headers.get("x-request-id")).toBe(given);
		const line = server.log.find((l) => l.msg === "request" && l.requestId === given);
		expect(line).toMatchObject({
			level: "info",
			method: "POST",
			path: "/graphql",
			status: 200,
			operation: "mutation",
			name: "Append",
			workspace: "default",
			errors: "NOT_FOUND",
		});
		expect(typeof line?.ms).toBe("number");
		expect(server.log.filter((l) => l.requestId === given)).toHaveLength(1);

		// An id that is no sane token (here: a header-injection attempt) is replaced by a fresh one.
		const hostile = await post(server, { query: "{ __typename }" }, { "x-request-id": "a b\tc".repeat(50) });
		const fresh = hostile.headers.get("x-request-id");
		expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
		expect(server.log.find((l) => l.requestId === fresh)).toMatchObject({ operation: "query", status: 200 });
	});
});

const persistedQuery = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

describe("automatic persisted queries (Apollo Client, urql)", () => {
	let server: Server;
	let persisted: PersistedOperations;
	beforeAll(async () => {
		persisted = persistedOperations({ only: false, cacheEntries: 4, cacheBytes: 2_000 });
		server = await start({ persisted });
	});
	afterAll(() => server?.close());

	it("a hash it does not know → PersistedQueryNotFound (200); the retry with the query runs and is kept; the hash alone then hits", async () => {
		const query = "query Typename { __typename }";
		const extensions = persistedQuery(query);
		const miss = await post(server, { operationName: "Typename", extensions });
		expect(miss.status).toBe(200);
		expect(miss.body.errors?.[0]).toMatchObject({
			message: "PersistedQueryNotFound",
			extensions: { code: "PERSISTED_QUERY_NOT_FOUND" },
		});
		const retry = await post(server, { query, operationName: "Typename", extensions });
		expect(retry.body).toEqual({ data: { __typename: "Query" } });
		const hit = await post(server, { operationName: "Typename", extensions });
		expect(hit.body).toEqual({ data: { __typename: "Query" } });
		// Apollo's GET for hashed queries.
		const get = await fetch(
			`${server.url}?operationName=Typename&extensions=${encodeURIComponent(JSON.stringify(extensions))}`,
			{ headers: { accept: "application/graphql-response+json" } },
		);
		expect(await get.json()).toEqual({ data: { __typename: "Query" } });
		// And over graphql-ws, by hash alone (the query field empty).
		expect(await wsOnce(server, { query: "", extensions })).toEqual({ data: { __typename: "Query" } });
	});

	it("a query whose hash is not the one sent is refused (PERSISTED_QUERY_MISMATCH), kept nowhere; others are served", async () => {
		const query = "query Mismatch { __typename }";
		const wrong = { persistedQuery: { version: 1, sha256Hash: sha256("something else") } };
		const refused = await post(server, { query, extensions: wrong });
		expect(refused.body.errors?.[0]?.extensions?.code).toBe("PERSISTED_QUERY_MISMATCH");
		expect(refused.body.data).toBeUndefined();
		const after = await post(server, { extensions: wrong });
		expect(after.body.errors?.[0]?.extensions?.code).toBe("PERSISTED_QUERY_NOT_FOUND");
		expect((await post(server, { query: "{ __typename }" })).body).toEqual({ data: { __typename: "Query" } });
	});

	it("keeps at most APQ_CACHE_SIZE queries and APQ_CACHE_BYTES of text: registering many grows nothing", async () => {
		const queries = Array.from({ length: 12 }, (_, i) => `query Q${i} { __typename }`);
		for (const query of queries) {
			expect((await post(server, { query, extensions: persistedQuery(query) })).body.errors).toBeUndefined();
		}
		expect(persisted.cached).toBeLessThanOrEqual(4);
		const oldest = await post(server, { extensions: persistedQuery(queries[0] as string) });
		expect(oldest.body.errors?.[0]?.extensions?.code).toBe("PERSISTED_QUERY_NOT_FOUND");
		const newest = await post(server, { extensions: persistedQuery(queries[11] as string) });
		expect(newest.body).toEqual({ data: { __typename: "Query" } });
		// A query larger than the whole cache runs, but is not kept.
		const large = `query Large { session(sessionId: "${"x".repeat(3_000)}") { sessionId } }`;
		expect((await post(server, { query: large, extensions: persistedQuery(large) })).body).toEqual({
			data: { session: null },
		});
		const again = await post(server, { extensions: persistedQuery(large) });
		expect(again.body.errors?.[0]?.extensions?.code).toBe("PERSISTED_QUERY_NOT_FOUND");
		const metrics = await scrape(server);
		expect(metrics.get("session_tree_apq_cached_queries")).toBeLessThanOrEqual(4);
	});

	it("graphql-ws operations use the same cache: by hash once known, PERSISTED_QUERY_NOT_FOUND before", async () => {
		const query = "query OverWs { __typename }";
		const unknown = await wsOnce(server, { query: "", extensions: persistedQuery(query) });
		expect(unknown.errors?.[0]?.extensions?.code).toBe("PERSISTED_QUERY_NOT_FOUND");
		expect(await wsOnce(server, { query, extensions: persistedQuery(query) })).toEqual({
			data: { __typename: "Query" },
		});
		expect(await wsOnce(server, { query: "", extensions: persistedQuery(query) })).toEqual({
			data: { __typename: "Query" },
		});
	});
});

describe("allow-list mode (PERSISTED_ONLY)", () => {
	const allowed = "query Allowed { __typename }";
	const alsoAllowed =
		"mutation Create($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }";
	let dir: string;
	let server: Server;
	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "persisted-"));
		const file = join(dir, "operations.json");
		writeFileSync(file, JSON.stringify({ [sha256(allowed)]: allowed, [sha256(alsoAllowed)]: alsoAllowed }));
		const config = persistedConfig({ PERSISTED_ONLY: "1", PERSISTED_OPERATIONS_FILE: file });
		server = await start({ persisted: persistedOperations(config, readManifest(file)) });
	});
	afterAll(async () => {
		await server?.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it("runs a listed operation asked for by hash, or sent in full", async () => {
		expect((await post(server, { extensions: persistedQuery(allowed) })).body).toEqual({
			data: { __typename: "Query" },
		});
		expect((await post(server, { query: allowed })).body).toEqual({ data: { __typename: "Query" } });
		const created = await post(server, {
			extensions: persistedQuery(alsoAllowed),
			variables: { id: "pq-1" },
		});
		expect(created.body).toEqual({ data: { createSession: { sessionId: "pq-1" } } });
	});

	it("refuses any other query (PERSISTED_ONLY) and an unknown hash (PERSISTED_QUERY_NOT_FOUND), writing nothing", async () => {
		const other = await post(server, {
			query: 'mutation { createSession(input: { sessionId: "not-allowed" }) { sessionId } }',
		});
		expect(other.body.errors?.[0]?.extensions?.code).toBe("PERSISTED_ONLY");
		expect(other.body.data).toBeUndefined();
		const unknown = await post(server, {
			extensions: { persistedQuery: { version: 1, sha256Hash: "0".repeat(64) } },
		});
		expect(unknown.body.errors?.[0]?.extensions?.code).toBe("PERSISTED_QUERY_NOT_FOUND");
		// Nothing was written, and the listed operations still run.
		const session = 'query S { session(sessionId: "not-allowed") { sessionId } }';
		expect((await post(server, { query: session })).body.errors?.[0]?.extensions?.code).toBe(
			"PERSISTED_ONLY",
		);
		const list = await server.running.app.fetch(server.url, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ extensions: persistedQuery(alsoAllowed), variables: { id: "not-allowed" } }),
		});
		// createSession of that id succeeds now: the refused mutation above created nothing.
		expect(await list.json()).toEqual({ data: { createSession: { sessionId: "not-allowed" } } });
	});

	it("over graphql-ws too: a query not on the list is PERSISTED_ONLY", async () => {
		const refused = await wsOnce(server, { query: "subscription { sessionActivity { sessionId } }" });
		expect(refused.errors?.[0]?.extensions?.code).toBe("PERSISTED_ONLY");
		expect(await wsOnce(server, { query: "", extensions: persistedQuery(allowed) })).toEqual({
			data: { __typename: "Query" },
		});
	});
});

describe("configuration of persisted operations and logs", () => {
	it("PERSISTED_ONLY without a file, and a manifest whose id is not its query's SHA-256, are configuration errors", () => {
		expect(() => persistedConfig({ PERSISTED_ONLY: "1" })).toThrow(ConfigError);
		const dir = mkdtempSync(join(tmpdir(), "persisted-"));
		try {
			const file = join(dir, "wrong.json");
			writeFileSync(file, JSON.stringify({ [sha256("{ a }")]: "{ b }" }));
			expect(() => readManifest(file)).toThrow(/SHA-256/);
			// Apollo's manifest format is read as well.
			const apollo = join(dir, "apollo.json");
			const body = "query A { __typename }";
			writeFileSync(
				apollo,
				JSON.stringify({
					format: "apollo-persisted-query-manifest",
					version: 1,
					operations: [{ id: sha256(body), name: "A", type: "query", body }],
				}),
			);
			expect([...readManifest(apollo)]).toEqual([[sha256(body), body]]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("logs are JSON lines in production unless LOG_FORMAT says otherwise", () => {
		const production = { NODE_ENV: "production", AUTH_MODE: "none" };
		expect(loadConfig(production).logFormat).toBe("json");
		expect(loadConfig({ ...production, LOG_FORMAT: "pretty" }).logFormat).toBe("pretty");
		expect(loadConfig({}).logFormat).toBe("pretty");
		expect(() => loadConfig({ LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT/);
		expect(DEFAULT_PERSISTED.only).toBe(false);
	});
});
