/**
 * A node that reaches the viewer by a live event reads as `Session.tree`
 * writes it: the app's own TreeEntryFields fragment (what sessionEvents
 * carries) asks `Entry.preview(maxLength: 160)`, which equals
 * `TreeNode.preview(maxLength: 160)` for every node of pi files with every
 * entry type, through the real server (memory backend).
 */
import { readFileSync } from "node:fs";
import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TreeEntryFieldsFragment, TreeEntryFieldsFragmentDoc } from "../../web/src/gql/graphql.js";
import { fixture, ok, uniqueId, userMessage } from "../graphql/http.js";
import { startTestServer, type TestServer } from "../support/server.js";

const large = () =>
	readFileSync(
		process.env.PI_FIXTURES_DIR
			? `${process.env.PI_FIXTURES_DIR}/large-session.v1.jsonl`
			: new URL("../../../shared/fixtures/pi/large-session.v1.jsonl", import.meta.url),
		"utf8",
	);

describe("live node previews", () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer("memory");
	});
	afterAll(() => server?.close());

	async function bothPreviews(sessionId: string) {
		const tree = new Map<string, string>();
		let after: string | null = null;
		do {
			const data: {
				session: {
					tree: {
						pageInfo: { hasNextPage: boolean; endCursor: string | null };
						edges: Array<{ node: { entryId: string; preview: string } }>;
					};
				};
			} = await ok(
				server,
				`query ($id: String!, $after: String) { session(sessionId: $id) { tree(first: 2000, after: $after) {
					pageInfo { hasNextPage endCursor } edges { node { entryId preview(maxLength: 160) } } } } }`,
				{ id: sessionId, after },
			);
			for (const { node } of data.session.tree.edges) tree.set(node.entryId, node.preview);
			after = data.session.tree.pageInfo.hasNextPage ? data.session.tree.pageInfo.endCursor : null;
		} while (after);
		const live = new Map<string, string>();
		after = null;
		do {
			const data: {
				session: {
					entries: {
						pageInfo: { hasNextPage: boolean; endCursor: string | null };
						edges: Array<{ node: TreeEntryFieldsFragment }>;
					};
				};
			} = await ok(
				server,
				`query ($id: String!, $after: String) { session(sessionId: $id) { entries(first: 400, after: $after) {
					pageInfo { hasNextPage endCursor } edges { node { ...TreeEntryFields } } } } }
				${print(TreeEntryFieldsFragmentDoc)}`,
				{ id: sessionId, after },
			);
			for (const { node } of data.session.entries.edges) {
				if (node.type !== "LEAF") live.set(node.entryId, node.preview);
			}
			after = data.session.entries.pageInfo.hasNextPage ? data.session.entries.pageInfo.endCursor : null;
		} while (after);
		return { tree, live };
	}

	it("equals the tree's preview for every node of every entry type", async () => {
		const files = [fixture("v1.jsonl"), fixture("v2.jsonl"), fixture("v3-harness.jsonl"), large()];
		const types = new Set<string>();
		for (const jsonl of files) {
			const id = uniqueId("preview");
			await ok(
				server,
				`mutation ($input: ImportSessionInput!) { importSession(input: $input) { sessionId } }`,
				{
					input: { jsonl, sessionId: id },
				},
			);
			if (jsonl === files[0]) {
				// Whitespace runs, a surrogate pair at the cut and a text longer than the preview.
				await ok(
					server,
					`mutation ($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`,
					{
						input: {
							sessionId: id,
							entryId: "long",
							entry: { message: userMessage(`  a\n\tb ${"😀".repeat(158)} tail  `) },
						},
					},
				);
			}
			const { tree, live } = await bothPreviews(id);
			expect(live.size).toBe(tree.size);
			for (const [entryId, preview] of tree) expect(live.get(entryId), entryId).toBe(preview);
			const typed = await ok<{ session: { tree: { edges: Array<{ node: { type: string } }> } } }>(
				server,
				`query ($id: String!) { session(sessionId: $id) { tree(first: 2000) { edges { node { type } } } } }`,
				{ id },
			);
			for (const { node } of typed.session.tree.edges) types.add(node.type);
		}
		expect([...types].sort()).toEqual([
			"ACTIVE_TOOLS_CHANGE",
			"BRANCH_SUMMARY",
			"COMPACTION",
			"CUSTOM",
			"CUSTOM_MESSAGE",
			"LABEL",
			"MESSAGE",
			"MODEL_CHANGE",
			"SESSION_INFO",
			"THINKING_LEVEL_CHANGE",
		]);
	});
});
