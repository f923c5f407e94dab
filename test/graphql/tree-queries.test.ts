/**
 * The queries a tree view needs, through the real server: `Session.tree`
 * (every node once, compact, paged; 100,000 entries on Postgres),
 * `Session.compare`, `search`, and one fragment selecting same-named fields
 * of different entry types.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import { type BackendName, startTestServer, type TestServer } from "../support/server.js";
import { dataOf, expectError, ok } from "./http.js";

const TREE = `query($s: String!, $first: Int, $after: String) { session(sessionId: $s) { leafId tree(first: $first, after: $after) {
	totalCount pageInfo { hasNextPage endCursor }
	edges { cursor node { entryId parentId seq depth type role label preview(maxLength: 40) childCount onActivePath timestamp author } } } } }`;

interface TreeNode {
	entryId: string;
	parentId: string | null;
	seq: number;
	depth: number;
	type: string;
	role: string | null;
	label: string | null;
	preview: string;
	childCount: number;
	onActivePath: boolean;
}
interface TreeData {
	session: {
		leafId: string;
		tree: {
			totalCount: number;
			pageInfo: { hasNextPage: boolean; endCursor: string | null };
			edges: Array<{ cursor: string; node: TreeNode }>;
		};
	};
}

/** A pi file: a chain of `count` user/assistant messages under a model change. */
function chainFile(id: string, count: number): string {
	const at = (i: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + i * 1000).toISOString();
	const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: at(0), cwd: "/w" })];
	let parentId: string | null = null;
	for (let i = 1; i <= count; i++) {
		const entryId = `n${i}`;
		const message =
			i % 2 === 1
				? { role: "user", content: `question ${i}`, timestamp: i }
				: { role: "assistant", content: [{ type: "text", text: `answer ${i}` }], timestamp: i };
		lines.push(JSON.stringify({ type: "message", id: entryId, parentId, timestamp: at(i), message }));
		parentId = entryId;
	}
	return `${lines.join("\n")}\n`;
}

async function branched(server: TestServer, sessionId: string) {
	await ok(server, `mutation($s: String!) { createSession(input: { sessionId: $s }) { sessionId } }`, {
		s: sessionId,
	});
	const append = (id: string, message: Record<string, unknown>) =>
		ok(server, `mutation($i: AppendEntryInput!) { appendEntry(input: $i) { entry { seq } } }`, {
			i: { sessionId, entryId: id, entry: { message } },
		});
	await append("u1", { role: "user", content: "Deploy the service to staging", timestamp: 1 });
	await append("a1", { role: "assistant", content: [{ type: "text", text: "Deploying." }], timestamp: 2 });
	await append("u2", { role: "user", content: "Try the old path", timestamp: 3 });
	await ok(server, `mutation($i: MoveLeafInput!) { moveLeaf(input: $i) { session { leafId } } }`, {
		i: { sessionId, targetId: "a1", summary: { summary: "The old path failed." } },
	});
	await append("u3", { role: "user", content: "Use the new deploy path", timestamp: 4 });
	await ok(server, `mutation($i: SetLabelInput!) { setLabel(input: $i) { entry { seq } } }`, {
		i: { sessionId, targetId: "a1", label: "checkpoint" },
	});
}

