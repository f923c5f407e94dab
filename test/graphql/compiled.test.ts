/**
 * Compiled execution (src/app/jit.ts) answers exactly as graphql-js does:
 * the same bytes for data, errors (codes, paths, messages) and refusals, for
 * reads and writes, whoever calls. Documents that would be costly to compile
 * stay on graphql-js, and a document holding two operations answers each by
 * its name.
 */
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledSize, DEFAULT_COMPILE } from "../../src/app/jit.js";
import { type App, createApp } from "../../src/app.js";
import type { Identity } from "../../src/auth/identity.js";
import { schema } from "../../src/graphql/schema.js";
import { silentLogger } from "../../src/logger.js";
import { openServices, type Services } from "../../src/services.js";
import { SessionError } from "../../src/session/errors.js";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import { chainJsonl, userMessage } from "./http.js";

const readOnly: Identity = {
	workspaceId: DEFAULT_WORKSPACE,
	subject: "reader",
	scopes: new Set(["read"]),
	expiresAt: null,
};
const everything: Identity = { ...readOnly, subject: "writer", scopes: new Set(["read", "write"]) };

/** `authorization: reader` reads only; anything else may write too. */
const authenticate = async (authorization: unknown) => {
	if (authorization === "bad") throw new SessionError("UNAUTHENTICATED", "bad token");
	return authorization === "reader" ? readOnly : everything;
};

let services: Services;
/** Compiled from the first run, and never compiled. */
let compiled: App;
let interpreted: App;

async function post(app: App, body: unknown, authorization?: string) {
	const response = await app.fetch("http://localhost/graphql", {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "application/graphql-response+json",
			...(authorization ? { authorization } : {}),
		},
		body: JSON.stringify(body),
	});
	// Members in the order graphql-js writes them (graphql-jit puts data before errors).
	const { errors, ...rest } = JSON.parse(await response.text()) as Record<string, unknown>;
	return { status: response.status, body: errors === undefined ? rest : { errors, ...rest } };
}

beforeAll(async () => {
	services = await openServices({ backend: "memory" }, silentLogger);
	await services.store.importSession(DEFAULT_WORKSPACE, chainJsonl("chain", 30), { sessionId: "chain" });
	const common = { services, logger: silentLogger, authenticate };
	compiled = createApp({ ...common, compile: { ...DEFAULT_COMPILE, hotRuns: 0 } });
	interpreted = createApp({ ...common, compile: false });
});
afterAll(() => services?.close());

const READS: Array<[string, string, Record<string, unknown>?]> = [
	[
		"a page of entries",
		`query($s: String!) { session(sessionId: $s) { entryCount entries(first: 5, after: null) {
			totalCount pageInfo { hasNextPage endCursor } edges { cursor node { entryId seq type parentId timestamp depth author } } } } }`,
		{ s: "chain" },
	],
	[
		"a branch with payload fields and fragments",
		`{ session(sessionId: "chain") { branch { entryId __typename ... on MessageEntry { role message } label parent { entryId } } } }`,
	],
	[
		"a context",
		`{ session(sessionId: "chain") { context { messages thinkingLevel model { provider modelId } } } }`,
	],
	["a missing session", `{ session(sessionId: "nope") { sessionId } }`],
	["a missing entry", `{ session(sessionId: "chain") { entry(entryId: "nope") { entryId } } }`],
	[
		"a store error inside a list, with its path",
		`{ session(sessionId: "chain") { entries(first: 2) { edges { node { entryId } } } branch(fromId: "nope") { entryId } } }`,
	],
	["bad paging arguments", `{ session(sessionId: "chain") { entries(first: -1) { totalCount } } }`],
	[
		"a variable that does not coerce",
		`query($s: String!) { session(sessionId: $s) { sessionId } }`,
		{ s: 12 },
	],
	["a missing variable", `query($s: String!) { session(sessionId: $s) { sessionId } }`],
	["a validation error", `{ session(sessionId: "chain") { nope } }`],
	["a syntax error", `{ session(sessionId: "chain") { `],
	[
		"a variable default and @skip",
		`query($skip: Boolean = true) { session(sessionId: "chain") { sessionId name @skip(if: $skip) } }`,
	],
];

