/**
 * The operations GraphiQL opens with (src/graphql/examples.ts, also shown in
 * the README) run in order against a server of their own, as a user clicking
 * through them would; and the plain HTTP routes: GraphiQL and /health.
 */
import { Kind, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRAPHIQL_EXAMPLE } from "../../src/graphql/examples.js";
import { type GraphQLResponse, startTestServer, type TestServer } from "../support/server.js";
import { dataOf } from "./http.js";

interface Entry {
	entryId: string;
	seq?: number;
	parentId?: string | null;
	type?: string;
	depth?: number;
	role?: string;
}

/** What each example operation must answer, by name; every example needs an entry here. */
const EXPECTED: Record<string, (data: Record<string, unknown>) => void> = {
	CreateSession: (data) => expect(data).toEqual({ createSession: { sessionId: "demo", name: "Demo" } }),
	AppendUser: (data) =>
		expect(data).toEqual({
			appendEntry: {
				entry: { entryId: "u1", seq: 1, parentId: null },
				session: { leafId: "u1", lastSeq: 1 },
			},
		}),
	AppendAssistant: (data) =>
		expect(data).toEqual({ appendEntry: { entry: { entryId: "a1", seq: 2, parentId: "u1" } } }),
	GoBackWithSummary: (data) => {
		const move = data.moveLeaf as {
			leafEntry: { entryId: string; targetId: string };
			summaryEntry: { entryId: string; parentId: string; summary: string };
			session: { leafId: string };
		};
		expect(move.leafEntry.targetId).toBe("u1");
		expect(move.summaryEntry).toMatchObject({ parentId: "u1", summary: "Greeted; nothing done yet." });
		expect(move.session.leafId).toBe(move.summaryEntry.entryId);
	},
	BranchAndContext: (data) => {
		const session = data.session as {
			leafId: string;
			branch: Entry[];
			context: { messages: Array<{ role: string }>; thinkingLevel: string; model: unknown };
			tips: Entry[];
		};
		expect(session.branch).toEqual([
			{ entryId: "u1", type: "MESSAGE", depth: 0, role: "user" },
			{ entryId: session.leafId, type: "BRANCH_SUMMARY", depth: 1 },
		]);
		expect(session.context.messages.map((m) => m.role)).toEqual(["user", "branchSummary"]);
		// a1, the only assistant message, is off the path now: no model.
		expect(session.context).toMatchObject({ thinkingLevel: "off", model: null });
		expect(session.tips.map((t) => t.entryId)).toEqual(["a1", session.leafId]);
	},
	Export: (data) => {
		const lines = (data.session as { jsonl: string }).jsonl.trimEnd().split("\n");
		expect(JSON.parse(lines[0] as string)).toMatchObject({
			type: "session",
			version: 3,
			id: "demo",
			cwd: "/tmp/demo",
		});
		const entries = lines.slice(1).map((line) => JSON.parse(line));
		// The form pi reads: no leaf record; the summary, the pointer, is its last line.
		expect(entries.map((e) => e.type)).toEqual(["message", "message", "branch_summary"]);
		expect(entries[1]).toMatchObject({
			id: "a1",
			parentId: "u1",
			message: { role: "assistant", model: "claude-sonnet-4-5" },
		});
	},
};

describe("the GraphiQL example operations", () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer("memory");
	});
	afterAll(async () => {
		await server?.close();
	});

	const operations = parse(GRAPHIQL_EXAMPLE).definitions.flatMap((d) =>
		d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : [],
	);

	it("are all named, and each has an expectation here", () => {
		expect(operations.length).toBeGreaterThan(0);
		expect(operations).toEqual(Object.keys(EXPECTED));
	});

	it("run in order without errors and with sensible results", async () => {
		for (const operationName of operations) {
			const response = await fetch(server.url, {
				method: "POST",
				headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
				body: JSON.stringify({ query: GRAPHIQL_EXAMPLE, operationName }),
			});
			expect(response.status, operationName).toBe(200);
			const data = dataOf((await response.json()) as GraphQLResponse);
			EXPECTED[operationName]?.(data);
		}
	});

	it("GET /graphql from a browser serves GraphiQL with the examples", async () => {
		const response = await fetch(server.url, { headers: { accept: "text/html" } });
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toMatch(/^text\/html/);
		const html = await response.text();
		expect(html).toMatch(/<title>Session trees<\/title>/);
		expect(html.toLowerCase()).toContain("graphiql");
		expect(html).toContain("GoBackWithSummary");
	});

	it("GraphiQL loads nothing from outside the server (it opens on a machine without internet)", async () => {
		const html = await (await fetch(server.url, { headers: { accept: "text/html" } })).text();
		// Every script and stylesheet is inline: no src/href pointing at another host (a CDN).
		const external = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*["']?(https?:)?\/\//gi)];
		expect(external.map((m) => m[0])).toEqual([]);
		expect(html.length, "GraphiQL's code is inlined in the page").toBeGreaterThan(100_000);
	});

	it("production: no GraphiQL, no field suggestions, introspection as configured", async () => {
		const production = await startTestServer("memory", { development: false, introspection: false });
		try {
			const page = await fetch(production.url, { headers: { accept: "text/html" } });
			expect(await page.text()).not.toMatch(/graphiql/i);
			const typo = await production.request("{ sesions(first: 1) { totalCount } }");
			expect(typo.errors?.[0]?.message).toMatch(/sesions/);
			expect(typo.errors?.[0]?.message).not.toMatch(/Did you mean/);
			const introspection = await production.request("{ __schema { queryType { name } } }");
			expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
		} finally {
			await production.close();
		}
		// Development keeps the suggestions.
		const typo = await server.request("{ sesions(first: 1) { totalCount } }");
		expect(typo.errors?.[0]?.message).toMatch(/Did you mean "sessions" or "session"\?/);
	});

	it("GET /health answers 200", async () => {
		const response = await fetch(new URL("/health", server.url));
		expect(response.status).toBe(200);
	});
});