function treeQueriesSuite(backend: BackendName) {
	describe(`tree queries on ${backend}`, () => {
		let server: TestServer;
		beforeAll(async () => {
			server = await startTestServer(backend);
		});
		afterAll(() => server?.close());

		it("Session.tree: every node once with its line's fields; pages continue from their cursor", async () => {
			await branched(server, "tree");
			const whole = await ok<TreeData>(server, TREE, { s: "tree", first: 100 });
			const nodes = whole.session.tree.edges.map((e) => e.node);
			expect(nodes.map((n) => n.entryId).slice(0, 3)).toEqual(["u1", "a1", "u2"]);
			// Leaf records are not nodes; the label entry and the branch summary are.
			expect(nodes.map((n) => n.type)).toEqual([
				"MESSAGE",
				"MESSAGE",
				"MESSAGE",
				"BRANCH_SUMMARY",
				"MESSAGE",
				"LABEL",
			]);
			expect(whole.session.tree.totalCount).toBe(6);
			const [u1, a1, u2, summary, u3, label] = nodes as [
				TreeNode,
				TreeNode,
				TreeNode,
				TreeNode,
				TreeNode,
				TreeNode,
			];
			expect(u1).toMatchObject({
				role: "user",
				preview: "Deploy the service to staging",
				depth: 0,
				childCount: 1,
			});
			expect(a1).toMatchObject({ label: "checkpoint", childCount: 2, onActivePath: true });
			expect(u2).toMatchObject({ onActivePath: false, childCount: 0 });
			expect(summary).toMatchObject({
				role: null,
				preview: "[branch summary]: The old path failed.",
				parentId: "a1",
			});
			expect(u3.onActivePath).toBe(true);
			expect(label).toMatchObject({
				preview: "[label: checkpoint]",
				entryId: whole.session.leafId,
				onActivePath: true,
			});
			const paged: TreeNode[] = [];
			let after: string | null = null;
			for (let i = 0; i < 10; i++) {
				const page: TreeData = await ok<TreeData>(server, TREE, { s: "tree", first: 4, after });
				paged.push(...page.session.tree.edges.map((e) => e.node));
				if (!page.session.tree.pageInfo.hasNextPage) break;
				after = page.session.tree.pageInfo.endCursor;
			}
			expect(paged).toEqual(nodes);
		});

		it("Session.tree refuses bad pages with a coded error", async () => {
			expectError(await server.request(TREE, { s: "tree", first: 0 }), "INVALID_INPUT", { field: "first" });
			expectError(await server.request(TREE, { s: "tree", first: 2001 }), "LIMIT_EXCEEDED", {
				field: "first",
			});
			expectError(await server.request(TREE, { s: "tree", after: "bm90LWEtY3Vyc29y" }), "INVALID_INPUT", {
				field: "after",
			});
		});

		it("Session.compare: common ancestor and the diverging paths; missing nodes are NOT_FOUND", async () => {
			const COMPARE = `query($a: String!, $b: String!) { session(sessionId: "tree") {
				compare(a: $a, b: $b) { ancestor { entryId } a { entryId } b { entryId type } } } }`;
			const data = await ok<{
				session: {
					compare: {
						ancestor: { entryId: string };
						a: Array<{ entryId: string }>;
						b: Array<{ entryId: string; type: string }>;
					};
				};
			}>(server, COMPARE, { a: "u2", b: "u3" });
			expect(data.session.compare.ancestor.entryId).toBe("a1");
			expect(data.session.compare.a.map((e) => e.entryId)).toEqual(["u2"]);
			expect(data.session.compare.b.map((e) => e.type)).toEqual(["BRANCH_SUMMARY", "MESSAGE"]);
			expectError(await server.request(COMPARE, { a: "ghost", b: "u3" }), "NOT_FOUND", { field: "a" });
		});

		it("search: matches in the caller's workspace with a highlighted snippet, paged; bad queries are INVALID_INPUT", async () => {
			const SEARCH = `query($q: String!, $s: String, $first: Int, $after: String) { search(query: $q, sessionId: $s, first: $first, after: $after) {
				pageInfo { hasNextPage endCursor } edges { node { session { sessionId } entry { entryId } snippet { text highlights { start end } } } } } }`;
			type Search = {
				search: {
					pageInfo: { hasNextPage: boolean; endCursor: string };
					edges: Array<{
						node: {
							session: { sessionId: string };
							entry: { entryId: string };
							snippet: { text: string; highlights: Array<{ start: number; end: number }> };
						};
					}>;
				};
			};
			const found = await ok<Search>(server, SEARCH, { q: "deploy", s: "tree" });
			const hits = found.search.edges.map((e) => e.node);
			expect(hits.map((h) => h.entry.entryId).sort()).toEqual(["u1", "u3"]);
			for (const hit of hits) {
				expect(hit.session.sessionId).toBe("tree");
				expect(
					hit.snippet.highlights.map((r) => hit.snippet.text.slice(r.start, r.end).toLowerCase()),
				).toEqual(["deploy"]);
			}
			const first = await ok<Search>(server, SEARCH, { q: "deploy", s: "tree", first: 1 });
			expect(first.search.pageInfo.hasNextPage).toBe(true);
			const second = await ok<Search>(server, SEARCH, {
				q: "deploy",
				s: "tree",
				first: 1,
				after: first.search.pageInfo.endCursor,
			});
			expect([...first.search.edges, ...second.search.edges].map((e) => e.node.entry.entryId)).toEqual(
				hits.map((h) => h.entry.entryId),
			);
			expectError(await server.request(SEARCH, { q: "  " }), "INVALID_INPUT", { field: "query" });
			// Only words to leave out would match every entry: refused.
			expectError(await server.request(SEARCH, { q: "-deploy" }), "INVALID_INPUT", { field: "query" });
			expectError(await server.request(SEARCH, { q: "x".repeat(501) }), "INVALID_INPUT", { field: "query" });
			expectError(await server.request(SEARCH, { q: "deploy", first: 101 }), "LIMIT_EXCEEDED", {
				field: "first",
			});
			expectError(await server.request(SEARCH, { q: "deploy", after: "bm9wZQ" }), "INVALID_INPUT", {
				field: "after",
			});
		});

		it("sessions(orderBy:, filter:) orders by cost and filters by name, paged forward; backward paging is refused", async () => {
			const SESSIONS = `query($o: SessionOrder, $f: SessionFilter, $first: Int, $after: String, $last: Int) {
				sessions(orderBy: $o, filter: $f, first: $first, after: $after, last: $last) {
					totalCount pageInfo { hasNextPage endCursor } edges { node { sessionId } } } }`;
			type Sessions = {
				sessions: {
					totalCount: number;
					pageInfo: { hasNextPage: boolean; endCursor: string };
					edges: Array<{ node: { sessionId: string } }>;
				};
			};
			for (const [id, cost] of [
				["cheap", 0.25],
				["dear", 3],
			] as const) {
				await ok(
					server,
					`mutation($s: String!) { createSession(input: { sessionId: $s, name: "Costly run" }) { sessionId } }`,
					{
						s: id,
					},
				);
				await ok(server, `mutation($i: AppendEntryInput!) { appendEntry(input: $i) { entry { seq } } }`, {
					i: {
						sessionId: id,
						entry: {
							message: {
								role: "assistant",
								content: [{ type: "text", text: "ok" }],
								provider: "p",
								model: "m",
								usage: {
									input: 1,
									output: 1,
									cacheRead: 0,
									cacheWrite: 0,
									totalTokens: 2,
									cost: { total: cost },
								},
								stopReason: "stop",
								timestamp: 1,
							},
						},
					},
				});
			}
			const byCost = await ok<Sessions>(server, SESSIONS, {
				o: { field: "COST" },
				f: { nameContains: "costly" },
				first: 1,
			});
			expect(byCost.sessions.totalCount).toBe(2);
			expect(byCost.sessions.edges.map((e) => e.node.sessionId)).toEqual(["dear"]);
			const next = await ok<Sessions>(server, SESSIONS, {
				o: { field: "COST" },
				f: { nameContains: "costly" },
				first: 1,
				after: byCost.sessions.pageInfo.endCursor,
			});
			expect(next.sessions.edges.map((e) => e.node.sessionId)).toEqual(["cheap"]);
			expect(next.sessions.pageInfo.hasNextPage).toBe(false);
			expectError(await server.request(SESSIONS, { o: { field: "COST" }, last: 1 }), "INVALID_INPUT", {
				field: "last",
			});
			expectError(
				await server.request(SESSIONS, { o: { field: "TOKENS" }, after: byCost.sessions.pageInfo.endCursor }),
				"INVALID_INPUT",
				{ field: "after" },
			);
		});

		it("one fragment selects targetId on labels and leaf records, and provider on model changes and messages", async () => {
			await ok(
				server,
				`mutation { appendEntry(input: { sessionId: "tree", entry: { modelChange: { provider: "openai", modelId: "gpt-5" } } }) { entry { seq } } }`,
			);
			const data = dataOf(
				await server.request<{ session: { entries: { edges: Array<{ node: Record<string, unknown> }> } } }>(
					`query { session(sessionId: "tree") { entries(first: 50) { edges { node { type ...Same } } } } }
					fragment Same on Entry { ... on LabelEntry { targetId } ... on LeafEntry { targetId }
						... on ModelChangeEntry { provider } ... on MessageEntry { provider } }`,
				),
			);
			const byType = (type: string) =>
				data.session.entries.edges.map((e) => e.node).filter((n) => n.type === type);
			expect(byType("LABEL")[0]).toEqual({ type: "LABEL", targetId: "a1" });
			expect(byType("LEAF")[0]).toEqual({ type: "LEAF", targetId: "a1" });
			expect(byType("MODEL_CHANGE")[0]).toEqual({ type: "MODEL_CHANGE", provider: "openai" });
		});
	});
}