describe("compiled execution answers as graphql-js does", () => {
	for (const [name, query, variables] of READS) {
		it(name, async () => {
			// Twice: the second run is the compiled one even where compiling waits for hot documents.
			for (let run = 0; run < 2; run++) {
				const body = { query, ...(variables ? { variables } : {}) };
				expect(await post(compiled, body)).toEqual(await post(interpreted, body));
			}
		});
	}

	it("writes: an append, its replay, a conflict, and a write without the write scope", async () => {
		for (const [app, sessionId] of [
			[compiled, "w-compiled"],
			[interpreted, "w-interpreted"],
		] as const) {
			await post(app, {
				query: `mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`,
			});
		}
		const append = `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { created entry { entryId seq parentId ... on MessageEntry { message } } session { entryCount leafId } } }`;
		const answers = async (app: App, sessionId: string) => {
			const input = (extra: Record<string, unknown>) => ({
				input: { sessionId, entryId: "e1", entry: { message: userMessage("hello") }, ...extra },
			});
			return [
				await post(app, { query: append, variables: input({}) }),
				await post(app, { query: append, variables: input({}) }),
				await post(app, { query: append, variables: input({ entryId: "e2", expectedLeafId: "nope" }) }),
				await post(app, { query: append, variables: input({ entryId: "e3" }) }, "reader"),
				await post(app, { query: append, variables: { input: { sessionId } } }),
			].map((r) => JSON.stringify(r).replaceAll(sessionId, "S"));
		};
		const ours = await answers(compiled, "w-compiled");
		expect(ours).toEqual(await answers(interpreted, "w-interpreted"));
		expect(ours[3]).toContain('"FORBIDDEN"');
		expect(ours[2]).toContain('"LEAF_CONFLICT"');
	});

	it("answers each operation of a document with two by its name", async () => {
		const query = `query A { session(sessionId: "chain") { entryCount } } query B { session(sessionId: "chain") { lastSeq } }`;
		for (let run = 0; run < 4; run++) {
			for (const operationName of ["A", "B"]) {
				const { body } = await post(compiled, { query, operationName });
				expect(body).toEqual({
					data: { session: operationName === "A" ? { entryCount: 30 } : { lastSeq: 30 } },
				});
			}
		}
	});

	it("refuses an unauthenticated caller before anything runs", async () => {
		const body = { query: `{ session(sessionId: "chain") { sessionId } }` };
		const ours = await post(compiled, body, "bad");
		expect(ours).toEqual(await post(interpreted, body, "bad"));
		expect(ours.status).toBe(401);
	});
});

describe("what is compiled", () => {
	const size = (query: string) => compiledSize(schema, parse(query), Number.POSITIVE_INFINITY);

	it("the common reads and writes, but not nested lookups that multiply per entry type", () => {
		const { maxSize } = DEFAULT_COMPILE;
		expect(size(READS[0]?.[1] as string)).toBeLessThanOrEqual(maxSize);
		expect(size(`{ session(sessionId: "x") { branch { entryId } } }`)).toBeLessThanOrEqual(maxSize);
		expect(
			size(`mutation { appendEntry(input: { sessionId: "x", entry: {} }) { entry { seq } } }`),
		).toBeLessThanOrEqual(maxSize);
		// Entry has 11 object types: every abstract level multiplies the code graphql-jit writes.
		expect(
			size(`{ session(sessionId: "x") { entry(entryId: "r") { children { parent { entryId } } } } }`),
		).toBeGreaterThan(maxSize);
		// Fragments count where they are spread.
		expect(
			size(
				`{ session(sessionId: "x") { leaf { ...F } } } fragment F on Entry { children { parent { entryId } } }`,
			),
		).toBeGreaterThan(maxSize);
	});

	it("stops counting once past the limit", () => {
		const deep = `{ session(sessionId: "x") { entry(entryId: "r") { children { parent { children { parent { children { entryId } } } } } } } }`;
		expect(compiledSize(schema, parse(deep), 10)).toBeLessThan(size(deep));
	});

	it("a nested lookup that would take long to compile is answered at once", async () => {
		const query = `{ session(sessionId: "chain") { entry(entryId: "m1") { children { parent { children { parent { entryId } } } } } } }`;
		for (let run = 0; run < 3; run++) {
			const started = performance.now();
			const ours = await post(compiled, { query });
			expect(ours).toEqual(await post(interpreted, { query }));
			expect(performance.now() - started).toBeLessThan(1_000);
		}
	});
});
