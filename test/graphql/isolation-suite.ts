/**
 * Workspace isolation with real tokens over real HTTP, SSE and WebSocket,
 * run on PGlite and Postgres (isolation.*.test.ts). Two workspaces, A and B,
 * each with its own token. The suite walks every root field of Query,
 * Mutation and Subscription in the printed schema (a new field without a
 * case here fails the suite) and asserts that nothing of B can be read,
 * changed, subscribed to or detected from A: B's session answers exactly as
 * a session that does not exist, and rejected writes write nothing.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { buildSchema, type GraphQLObjectType } from "graphql";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { collect, type Endpoint, sseSubscribe, wsSubscribe } from "../events/clients.js";
import { waitUntil } from "../events/helpers.js";
import { within } from "../support/expect.js";
import {
	type BackendName,
	type GraphQLResponse,
	startTestServer,
	type TestServer,
} from "../support/server.js";
import { chainJsonl, expectError, uniqueId, userMessage } from "./http.js";
import { testAuthenticator } from "./tokens.js";

const SECRET = "isolation-suite-secret-of-at-least-32-bytes!";

interface Caller {
	sub: string;
	workspace: string;
	scope: string;
	authorization: string;
}

async function token(
	claims: { sub: string; workspace: string; scope: string },
	ttlSeconds = 3600,
): Promise<string> {
	return new SignJWT({ workspace: claims.workspace, scope: claims.scope })
		.setProtectedHeader({ alg: "HS256" })
		.setSubject(claims.sub)
		.setIssuedAt()
		.setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
		.sign(new TextEncoder().encode(SECRET));
}

async function caller(sub: string, workspace: string, scope: string): Promise<Caller> {
	return { sub, workspace, scope, authorization: `Bearer ${await token({ sub, workspace, scope })}` };
}

/** Root fields of the printed schema, by operation type. */
function rootFields(): Record<"Query" | "Mutation" | "Subscription", string[]> {
	const schema = buildSchema(readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8"));
	const names = (type: GraphQLObjectType | null | undefined) => Object.keys(type?.getFields() ?? {}).sort();
	return {
		Query: names(schema.getQueryType()),
		Mutation: names(schema.getMutationType()),
		Subscription: names(schema.getSubscriptionType()),
	};
}

export function isolationSuite(backend: BackendName) {
	let server: TestServer;
	let alice: Caller;
	let aliceReader: Caller;
	let bob: Caller;
	/** B's session, with entries, a label and a leaf move. */
	const secret = uniqueId("b-secret");
	/** B's other session, whose id A then takes for a session of its own. */
	const twin = uniqueId("b-twin");
	/** An id no workspace has: B's session must answer exactly like it. */
	const nowhere = uniqueId("nowhere");

	async function as<T = Record<string, unknown>>(
		who: Caller | null,
		query: string,
		variables?: Record<string, unknown>,
	): Promise<GraphQLResponse<T> & { status: number }> {
		const response = await fetch(server.url, {
			method: "POST",
			headers: {
				"content-type": "application/json",
				accept: "application/graphql-response+json, application/json",
				...(who ? { authorization: who.authorization } : {}),
			},
			body: JSON.stringify({ query, variables }),
		});
		return { ...((await response.json()) as GraphQLResponse<T>), status: response.status };
	}

	async function okAs<T = Record<string, unknown>>(
		who: Caller,
		query: string,
		variables?: Record<string, unknown>,
	) {
		const response = await as<T>(who, query, variables);
		expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
		return response.data as T;
	}

	/** B's session as B sees it: any change from A would show here. */
	async function bState() {
		const data = await okAs<{ session: Record<string, unknown> }>(
			bob,
			`{ session(sessionId: "${secret}") { name lastSeq entryCount leafId updatedAt entries(first: 100) { edges { node { entryId label } } } } }`,
		);
		return data.session;
	}

	/** The same operation on B's session and on a session that exists nowhere answers the same (ids aside). */
	/** The session as `who` reads it by id: null when it cannot. */
	const sessionOf = async (who: Caller, sessionId: string) =>
		(
			await okAs<{ session: { sessionId: string } | null }>(
				who,
				`{ session(sessionId: "${sessionId}") { sessionId } }`,
			)
		).session;

	async function sameAsNowhere(
		query: (sessionId: string) => string,
		variables?: (sessionId: string) => Record<string, unknown>,
	) {
		const onB = await as(alice, query(secret), variables?.(secret));
		const onNothing = await as(alice, query(nowhere), variables?.(nowhere));
		const blind = (r: unknown) => JSON.stringify(r).replaceAll(secret, "ID").replaceAll(nowhere, "ID");
		expect(blind(onB)).toBe(blind(onNothing));
		return onB;
	}

	beforeAll(async () => {
		[alice, aliceReader, bob] = await Promise.all([
			caller("alice", "team-a", "read write"),
			caller("reader", "team-a", "read"),
			caller("bob", "team-b", "read write"),
		]);
		server = await startTestServer(backend, {
			authenticate: testAuthenticator(SECRET),
			// Live metrics answer within 100 ms here (1 s by default), so the metricsUpdated case is quick.
			metricsIntervalMs: 100,
		});
		await okAs(
			bob,
			`mutation { createSession(input: { sessionId: "${secret}", name: "B's plans" }) { sessionId } }`,
		);
		await okAs(
			bob,
			`mutation { createSession(input: { sessionId: "${twin}", name: "B's twin" }) { sessionId } }`,
		);
		for (const [i, text] of ["one", "two", "three"].entries()) {
			await okAs(
				bob,
				`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${secret}", entryId: "b${i}", entry: { message: $m } }) { created } }`,
				{
					m: userMessage(text),
				},
			);
		}
		await okAs(
			bob,
			`mutation { setLabel(input: { sessionId: "${secret}", targetId: "b0", label: "start" }) { created } }`,
		);
		await okAs(
			bob,
			`mutation { moveLeaf(input: { sessionId: "${secret}", targetId: "b1" }) { session { leafId } } }`,
		);
	}, 60_000);
	afterAll(() => server?.close());

	/** One case per root field: what A tries on B's data, and what must hold. */
	const QUERY: Record<string, () => Promise<void>> = {
		session: async () => {
			const response = await sameAsNowhere((id) => `{ session(sessionId: "${id}") { sessionId name } }`);
			expect(response.data).toEqual({ session: null });
		},
		sessions: async () => {
			const data = await okAs<{
				sessions: { totalCount: number; edges: Array<{ node: { sessionId: string } }> };
			}>(alice, "{ sessions(first: 500) { totalCount edges { node { sessionId } } } }");
			expect(data.sessions.edges.map((e) => e.node.sessionId)).not.toContain(secret);
			expect(data.sessions.edges.length).toBe(data.sessions.totalCount);
		},
		metrics: async () => {
			type Metrics = { metrics: { rows: Array<{ sessionId: string | null; values: { entries: number } }> } };
			const q = `query ($q: MetricsQuery!) { metrics(query: $q) { rows { sessionId values { entries } } } }`;
			// B's session has entries: B counts them, A neither sees the session nor counts them.
			const bobs = await okAs<Metrics>(bob, q, {
				q: { measures: ["ENTRIES"], filter: { sessionIds: [secret] } },
			});
			expect(bobs.metrics.rows[0]?.values.entries).toBeGreaterThan(0);
			const named = await okAs<Metrics>(alice, q, {
				q: { measures: ["ENTRIES"], filter: { sessionIds: [secret] } },
			});
			expect(named.metrics.rows).toEqual([{ sessionId: null, values: { entries: 0 } }]);
			const all = await okAs<Metrics>(alice, q, {
				q: { measures: ["ENTRIES"], dimensions: ["SESSION"], limit: 10000 },
			});
			expect(all.metrics.rows.map((r) => r.sessionId)).not.toContain(secret);
		},
		me: async () => {
			const q = "{ me { workspaceId subject scopes } }";
			expect((await okAs<{ me: unknown }>(alice, q)).me).toEqual({
				workspaceId: "team-a",
				subject: "alice",
				scopes: ["read", "write"],
			});
			expect((await okAs<{ me: unknown }>(aliceReader, q)).me).toEqual({
				workspaceId: "team-a",
				subject: "reader",
				scopes: ["read"],
			});
		},
		search: async () => {
			const word = uniqueId("zeppelin").replaceAll("-", "");
			await okAs(
				bob,
				`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${secret}", entry: { message: $m } }) { created } }`,
				{ m: userMessage(`a ${word} only B wrote`) },
			);
			const q = `query ($q: String!, $s: String) { search(query: $q, sessionId: $s) { edges { node { session { sessionId } } } } }`;
			type Search = { search: { edges: Array<{ node: { session: { sessionId: string } } }> } };
			// B finds it; A finds nothing, in its workspace or naming B's session.
			expect((await okAs<Search>(bob, q, { q: word })).search.edges).toHaveLength(1);
			expect((await okAs<Search>(alice, q, { q: word })).search.edges).toEqual([]);
			const named = await sameAsNowhere(
				() => q,
				(id) => ({ q: word, s: id }),
			);
			expect(named.data).toEqual({ search: { edges: [] } });
		},
		node: async () => {
			// The global ids B's own reads return, used by A.
			const ids = await okAs<{
				session: { id: string; entries: { edges: Array<{ node: { id: string } }> } };
			}>(bob, `{ session(sessionId: "${secret}") { id entries(first: 10) { edges { node { id } } } } }`);
			for (const id of [ids.session.id, ...ids.session.entries.edges.map((e) => e.node.id)]) {
				expect((await as(alice, "query ($id: ID!) { node(id: $id) { id } }", { id })).data).toEqual({
					node: null,
				});
			}
		},
	};

	const MUTATION: Record<string, () => Promise<void>> = {
		setPresence: async () => {
			// No viewer of B's session can be named from A: the same as a session that does not exist.
			expectError(
				await sameAsNowhere(
					(id) =>
						`mutation { setPresence(input: { sessionId: "${id}", viewerId: "v-1", focusEntryId: "b0" }) { viewerId } }`,
				),
				"NOT_FOUND",
			);
		},
		appendEntry: async () => {
			const response = await sameAsNowhere(
				(id) =>
					`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${id}", entry: { message: $m } }) { created } }`,
				() => ({ m: userMessage("from A") }),
			);
			expectError(response, "NOT_FOUND");
		},
		moveLeaf: async () => {
			expectError(
				await sameAsNowhere(
					(id) =>
						`mutation { moveLeaf(input: { sessionId: "${id}", targetId: "b0" }) { session { leafId } } }`,
				),
				"NOT_FOUND",
			);
		},
		setLabel: async () => {
			expectError(
				await sameAsNowhere(
					(id) =>
						`mutation { setLabel(input: { sessionId: "${id}", targetId: "b0", label: "mine" }) { created } }`,
				),
				"NOT_FOUND",
			);
		},
		renameSession: async () => {
			expectError(
				await sameAsNowhere(
					(id) => `mutation { renameSession(input: { sessionId: "${id}", name: "taken" }) { created } }`,
				),
				"NOT_FOUND",
			);
		},
		deleteSession: async () => {
			const admin = await caller("alice-admin", "team-a", "read write admin");
			const query = (id: string) => `mutation { deleteSession(input: { sessionId: "${id}" }) { sessionId } }`;
			const onB = await as(admin, query(secret));
			const onNothing = await as(admin, query(nowhere));
			expectError(onB, "NOT_FOUND");
			expect(JSON.stringify(onB).replaceAll(secret, "ID")).toBe(
				JSON.stringify(onNothing).replaceAll(nowhere, "ID"),
			);
			// A token with read and write, not admin, is refused, and deletes nothing of its own.
			const own = uniqueId("a-undeletable");
			await okAs(alice, `mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`);
			expectError(await as(alice, query(own)), "FORBIDDEN", { message: /admin scope/ });
			expect(await sessionOf(alice, own)).toEqual({ sessionId: own });
			expect(await sessionOf(bob, secret)).toEqual({ sessionId: secret });
		},
		deleteWorkspaceSessions: async () => {
			// A workspace of its own, so that no other case's sessions go.
			const admin = await caller("carol-admin", "team-offboarded", "read write admin");
			await okAs(admin, `mutation { createSession(input: { sessionId: "${uniqueId("c")}" }) { sessionId } }`);
			const mutation = "mutation { deleteWorkspaceSessions(first: 10) { deleted remaining } }";
			expectError(await as(alice, mutation), "FORBIDDEN", { message: /admin scope/ });
			expect(
				(await okAs<{ deleteWorkspaceSessions: unknown }>(admin, mutation)).deleteWorkspaceSessions,
			).toEqual({
				deleted: 1,
				remaining: 0,
			});
			// Another workspace's sessions are not the caller's to delete.
			expect(await sessionOf(bob, secret)).toEqual({ sessionId: secret });
		},
		archiveSession: async () => {
			expectError(
				await sameAsNowhere(
					(id) => `mutation { archiveSession(input: { sessionId: "${id}" }) { sessionId } }`,
				),
				"NOT_FOUND",
			);
			// B's session is as it was: not archived by another workspace's call.
			const { session } = await okAs<{ session: { archivedAt: string | null } }>(
				bob,
				`{ session(sessionId: "${secret}") { archivedAt } }`,
			);
			expect(session.archivedAt).toBeNull();
		},
		unarchiveSession: async () => {
			expectError(
				await sameAsNowhere(
					(id) => `mutation { unarchiveSession(input: { sessionId: "${id}" }) { sessionId } }`,
				),
				"NOT_FOUND",
			);
		},
		forkSession: async () => {
			expectError(
				await sameAsNowhere((id) => `mutation { forkSession(input: { sessionId: "${id}" }) { sessionId } }`),
				"NOT_FOUND",
			);
		},
		createSession: async () => {
			// The same id in A's workspace is A's own session: it neither collides with nor reveals B's.
			const data = await okAs<{ createSession: { sessionId: string; name: string | null; lastSeq: number } }>(
				alice,
				`mutation { createSession(input: { sessionId: "${twin}" }) { sessionId name lastSeq } }`,
			);
			expect(data.createSession).toEqual({ sessionId: twin, name: null, lastSeq: 0 });
			const bTwin = await okAs<{ session: { name: string } }>(
				bob,
				`{ session(sessionId: "${twin}") { name } }`,
			);
			expect(bTwin.session.name).toBe("B's twin");
		},
		importSession: async () => {
			const sessionId = uniqueId("a-import");
			const data = await okAs<{ importSession: { sessionId: string } }>(
				alice,
				"mutation ($jsonl: String!) { importSession(input: { jsonl: $jsonl }) { sessionId } }",
				{ jsonl: chainJsonl(sessionId, 3) },
			);
			expect(data.importSession.sessionId).toBe(sessionId);
			expect((await as(bob, `{ session(sessionId: "${sessionId}") { sessionId } }`)).data).toEqual({
				session: null,
			});
		},
		continueSession: async () => {
			// Lines after B's entry, under B's session id: as for a session that exists nowhere.
			const line = JSON.stringify({
				type: "message",
				id: "a-line",
				parentId: "b2",
				timestamp: "2026-11-20T10:00:00.000Z",
				message: userMessage("from A"),
			});
			const response = await sameAsNowhere(
				() => "mutation ($input: ContinueSessionInput!) { continueSession(input: $input) { appended } }",
				(id) => ({ input: { sessionId: id, afterEntryId: "b2", jsonl: `${line}\n` } }),
			);
			expect(response.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
			// A whole file B continued into its workspace is a new session in A's: B's is not found again.
			const file = chainJsonl(uniqueId("followed-file"), 2);
			await okAs(
				bob,
				"mutation ($jsonl: String!) { continueSession(input: { jsonl: $jsonl }) { created } }",
				{
					jsonl: file,
				},
			);
			const data = await okAs<{ continueSession: { created: boolean; session: { lastSeq: number } } }>(
				alice,
				"mutation ($jsonl: String!) { continueSession(input: { jsonl: $jsonl }) { created session { lastSeq } } }",
				{ jsonl: file },
			);
			expect(data.continueSession).toEqual({ created: true, session: { lastSeq: 2 } });
		},
		importSessionFile: async () => {
			// The file B imported is new in A's workspace: created, not B's session found again.
			const file = chainJsonl(uniqueId("shared-file"), 2);
			const mutation =
				"mutation ($jsonl: String!) { importSessionFile(input: { jsonl: $jsonl }) { created session { lastSeq } } }";
			const imported = (who: Caller) =>
				okAs<{ importSessionFile: { created: boolean; session: { lastSeq: number } } }>(who, mutation, {
					jsonl: file,
				});
			expect((await imported(bob)).importSessionFile).toEqual({ created: true, session: { lastSeq: 2 } });
			expect((await imported(alice)).importSessionFile).toEqual({ created: true, session: { lastSeq: 2 } });
			expect((await imported(alice)).importSessionFile.created).toBe(false);
		},
	};

	const SUBSCRIPTION: Record<string, (endpoint: Endpoint) => Promise<void>> = {};
	for (const field of ["sessionEvents", "entryAppended", "leafMoved"]) {
		SUBSCRIPTION[field] = async (endpoint) => {
			const client = sseOrWs(endpoint)(
				`subscription { ${field}(sessionId: "${secret}", afterSeq: 0) { __typename } }`,
			);
			const [result] = await within(
				5_000,
				`${field} to be refused`,
				collect(client, () => true),
			);
			await client.close();
			expect(result?.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
		};
	}
	SUBSCRIPTION.sessionActivity = async (endpoint) => {
		const client = sseOrWs(endpoint)("subscription { sessionActivity { kind session { sessionId } } }");
		await waitForSubscribers(1);
		// B writes first, then A: A's feed must show A's write and nothing of B's.
		await okAs(
			bob,
			`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${secret}", entry: { message: $m } }) { created } }`,
			{
				m: userMessage("B, unseen by A"),
			},
		);
		const own = uniqueId("a-activity");
		await okAs(alice, `mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`);
		const results = await within(
			5_000,
			"A's own activity",
			collect(client, (r) => JSON.stringify(r).includes(own)),
		);
		await client.close();
		expect(JSON.stringify(results)).not.toContain(secret);
	};

	SUBSCRIPTION.presence = async (endpoint) => {
		const client = sseOrWs(endpoint)(`subscription { presence(sessionId: "${secret}") { viewerId } }`);
		const [result] = await within(
			5_000,
			"presence to be refused",
			collect(client, () => true),
		);
		await client.close();
		expect(result?.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
	};

	SUBSCRIPTION.metricsUpdated = async (endpoint) => {
		const client = sseOrWs(endpoint)(
			`subscription { metricsUpdated(query: { measures: [ENTRIES], dimensions: [SESSION], limit: 10000 }) { rows { sessionId } } }`,
		);
		await waitForSubscribers(1);
		// B writes first, then A: A's totals must come to show A's session and never B's.
		await okAs(
			bob,
			`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${secret}", entry: { message: $m } }) { created } }`,
			{ m: userMessage("B, not counted for A") },
		);
		const own = uniqueId("a-metrics");
		await okAs(alice, `mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`);
		await okAs(
			alice,
			`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${own}", entry: { message: $m } }) { created } }`,
			{ m: userMessage("A's own") },
		);
		const results = await within(
			5_000,
			"A's own session in A's metrics",
			collect(client, (r) => JSON.stringify(r).includes(own)),
		);
		await client.close();
		expect(JSON.stringify(results)).not.toContain(secret);
	};

	let transport: "sse" | "ws" = "sse";
	const sseOrWs = (endpoint: Endpoint) => (query: string) =>
		transport === "sse" ? sseSubscribe(endpoint, query) : wsSubscribe(endpoint, query);
	const waitForSubscribers = (n: number) =>
		waitUntil(`${n} subscriptions`, () => server.services.live.subscriptionCount >= n, 5_000);

	it("has a case for every root field of the printed schema", () => {
		const fields = rootFields();
		expect(Object.keys(QUERY).sort()).toEqual(fields.Query);
		expect(Object.keys(MUTATION).sort()).toEqual(fields.Mutation);
		expect(Object.keys(SUBSCRIPTION).sort()).toEqual(fields.Subscription);
	});

	describe("from workspace A, nothing of B", () => {
		for (const name of Object.keys(QUERY)) {
			it(`Query.${name}`, async () => {
				await QUERY[name]?.();
			});
		}
		for (const name of Object.keys(MUTATION)) {
			it(`Mutation.${name} writes nothing of B's`, async () => {
				const before = await bState();
				await MUTATION[name]?.();
				expect(await bState()).toEqual(before);
			});
		}
		for (const via of ["sse", "ws"] as const) {
			for (const name of Object.keys(SUBSCRIPTION)) {
				it(`Subscription.${name} over ${via}`, async () => {
					transport = via;
					await SUBSCRIPTION[name]?.({ ...server, authorization: alice.authorization });
				});
			}
		}
	});

	describe("scopes and tokens", () => {
		it("a write without the write scope is FORBIDDEN and writes nothing; reads work", async () => {
			const own = uniqueId("a-readonly");
			const refused = await as(
				aliceReader,
				`mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`,
			);
			expectError(refused, "FORBIDDEN", { message: /write scope/ });
			expect(
				(await okAs<{ session: null }>(alice, `{ session(sessionId: "${own}") { sessionId } }`)).session,
			).toBeNull();
			await okAs(aliceReader, "{ sessions(first: 1) { totalCount } }");
		});

		it("a read without the read scope is FORBIDDEN whatever its arguments are, a malformed id included", async () => {
			const writer = await caller("writer", "team-a", "write");
			for (const query of [
				`{ node(id: "garbage") { id } }`,
				"{ node(id: 123) { id } }",
				"{ sessions(first: 1) { totalCount } }",
			])
				expectError(await as(writer, query), "FORBIDDEN", { message: /read scope/ });
			// With the scope, the malformed id is the caller's error.
			expectError(await as(alice, `{ node(id: "garbage") { id } }`), "INVALID_INPUT", { field: "id" });
		});

		it("no token, a malformed or a wrongly signed token is 401 UNAUTHENTICATED, and nothing runs", async () => {
			const sessionId = uniqueId("unauth");
			const mutation = `mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`;
			const forged = await new SignJWT({ workspace: "team-a", scope: "read write" })
				.setProtectedHeader({ alg: "HS256" })
				.setSubject("mallory")
				.setExpirationTime("1h")
				.sign(new TextEncoder().encode("not-the-secret-but-just-as-long-as-it!!"));
			for (const authorization of [null, "Bearer", "Basic YWxpY2U6cHc=", `Bearer ${forged}`]) {
				const who = authorization === null ? null : { ...alice, authorization };
				const response = await as(who, mutation);
				expect(response.status, String(authorization)).toBe(401);
				expect(response.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
			}
			expect(
				(await okAs<{ session: null }>(alice, `{ session(sessionId: "${sessionId}") { sessionId } }`))
					.session,
			).toBeNull();
		});

		it("SSE answers with the header and refuses without it", async () => {
			const own = uniqueId("a-sse");
			await okAs(alice, `mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`);
			const refused = sseSubscribe(
				server,
				`subscription { sessionEvents(sessionId: "${own}") { __typename } }`,
			);
			expect(await refused.opened).toBe(401);
			await refused.close();
			const accepted = sseSubscribe(
				{ ...server, authorization: alice.authorization },
				`subscription { sessionEvents(sessionId: "${own}") { __typename } }`,
			);
			expect(await accepted.opened).toBe(200);
			await accepted.close();
		});

		it("graphql-ws refuses a connection without a valid token with 4403", async () => {
			for (const params of [{}, { authorization: "Bearer nonsense" }]) {
				const socket = new WebSocket(server.wsUrl, "graphql-transport-ws");
				await once(socket, "open");
				socket.send(JSON.stringify({ type: "connection_init", payload: params }));
				const [code] = (await within(5_000, "the refusal", once(socket, "close"))) as [number];
				expect(code).toBe(4403);
			}
		});

		for (const via of ["sse", "ws"] as const) {
			it(`tells ${via} viewers who appended and who moved the leaf`, async () => {
				const own = uniqueId("a-authors");
				await okAs(alice, `mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`);
				const query = `subscription { sessionEvents(sessionId: "${own}", afterSeq: 0) {
					... on EntryAppended { seq entry { author } }
					... on LeafMoved { seq author leafEntry { author } } } }`;
				// Carol, another subject of workspace A with read only, watches Alice write.
				const carol = await caller("carol", "team-a", "read");
				const endpoint = { ...server, authorization: carol.authorization };
				const client = via === "sse" ? sseSubscribe(endpoint, query) : wsSubscribe(endpoint, query);
				await okAs(
					alice,
					`mutation ($m: JSON!) { appendEntry(input: { sessionId: "${own}", entryId: "x1", entry: { message: $m } }) { created } }`,
					{
						m: userMessage("hello"),
					},
				);
				await okAs(
					alice,
					`mutation { moveLeaf(input: { sessionId: "${own}", targetId: null }) { session { leafId } } }`,
				);
				const results = await within(
					5_000,
					"both events",
					collect(client, (_r, all) => all.length === 2),
				);
				await client.close();
				expect(results.map((r) => r.data)).toEqual([
					{ sessionEvents: { seq: 1, entry: { author: "alice" } } },
					{ sessionEvents: { seq: 2, author: "alice", leafEntry: { author: "alice" } } },
				]);
			});
			it(`ends a ${via} subscription with UNAUTHENTICATED when its token expires`, async () => {
				const own = uniqueId("a-expiry");
				await okAs(alice, `mutation { createSession(input: { sessionId: "${own}" }) { sessionId } }`);
				const shortLived = `Bearer ${await token({ sub: "alice", workspace: "team-a", scope: "read" }, 2)}`;
				const endpoint = { ...server, authorization: shortLived };
				const query = `subscription { sessionEvents(sessionId: "${own}", afterSeq: 0) { __typename } }`;
				const client = via === "sse" ? sseSubscribe(endpoint, query) : wsSubscribe(endpoint, query);
				const results = await within(
					8_000,
					"the expiry",
					collect(client, (r) => r.errors !== undefined),
				);
				await client.close();
				expect(results.at(-1)?.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
			});
		}
	});
}