treeQueriesSuite("memory");
treeQueriesSuite("pglite");
treeQueriesSuite("postgres");

/** A chain deeper than a recursive walk in JS could go (Node's stack holds ~14,000 of the simplest frames), in 15 pages. */
const BIG = 30_000;

describe(`Session.tree of ${BIG.toLocaleString("en")} entries on Postgres`, () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer("postgres");
		await server.services.store.importSession(DEFAULT_WORKSPACE, chainFile("big", BIG));
	}, 120_000);
	afterAll(() => server?.close());

	it("pages through every node exactly once in pages of 2,000, each answer bounded", async () => {
		const QUERY = `query($after: String) { session(sessionId: "big") { tree(first: 2000, after: $after) {
			totalCount pageInfo { hasNextPage endCursor } edges { node { seq depth onActivePath preview(maxLength: 20) } } } } }`;
		type Page = {
			session: {
				tree: {
					totalCount: number;
					pageInfo: { hasNextPage: boolean; endCursor: string };
					edges: Array<{ node: { seq: number; depth: number; onActivePath: boolean } }>;
				};
			};
		};
		let after: string | null = null;
		let expected = 1;
		let pages = 0;
		for (;;) {
			const response = await fetch(server.url, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ query: QUERY, variables: { after } }),
			});
			const text = await response.text();
			expect(text.length).toBeLessThan(400_000);
			const page = dataOf(JSON.parse(text) as { data: Page }) as Page;
			pages += 1;
			expect(page.session.tree.totalCount).toBe(BIG);
			for (const { node } of page.session.tree.edges) {
				expect(node.seq).toBe(expected);
				expect(node.depth).toBe(expected - 1);
				expect(node.onActivePath).toBe(true);
				expected += 1;
			}
			if (!page.session.tree.pageInfo.hasNextPage) break;
			after = page.session.tree.pageInfo.endCursor;
		}
		expect(expected - 1).toBe(BIG);
		expect(pages).toBe(BIG / 2000);
	}, 120_000);
});
