/**
 * The HTTP API suite: every query and mutation of the public schema through a
 * real listening server, specified once and run unchanged on PGlite and
 * Postgres (api.pglite.test.ts, api.postgres.test.ts). One server per
 * backend is shared by all cases (starting one costs seconds); cases stay
 * apart by using session ids of their own.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
	buildClientSchema,
	buildSchema,
	findBreakingChanges,
	getIntrospectionQuery,
	type IntrospectionQuery,
	lexicographicSortSchema,
	printSchema,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/session/errors.js";
import { buildSessionContext, type SessionEntry, SessionManager } from "../support/pi-oracle.js";
import {
	type BackendName,
	type GraphQLResponse,
	startTestServer,
	type TestServer,
} from "../support/server.js";
import {
	asJson,
	assistantMessage,
	branchyJsonl,
	dataOf,
	expectError,
	fixture,
	ok,
	uniqueId,
	userMessage,
} from "./http.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

// ---- Operations -------------------------------------------------------------

/** The Entry interface and every field each entry type adds to it. */
const ENTRY = `
fragment EntryFields on Entry {
	__typename id entryId seq type typeName parentId depth timestamp author label raw
	... on MessageEntry { role message }
	... on ThinkingLevelChangeEntry { thinkingLevel }
	... on ModelChangeEntry { provider modelId }
	... on ActiveToolsChangeEntry { activeToolNames }
	... on UsageEntry { kind provider model note usage { totalTokens cost { total } } }
	... on CompactionEntry {
		summary firstKeptEntryId tokensBefore details fromHook systemMessage usage { totalTokens cost { total } }
	}
	... on BranchSummaryEntry { fromId summary details fromHook usage { totalTokens cost { total } } }
	... on ContextEditEntry { editTargetId: targetId omits replacementContent target { entryId } }
	... on CustomEntry { customType data }
	... on CustomMessageEntry { customType content display details }
	... on LabelEntry { targetId targetLabel target { entryId } }
	... on SessionInfoEntry { name }
	... on LeafEntry { leafTargetId: targetId target { entryId } }
}`;

const SESSION = `
fragment SessionFields on Session {
	id sessionId name cwd createdAt updatedAt parentSessionId parentSession { sessionId }
	header leafId lastSeq entryCount
}`;

const CREATE = `mutation Create($input: CreateSessionInput!) { createSession(input: $input) { ...SessionFields } } ${SESSION}`;
const APPEND = `mutation Append($input: AppendEntryInput!) {
	appendEntry(input: $input) { created entry { ...EntryFields } session { leafId lastSeq entryCount } }
} ${ENTRY}`;
const MOVE = `mutation Move($input: MoveLeafInput!) {
	moveLeaf(input: $input) {
		leafEntry { ...EntryFields }
		summaryEntry { ...EntryFields }
		session { leafId lastSeq leaf { entryId } }
	}
} ${ENTRY}`;
const LABEL = `mutation Label($input: SetLabelInput!) {
	setLabel(input: $input) { created entry { ...EntryFields } session { leafId lastSeq } }
} ${ENTRY}`;
const RENAME = `mutation Rename($input: RenameSessionInput!) {
	renameSession(input: $input) { created entry { ...EntryFields } session { name lastSeq } }
} ${ENTRY}`;
const FORK = `mutation Fork($input: ForkSessionInput!) {
	forkSession(input: $input) { ...SessionFields branch { entryId label } }
} ${SESSION}`;
const IMPORT = `mutation Import($input: ImportSessionInput!) { importSession(input: $input) { ...SessionFields } } ${SESSION}`;

/** What a client can see of one session's state; a rejected write must leave it equal. */
const SNAPSHOT = `query Snapshot($id: String!) {
	sessions { totalCount }
	session(sessionId: $id) {
		lastSeq leafId entryCount name updatedAt
		entries(first: 500) { totalCount edges { cursor node { seq raw } } }
	}
}`;

/** The whole log of a session as pi objects, with its leaf. */
const LOG = `query Log($id: String!) {
	session(sessionId: $id) {
		leafId
		entries(first: 500) { totalCount edges { node { raw } } }
		context { messages thinkingLevel model { provider modelId } activeToolNames }
	}
}`;

// ---- Response shapes --------------------------------------------------------

interface EntryView {
	__typename: string;
	id: string;
	entryId: string;
	seq: number;
	type: string;
	parentId: string | null;
	depth: number;
	timestamp: string;
	author: string | null;
	label: string | null;
	raw: Record<string, unknown>;
	[field: string]: unknown;
}

interface SessionView {
	id: string;
	sessionId: string;
	name: string | null;
	cwd: string | null;
	createdAt: string;
	updatedAt: string;
	parentSessionId: string | null;
	parentSession: { sessionId: string } | null;
	header: Record<string, unknown>;
	leafId: string | null;
	lastSeq: number;
	entryCount: number;
}

interface AppendView {
	created: boolean;
	entry: EntryView;
	session: { leafId: string | null; lastSeq: number; entryCount: number; name?: string | null };
}

interface MoveView {
	leafEntry: EntryView;
	summaryEntry: EntryView | null;
	session: { leafId: string | null; lastSeq: number; leaf: { entryId: string } | null };
}

interface ContextView {
	messages: unknown[];
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
	activeToolNames?: string[] | null;
}

interface LogView {
	session: {
		leafId: string | null;
		entries: { totalCount: number; edges: Array<{ node: { raw: SessionEntry } }> };
		context: ContextView;
	};
}

interface PageInfo {
	hasNextPage: boolean;
	hasPreviousPage: boolean;
	startCursor: string | null;
	endCursor: string | null;
}

interface Connection<T> {
	totalCount: number;
	edges: Array<{ cursor: string; node: T }>;
	pageInfo: PageInfo;
}

const ids = (entries: ReadonlyArray<{ entryId: string }>) => entries.map((e) => e.entryId);

// ---- The suite --------------------------------------------------------------

export function apiSuite(backend: Exclude<BackendName, "memory">): void {
	let server: TestServer;
	/** SQL statements sent while `countStatements` runs; null when not counting. */
	let statements: string[] | null = null;

	beforeAll(async () => {
		server = await startTestServer(backend, {
			onQuery: (query) => {
				statements?.push(query);
			},
		});
	});
	afterAll(async () => {
		await server?.close();
	});

	const request = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) =>
		server.request<T>(query, variables);
	const query = <T = Record<string, unknown>>(text: string, variables?: Record<string, unknown>) =>
		ok<T>(server, text, variables);

	const create = async (input: Record<string, unknown>) =>
		(await query<{ createSession: SessionView }>(CREATE, { input })).createSession;
	const append = async (
		sessionId: string,
		entry: Record<string, unknown>,
		more: Record<string, unknown> = {},
	) =>
		(await query<{ appendEntry: AppendView }>(APPEND, { input: { sessionId, entry, ...more } })).appendEntry;
	const move = async (input: Record<string, unknown>) =>
		(await query<{ moveLeaf: MoveView }>(MOVE, { input })).moveLeaf;
	const label = async (input: Record<string, unknown>) =>
		(await query<{ setLabel: AppendView }>(LABEL, { input })).setLabel;
	const importFile = async (jsonl: string, sessionId?: string) =>
		(
			await query<{ importSession: SessionView }>(IMPORT, {
				input: sessionId === undefined ? { jsonl } : { jsonl, sessionId },
			})
		).importSession;

	const snapshot = (sessionId: string) => query(SNAPSHOT, { id: sessionId });
	const sessionExists = async (sessionId: string) =>
		(
			await query<{ session: { sessionId: string } | null }>(
				`query($id: String!) { session(sessionId: $id) { sessionId } }`,
				{ id: sessionId },
			)
		).session !== null;
	const log = async (sessionId: string) => (await query<LogView>(LOG, { id: sessionId })).session;

	/** pi's own context for a log of pi objects and a leaf, as JSON. */
	const piContext = (raws: SessionEntry[], leafId: string | null) =>
		asJson(buildSessionContext(raws, leafId));
	const expectContextLikePi = async (sessionId: string) => {
		const { leafId, entries, context } = await log(sessionId);
		const { activeToolNames: _, ...ours } = context;
		expect(ours).toEqual(
			piContext(
				entries.edges.map((e) => e.node.raw),
				leafId,
			),
		);
		return context;
	};

	/**
	 * Run a write that must be rejected with `code`: afterwards the watched
	 * session (its log, pointer, name) and the number of sessions are as
	 * before, and `absent` (a session the write would have made) does not exist.
	 */
	async function rejected(
		operation: string,
		variables: Record<string, unknown>,
		code: ErrorCode,
		expected: { field?: string; message?: RegExp; watch: string; absent?: string },
	) {
		const before = await snapshot(expected.watch);
		const response = await request(operation, variables);
		const error = expectError(response, code, expected);
		expect(response.data ?? null).toBeNull();
		expect(await snapshot(expected.watch)).toEqual(before);
		if (expected.absent !== undefined) expect(await sessionExists(expected.absent)).toBe(false);
		return error;
	}

	/** The seed example (design/tree-rules.md#the-seed-example) through the API: u1 a1 u2 a2, move to u1, a3. */
	async function seed(sessionId = uniqueId("seed")) {
		await create({ sessionId });
		await append(sessionId, { message: userMessage("u1") }, { entryId: "u1" });
		await append(sessionId, { message: assistantMessage("a1") }, { entryId: "a1" });
		await append(sessionId, { message: userMessage("u2") }, { entryId: "u2" });
		await append(sessionId, { message: assistantMessage("a2") }, { entryId: "a2" });
		const moved = await move({ sessionId, targetId: "u1" });
		await append(sessionId, { message: assistantMessage("a3") }, { entryId: "a3" });
		return { sessionId, leafRecordId: moved.leafEntry.entryId };
	}

	describe("the served schema", () => {
		let served: ReturnType<typeof buildClientSchema>;
		beforeAll(async () => {
			// Everything the committed schema shows, @oneOf included.
			const introspection = await query<IntrospectionQuery>(
				getIntrospectionQuery({
					descriptions: true,
					specifiedByUrl: true,
					inputValueDeprecation: true,
					oneOf: true,
				}),
			);
			served = buildClientSchema(introspection);
		});

		it("keeps the contract: no breaking change against design/contract.graphql", () => {
			const contract = buildSchema(readFileSync(join(repo, "design", "contract.graphql"), "utf8"));
			expect(findBreakingChanges(contract, served)).toEqual([]);
		});

		it("is the committed schema.graphql", () => {
			const committed = readFileSync(join(repo, "schema.graphql"), "utf8");
			expect(`${printSchema(lexicographicSortSchema(served))}\n`).toBe(committed);
		});
	});

	describe("the seed example end to end", () => {
		it("logs six entries with the leaf record; the branch is u1, a3", async () => {
			const { sessionId, leafRecordId } = await seed();
			const { session } = await query<{
				session: SessionView & {
					leaf: { entryId: string };
					entries: Connection<EntryView>;
					branch: Array<{ entryId: string }>;
					tips: Array<{ entryId: string }>;
				};
			}>(
				`query($id: String!) { session(sessionId: $id) {
					...SessionFields
					leaf { entryId }
					entries { totalCount edges { node { ...EntryFields } } }
					branch { entryId }
					tips { entryId }
				} } ${SESSION} ${ENTRY}`,
				{ id: sessionId },
			);
			expect(session).toMatchObject({
				sessionId,
				leafId: "a3",
				leaf: { entryId: "a3" },
				lastSeq: 6,
				entryCount: 6,
			});
			const entries = session.entries.edges.map((e) => e.node);
			expect(session.entries.totalCount).toBe(6);
			expect(entries.map((e) => [e.seq, e.__typename, e.entryId, e.parentId])).toEqual([
				[1, "MessageEntry", "u1", null],
				[2, "MessageEntry", "a1", "u1"],
				[3, "MessageEntry", "u2", "a1"],
				[4, "MessageEntry", "a2", "u2"],
				[5, "LeafEntry", leafRecordId, "a2"],
				[6, "MessageEntry", "a3", "u1"],
			]);
			expect(entries[4]).toMatchObject({
				type: "LEAF",
				leafTargetId: "u1",
				target: { entryId: "u1" },
				parentId: "a2",
				raw: { type: "leaf", id: leafRecordId, parentId: "a2", targetId: "u1" },
			});
			expect(ids(session.branch)).toEqual(["u1", "a3"]);
			expect(ids(session.tips)).toEqual(["a2", "a3"]);
		});

		it("answers tree questions per entry: parent, children, depth, label, raw, role, message", async () => {
			const { sessionId } = await seed();
			const { session } = await query<{ session: Record<string, EntryView | null> }>(
				`query($id: String!) { session(sessionId: $id) {
					u1: entry(entryId: "u1") { ...EntryFields parent { entryId } children { entryId } }
					a2: entry(entryId: "a2") { ...EntryFields parent { entryId } children { entryId } }
					a3: entry(entryId: "a3") { ...EntryFields parent { entryId } children { entryId } }
					ghost: entry(entryId: "ghost") { entryId }
				} } ${ENTRY}`,
				{ id: sessionId },
			);
			const { u1, a2, a3 } = session as Record<string, EntryView>;
			expect(u1).toMatchObject({ depth: 0, parent: null, children: [{ entryId: "a1" }, { entryId: "a3" }] });
			// a2 is the parent of the leaf record, which is not a tree node.
			expect(a2).toMatchObject({ depth: 3, parent: { entryId: "u2" }, children: [] });
			expect(a3).toMatchObject({ depth: 1, parent: { entryId: "u1" }, children: [], label: null });
			expect(session.ghost).toBeNull();

			expect(u1).toMatchObject({ __typename: "MessageEntry", type: "MESSAGE", role: "user" });
			expect(u1?.message).toEqual(userMessage("u1"));
			expect(a3?.role).toBe("assistant");
			expect(a3?.message).toEqual(assistantMessage("a3"));
			// raw is the pi object, exactly: nothing more, nothing less.
			expect(u1?.raw).toStrictEqual({
				type: "message",
				id: "u1",
				parentId: null,
				timestamp: u1?.timestamp,
				message: userMessage("u1"),
			});
			expect(new Date(u1?.timestamp as string).toISOString()).toBe(u1?.timestamp);
			expect(Date.parse(a3?.timestamp as string)).toBeGreaterThanOrEqual(Date.parse(u1?.timestamp as string));
		});

		it("projects the context pi would build, and exports JSONL version 3 that pi opens on the same branch", async () => {
			const { sessionId } = await seed();
			const context = await expectContextLikePi(sessionId);
			expect(context).toEqual({
				messages: [userMessage("u1"), assistantMessage("a3")],
				thinkingLevel: "off",
				model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
				activeToolNames: null,
			});
			const { entries } = await log(sessionId);
			const { session } = await query<{ session: { pi: string; lossless: string } }>(
				`query($id: String!) { session(sessionId: $id) { pi: jsonl lossless: jsonl(format: LOSSLESS) } }`,
				{ id: sessionId },
			);
			const lines = session.lossless.trimEnd().split("\n");
			expect(lines).toHaveLength(7);
			expect(JSON.parse(lines[0] as string)).toMatchObject({ type: "session", version: 3, id: sessionId });
			expect(lines.slice(1).map((line) => JSON.parse(line))).toEqual(entries.edges.map((e) => e.node.raw));
			// The default form has no leaf records: pi's leaf is its last line, a3, and its context ours.
			const piLines = session.pi
				.trimEnd()
				.split("\n")
				.slice(1)
				.map((line) => JSON.parse(line));
			expect(piLines).toEqual(
				entries.edges.map((e) => e.node.raw).filter((raw) => (raw as { type: string }).type !== "leaf"),
			);
			const dir = mkdtempSync(join(tmpdir(), "pi-export-"));
			try {
				writeFileSync(join(dir, "seed.jsonl"), session.pi);
				const pi = SessionManager.open(join(dir, "seed.jsonl"), dir);
				expect(pi.getLeafId()).toBe("a3");
				const { activeToolNames: _, ...ours } = context;
				expect(JSON.parse(JSON.stringify(pi.buildSessionContext()))).toEqual(ours);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		});

		it("refetches a Session and an Entry by global id with node(id)", async () => {
			const { sessionId, leafRecordId } = await seed();
			const { session } = await query<{
				session: { id: string; u1: { id: string }; leafRecord: { id: string } };
			}>(
				`query($id: String!, $leaf: String!) { session(sessionId: $id) {
					id u1: entry(entryId: "u1") { id } leafRecord: entry(entryId: $leaf) { id }
				} }`,
				{ id: sessionId, leaf: leafRecordId },
			);
			const NODE = `query($id: ID!) { node(id: $id) {
				__typename id
				... on Session { sessionId lastSeq }
				... on Entry { entryId seq session { sessionId } }
				... on MessageEntry { role }
				... on LeafEntry { targetId }
			} }`;
			expect((await query(NODE, { id: session.id })).node).toEqual({
				__typename: "Session",
				id: session.id,
				sessionId,
				lastSeq: 6,
			});
			expect((await query(NODE, { id: session.u1.id })).node).toEqual({
				__typename: "MessageEntry",
				id: session.u1.id,
				entryId: "u1",
				seq: 1,
				session: { sessionId },
				role: "user",
			});
			expect((await query(NODE, { id: session.leafRecord.id })).node).toMatchObject({
				__typename: "LeafEntry",
				entryId: leafRecordId,
				seq: 5,
				targetId: "u1",
			});
			// Global ids are distinct per object, and stay as first issued (standard base64 of a JSON array),
			// so ids clients stored before ids went through @pothos/plugin-relay still refetch.
			expect(new Set([session.id, session.u1.id, session.leafRecord.id]).size).toBe(3);
			const issued = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString("base64");
			expect(session.id).toBe(issued(["Session", sessionId]));
			expect(session.u1.id).toBe(issued(["Entry", sessionId, "u1"]));
		});
	});

	describe("archived sessions", () => {
		const ARCHIVE = `mutation($id: String!) { archiveSession(input: { sessionId: $id }) { sessionId archivedAt lastSeq } }`;
		const UNARCHIVE = `mutation($id: String!) { unarchiveSession(input: { sessionId: $id }) { sessionId archivedAt } }`;
		const LIST = `query($name: String!, $archived: Boolean) {
			all: sessions(first: 1) { totalCount }
			named: sessions(first: 10, filter: { nameContains: $name, archived: $archived }) { edges { node { sessionId archivedAt } } }
		}`;
		type Listed = {
			all: { totalCount: number };
			named: Connection<{ sessionId: string; archivedAt: string | null }>;
		};

		it("archiveSession makes a session read-only (ARCHIVED, nothing written) and hidden unless the filter asks; unarchiveSession brings it back", async () => {
			const { sessionId } = await seed();
			const name = uniqueId("archive-me");
			await query(
				`mutation($id: String!, $name: String!) { renameSession(input: { sessionId: $id, name: $name }) { entry { seq } } }`,
				{ id: sessionId, name },
			);
			const before = await query<Listed>(LIST, { name });
			expect(before.named.edges.map((e) => e.node.sessionId)).toEqual([sessionId]);

			const { archiveSession } = await query<{ archiveSession: { archivedAt: string; lastSeq: number } }>(
				ARCHIVE,
				{ id: sessionId },
			);
			expect(Date.parse(archiveSession.archivedAt)).toBeGreaterThan(0);
			await rejected(APPEND, { input: { sessionId, entry: { message: userMessage("late") } } }, "ARCHIVED", {
				field: "sessionId",
				message: /archived/,
				watch: sessionId,
			});
			await rejected(MOVE, { input: { sessionId, targetId: "u1" } }, "ARCHIVED", { watch: sessionId });
			const hidden = await query<Listed>(LIST, { name });
			expect(hidden.named.edges).toEqual([]);
			expect(hidden.all.totalCount).toBe(before.all.totalCount - 1);
			const asked = await query<Listed>(LIST, { name, archived: true });
			expect(asked.named.edges.map((e) => e.node)).toEqual([
				{ sessionId, archivedAt: archiveSession.archivedAt },
			]);
			// Still readable by id.
			expect((await log(sessionId)).entries.totalCount).toBe(archiveSession.lastSeq);

			const { unarchiveSession } = await query<{ unarchiveSession: { archivedAt: null } }>(UNARCHIVE, {
				id: sessionId,
			});
			expect(unarchiveSession.archivedAt).toBeNull();
			expect((await append(sessionId, { message: userMessage("back") })).entry.seq).toBe(
				archiveSession.lastSeq + 1,
			);
			expect((await query<Listed>(LIST, { name })).named.edges.map((e) => e.node.sessionId)).toEqual([
				sessionId,
			]);
		});

		it("archiving a missing session is NOT_FOUND and writes nothing", async () => {
			const response = await request(ARCHIVE, { id: uniqueId("missing") });
			expectError(response, "NOT_FOUND", { field: "sessionId" });
			expect(response.data ?? null).toBeNull();
		});
	});

	describe("deleting a session", () => {
		const DELETE = `mutation($id: String!) { deleteSession(input: { sessionId: $id }) { sessionId deletedEntries } }`;

		it("deleteSession removes it from every read: session, node(id), entries by id, search; its id may be used again", async () => {
			const { sessionId } = await seed();
			const word = uniqueId("zebrafish").replaceAll("-", "");
			await append(sessionId, { message: userMessage(`about ${word}`) }, { entryId: "u9" });
			const { session } = await query<{ session: { id: string; u1: { id: string } } }>(
				`query($id: String!) { session(sessionId: $id) { id u1: entry(entryId: "u1") { id } } }`,
				{ id: sessionId },
			);
			const found = `query($text: String!) { search(query: $text) { edges { node { entry { entryId } } } } }`;
			expect((await query<{ search: Connection<unknown> }>(found, { text: word })).search.edges).toHaveLength(
				1,
			);

			const { deleteSession } = await query<{ deleteSession: { deletedEntries: number } }>(DELETE, {
				id: sessionId,
			});
			expect(deleteSession).toEqual({ sessionId, deletedEntries: 7 });
			expect(await sessionExists(sessionId)).toBe(false);
			for (const id of [session.id, session.u1.id])
				expect(
					(await query<{ node: unknown }>(`query($id: ID!) { node(id: $id) { id } }`, { id })).node,
				).toBeNull();
			expect((await query<{ search: Connection<unknown> }>(found, { text: word })).search.edges).toEqual([]);
			const again = await request(DELETE, { id: sessionId });
			expectError(again, "NOT_FOUND", { field: "sessionId" });
			await rejected(APPEND, { input: { sessionId, entry: { message: userMessage("late") } } }, "NOT_FOUND", {
				watch: sessionId,
			});

			await create({ sessionId });
			expect((await log(sessionId)).entries.totalCount).toBe(0);
		});
	});

	describe("mutations that succeed", () => {
		it("createSession keeps the caller's fields, or generates a UUIDv7 id", async () => {
			const sessionId = uniqueId("created");
			const before = Date.now();
			const created = await create({ sessionId, name: "  First  ", cwd: "/tmp/work" });
			expect(created).toMatchObject({
				sessionId,
				name: "First",
				cwd: "/tmp/work",
				leafId: null,
				lastSeq: 0,
				entryCount: 0,
				parentSessionId: null,
				parentSession: null,
			});
			expect(Date.parse(created.createdAt)).toBeGreaterThanOrEqual(before - 1000);
			expect(created.updatedAt).toBe(created.createdAt);

			const child = await create({ parentSessionId: sessionId });
			expect(child.sessionId).toMatch(
				/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
			);
			expect(child).toMatchObject({ parentSessionId: sessionId, parentSession: { sessionId }, name: null });
			const { session } = await query<{ session: SessionView }>(
				`query($id: String!) { session(sessionId: $id) { ...SessionFields } } ${SESSION}`,
				{ id: sessionId },
			);
			expect(session).toEqual(created);
		});

		it("appendEntry writes every NewEntryInput kind as a child of the leaf", async () => {
			const sessionId = uniqueId("kinds");
			await create({ sessionId });
			const kinds: Array<[Record<string, unknown>, Record<string, unknown>]> = [
				[
					{ message: userMessage("hello") },
					{ __typename: "MessageEntry", type: "MESSAGE", role: "user", message: userMessage("hello") },
				],
				[
					{ thinkingLevelChange: "high" },
					{ __typename: "ThinkingLevelChangeEntry", type: "THINKING_LEVEL_CHANGE", thinkingLevel: "high" },
				],
				[
					{ modelChange: { provider: "openai", modelId: "gpt-5" } },
					{ __typename: "ModelChangeEntry", type: "MODEL_CHANGE", provider: "openai", modelId: "gpt-5" },
				],
				[
					{ activeToolsChange: ["read", "bash"] },
					{
						__typename: "ActiveToolsChangeEntry",
						type: "ACTIVE_TOOLS_CHANGE",
						activeToolNames: ["read", "bash"],
					},
				],
				[
					{ message: assistantMessage("kept", "claude-opus-4-5") },
					{ __typename: "MessageEntry", role: "assistant" },
				],
				[
					{ custom: { customType: "bookkeeping", data: { n: 1 } } },
					{ __typename: "CustomEntry", type: "CUSTOM", customType: "bookkeeping", data: { n: 1 } },
				],
				[
					{
						customMessage: { customType: "note", content: "remember", display: true, details: { ok: true } },
					},
					{
						__typename: "CustomMessageEntry",
						type: "CUSTOM_MESSAGE",
						customType: "note",
						content: "remember",
						display: true,
						details: { ok: true },
					},
				],
				[
					{
						compaction: {
							summary: "Said hello.",
							firstKeptEntryId: "e5",
							tokensBefore: 1234,
							details: { f: [] },
						},
					},
					{
						__typename: "CompactionEntry",
						type: "COMPACTION",
						summary: "Said hello.",
						firstKeptEntryId: "e5",
						tokensBefore: 1234,
						details: { f: [] },
						fromHook: null,
					},
				],
				[{ message: userMessage("after") }, { __typename: "MessageEntry", role: "user" }],
			];
			let parent: string | null = null;
			for (const [i, [entry, expected]] of kinds.entries()) {
				// Every other entry gets a generated id.
				const entryId = i % 2 === 0 ? `e${i + 1}` : undefined;
				const result = await append(sessionId, entry, entryId === undefined ? {} : { entryId });
				expect(result.created).toBe(true);
				expect(result.entry).toMatchObject({ ...expected, seq: i + 1, parentId: parent, depth: i });
				if (entryId === undefined) expect(result.entry.entryId).toMatch(/^[0-9a-f]{16}$/);
				else expect(result.entry.entryId).toBe(entryId);
				expect(result.entry.raw).toMatchObject({ id: result.entry.entryId, parentId: parent });
				expect(result.session).toMatchObject({
					leafId: result.entry.entryId,
					lastSeq: i + 1,
					entryCount: i + 1,
				});
				parent = result.entry.entryId;
			}
			const context = await expectContextLikePi(sessionId);
			expect(context.messages.map((m) => (m as { role: string }).role)).toEqual([
				"compactionSummary",
				"assistant",
				"custom",
				"user",
			]);
			expect(context).toMatchObject({
				thinkingLevel: "high",
				model: { provider: "anthropic", modelId: "claude-opus-4-5" },
				activeToolNames: ["read", "bash"],
			});
		});

		it("re-sending an entry with the same entryId returns created: false and the stored entry", async () => {
			const sessionId = uniqueId("resend");
			await create({ sessionId });
			const first = await append(sessionId, { message: userMessage("once") }, { entryId: "e1" });
			await append(sessionId, { message: assistantMessage("reply") }, { entryId: "e2" });
			const before = await snapshot(sessionId);
			const again = await append(sessionId, { message: userMessage("once") }, { entryId: "e1" });
			expect(again.created).toBe(false);
			expect(again.entry).toEqual(first.entry);
			expect(again.session).toMatchObject({ leafId: "e2", lastSeq: 2 });
			expect(await snapshot(sessionId)).toEqual(before);
		});

		it("moveLeaf appends a leaf record; with a summary the summary becomes the leaf", async () => {
			const { sessionId } = await seed();
			const plain = await move({ sessionId, targetId: "a1" });
			expect(plain.leafEntry).toMatchObject({
				__typename: "LeafEntry",
				seq: 7,
				parentId: "a3",
				leafTargetId: "a1",
				raw: { type: "leaf", parentId: "a3", targetId: "a1" },
			});
			expect(plain.summaryEntry).toBeNull();
			expect(plain.session).toEqual({ leafId: "a1", lastSeq: 7, leaf: { entryId: "a1" } });

			const summarised = await move({
				sessionId,
				targetId: "u1",
				expectedLeafId: "a1",
				summary: { summary: "Tried a1 and a3.", details: { files: ["a.ts"] } },
			});
			expect(summarised.leafEntry).toMatchObject({ seq: 8, parentId: "a1", leafTargetId: "u1" });
			const summary = summarised.summaryEntry as EntryView;
			expect(summary).toMatchObject({
				__typename: "BranchSummaryEntry",
				type: "BRANCH_SUMMARY",
				seq: 9,
				parentId: "u1",
				fromId: "u1",
				summary: "Tried a1 and a3.",
				details: { files: ["a.ts"] },
				depth: 1,
			});
			expect(summarised.session).toMatchObject({ leafId: summary.entryId, lastSeq: 9 });
			const context = await expectContextLikePi(sessionId);
			expect(context.messages.at(-1)).toMatchObject({
				role: "branchSummary",
				summary: "Tried a1 and a3.",
				fromId: "u1",
			});
		});

		it("moveLeaf to null empties the path and context; the next entry is a new root", async () => {
			const { sessionId } = await seed();
			const moved = await move({ sessionId, targetId: null });
			expect(moved.leafEntry).toMatchObject({ parentId: "a3", leafTargetId: null, target: null });
			expect(moved.session).toEqual({ leafId: null, lastSeq: 7, leaf: null });
			const { session } = await query<{ session: { branch: unknown[]; context: ContextView } }>(
				`query($id: String!) { session(sessionId: $id) {
					branch { entryId } context { messages thinkingLevel model { provider } activeToolNames }
				} }`,
				{ id: sessionId },
			);
			expect(session).toEqual({
				branch: [],
				context: { messages: [], thinkingLevel: "off", model: null, activeToolNames: null },
			});
			const root = await append(sessionId, { message: userMessage("again") });
			expect(root.entry).toMatchObject({ parentId: null, depth: 0, seq: 8 });

			const withSummary = await move({ sessionId, targetId: null, summary: { summary: "Start over." } });
			expect(withSummary.summaryEntry).toMatchObject({ parentId: null, fromId: "root", depth: 0 });
			expect(withSummary.session.leafId).toBe(withSummary.summaryEntry?.entryId);
			await expectContextLikePi(sessionId);
		});

		it("setLabel sets, replaces and clears labels (null or empty)", async () => {
			const { sessionId } = await seed();
			const set = await label({ sessionId, targetId: "u1", label: "start" });
			expect(set.created).toBe(true);
			expect(set.entry).toMatchObject({
				__typename: "LabelEntry",
				type: "LABEL",
				targetId: "u1",
				targetLabel: "start",
				target: { entryId: "u1" },
				parentId: "a3",
				raw: { type: "label", targetId: "u1", label: "start" },
			});
			// The label entry is a node: it became the leaf.
			expect(set.session).toEqual({ leafId: set.entry.entryId, lastSeq: 7 });
			await label({ sessionId, targetId: "a2", label: "dead end" });
			await label({ sessionId, targetId: "u1", label: "beginning" });
			const LABELS = `query($id: String!) { session(sessionId: $id) {
				u1: entry(entryId: "u1") { label } a2: entry(entryId: "a2") { label } a3: entry(entryId: "a3") { label }
			} }`;
			expect((await query(LABELS, { id: sessionId })).session).toEqual({
				u1: { label: "beginning" },
				a2: { label: "dead end" },
				a3: { label: null },
			});
			const clearedByNull = await label({ sessionId, targetId: "u1", label: null });
			expect(clearedByNull.entry).toMatchObject({ targetId: "u1", targetLabel: null });
			expect("label" in clearedByNull.entry.raw).toBe(false);
			const clearedByEmpty = await label({ sessionId, targetId: "a2", label: "" });
			expect(clearedByEmpty.entry).toMatchObject({ targetId: "a2", targetLabel: null });
			expect((await query(LABELS, { id: sessionId })).session).toEqual({
				u1: { label: null },
				a2: { label: null },
				a3: { label: null },
			});
		});

		it("renameSession names the session (trimmed); blank clears", async () => {
			const sessionId = uniqueId("rename");
			await create({ sessionId, name: "Initial" });
			const renamed = (
				await query<{ renameSession: AppendView }>(RENAME, { input: { sessionId, name: "  Better name " } })
			).renameSession;
			expect(renamed.created).toBe(true);
			expect(renamed.entry).toMatchObject({
				__typename: "SessionInfoEntry",
				type: "SESSION_INFO",
				name: "Better name",
				seq: 1,
			});
			expect(renamed.session).toEqual({ name: "Better name", lastSeq: 1 });
			const cleared = (
				await query<{ renameSession: AppendView }>(RENAME, { input: { sessionId, name: "   " } })
			).renameSession;
			expect(cleared.session).toEqual({ name: null, lastSeq: 2 });
			expect((await snapshot(sessionId)).session).toMatchObject({ name: null, lastSeq: 2 });
		});

		it("forkSession copies the path root → entry (with its labels) into a child session", async () => {
			const { sessionId } = await seed();
			await label({ sessionId, targetId: "u1", label: "start" });
			await label({ sessionId, targetId: "a2", label: "elsewhere" });
			const newSessionId = uniqueId("fork");
			const fork = (
				await query<{
					forkSession: SessionView & { branch: Array<{ entryId: string; label: string | null }> };
				}>(FORK, { input: { sessionId, entryId: "a3", newSessionId } })
			).forkSession;
			expect(fork).toMatchObject({
				sessionId: newSessionId,
				parentSessionId: sessionId,
				parentSession: { sessionId },
				lastSeq: 3,
			});
			// u1, a3, then the label entry that carries u1's label over.
			expect(fork.branch.slice(0, 2)).toEqual([
				{ entryId: "u1", label: "start" },
				{ entryId: "a3", label: null },
			]);
			expect(fork.leafId).toBe(fork.branch.at(-1)?.entryId);
			const { messages } = await expectContextLikePi(newSessionId);
			expect(messages).toEqual((await log(sessionId)).context.messages);

			const byDefault = (
				await query<{ forkSession: SessionView & { branch: Array<{ entryId: string }> } }>(FORK, {
					input: { sessionId },
				})
			).forkSession;
			expect(byDefault.sessionId).not.toBe(sessionId);
			expect(byDefault.parentSession).toEqual({ sessionId });
			expect(ids(byDefault.branch).slice(0, 2)).toEqual(["u1", "a3"]);
		});

		it("without authentication every write path records no author (null), outside the pi object", async () => {
			const { sessionId } = await seed();
			const moved = await move({ sessionId, targetId: "a1", summary: { summary: "Back to a1." } });
			const labelled = await label({ sessionId, targetId: "u1", label: "start" });
			const renamed = (
				await query<{ renameSession: AppendView }>(RENAME, { input: { sessionId, name: "Named" } })
			).renameSession;
			const appended = await append(sessionId, { message: userMessage("later") });
			const written = [
				moved.leafEntry,
				moved.summaryEntry as EntryView,
				labelled.entry,
				renamed.entry,
				appended.entry,
			];
			expect(written.map((e) => e.author)).toEqual([null, null, null, null, null]);
			for (const e of written) expect("author" in e.raw).toBe(false);
			const forkId = uniqueId("fork-authors");
			await query(FORK, { input: { sessionId, newSessionId: forkId } });
			const imported = await importFile(fixture("v3-harness.jsonl"), uniqueId("import-authors"));
			const AUTHORS = `query($id: String!) { session(sessionId: $id) {
				entryCount entries(first: 500) { edges { node { author raw } } }
			} }`;
			for (const id of [sessionId, forkId, imported.sessionId]) {
				const { session } = await query<{
					session: {
						entryCount: number;
						entries: { edges: Array<{ node: { author: string | null; raw: Record<string, unknown> } }> };
					};
				}>(AUTHORS, { id });
				expect(session.entries.edges).toHaveLength(session.entryCount);
				expect(new Set(session.entries.edges.map((e) => e.node.author))).toEqual(new Set([null]));
				for (const { node } of session.entries.edges) expect("author" in node.raw).toBe(false);
			}
		});

		it("importSession reads each small fixture (v1, v2, v3 harness) as pi does", async () => {
			const v1 = await importFile(fixture("v1.jsonl"));
			expect(v1).toMatchObject({
				sessionId: "0195f3a0-0000-7000-8000-000000000001",
				cwd: "/work/demo",
				createdAt: "2025-11-20T10:00:00.000Z",
				header: { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "off" },
				entryCount: 10,
				lastSeq: 10,
			});
			const v1Context = await expectContextLikePi(v1.sessionId);
			expect(v1Context).toMatchObject({
				thinkingLevel: "high",
				model: { provider: "openai", modelId: "gpt-5.1-codex" },
			});
			expect(v1Context.messages.map((m) => (m as { role: string }).role)).toEqual([
				"compactionSummary",
				"user",
				"assistant",
				"user",
				"assistant",
			]);

			const v2 = await importFile(fixture("v2.jsonl"));
			expect(v2).toMatchObject({ leafId: "s1", name: "Second try", lastSeq: 8 });
			const v2View = await query<{
				session: {
					branch: Array<{ entryId: string }>;
					tips: Array<{ entryId: string }>;
					m1: { label: string };
					m3: { message: unknown };
				};
			}>(
				`query($id: String!) { session(sessionId: $id) {
					branch { entryId } tips { entryId }
					m1: entry(entryId: "m1") { label }
					m3: entry(entryId: "m3") { ... on MessageEntry { message } }
				} }`,
				{ id: v2.sessionId },
			);
			expect(ids(v2View.session.branch)).toEqual(["m1", "m2", "b1", "l1", "m5", "s1"]);
			expect(ids(v2View.session.tips)).toEqual(["m4", "s1"]);
			expect(v2View.session.m1.label).toBe("start");
			expect(v2View.session.m3.message).toMatchObject({ role: "custom", customType: "reminder" });
			await expectContextLikePi(v2.sessionId);

			const v3 = await importFile(fixture("v3-harness.jsonl"));
			// Its header names the v2 session, imported just before.
			expect(v3).toMatchObject({
				leafId: "u3",
				parentSessionId: v2.sessionId,
				parentSession: { sessionId: v2.sessionId },
				header: { origin: "harness-test" },
				lastSeq: 15,
			});
			const v3Context = await expectContextLikePi(v3.sessionId);
			expect(v3Context.activeToolNames).toEqual(["read", "bash"]);
			const { entries } = await log(v3.sessionId);
			expect(entries.edges.map((e) => e.node.raw)).toContainEqual(
				expect.objectContaining({ id: "c1", extensionVersion: "1.2" }),
			);

			// Each lossless export re-imports (under another id) to the same log, pointer and context.
			for (const original of [v1, v2, v3]) {
				const { session } = await query<{ session: { jsonl: string } }>(
					`query($id: String!) { session(sessionId: $id) { jsonl(format: LOSSLESS) } }`,
					{ id: original.sessionId },
				);
				const copy = await importFile(session.jsonl, uniqueId("reimport"));
				expect(copy).toMatchObject({
					leafId: original.leafId,
					lastSeq: original.lastSeq,
					name: original.name,
				});
				const [a, b] = [await log(original.sessionId), await log(copy.sessionId)];
				expect(b.entries).toEqual(a.entries);
				expect(b.context).toEqual(a.context);
			}
		});
	});

	describe("today's pi (1.6.0) through the API", () => {
		const usage = {
			input: 7,
			output: 3,
			cacheRead: 20,
			cacheWrite: 0,
			totalTokens: 30,
			cost: { total: 0.5 },
		};
		const STATS = `query($id: String!) { session(sessionId: $id) {
			stats { tree { totalTokens cost } }
			context { messages }
		} }`;

		it("appends usage entries, context edits, and compactions and summaries with usage; totals count them", async () => {
			const sessionId = uniqueId("today");
			await create({ sessionId });
			await append(sessionId, { message: userMessage("long question") }, { entryId: "u1" });
			const used = await append(sessionId, {
				usage: {
					kind: "cache_warm",
					provider: "anthropic",
					model: "claude-haiku-4-5",
					usage,
					note: "warmed",
				},
			});
			expect(used.entry).toMatchObject({
				__typename: "UsageEntry",
				type: "USAGE",
				typeName: "usage",
				kind: "cache_warm",
				provider: "anthropic",
				model: "claude-haiku-4-5",
				note: "warmed",
				usage: { totalTokens: 30, cost: { total: 0.5 } },
			});
			const edit = await append(sessionId, { contextEdit: { targetId: "u1", content: "short question" } });
			expect(edit.entry).toMatchObject({
				__typename: "ContextEditEntry",
				type: "CONTEXT_EDIT",
				editTargetId: "u1",
				omits: false,
				replacementContent: "short question",
				target: { entryId: "u1" },
			});
			const compacted = await append(sessionId, {
				compaction: {
					summary: "so far",
					firstKeptEntryId: "u1",
					tokensBefore: 100,
					usage,
					fromHook: true,
					systemMessage: { role: "system", content: "Be brief.", timestamp: 1 },
				},
			});
			expect(compacted.entry).toMatchObject({
				usage: { totalTokens: 30 },
				fromHook: true,
				systemMessage: { role: "system", content: "Be brief." },
			});
			const moved = await move({
				sessionId,
				targetId: "u1",
				summary: { summary: "went back", usage, fromHook: false },
			});
			expect(moved.summaryEntry).toMatchObject({ fromId: "u1", fromHook: false, usage: { totalTokens: 30 } });
			await append(sessionId, { contextEdit: { targetId: "u1", omit: true } });
			const { session } = await query<{
				session: { stats: { tree: { totalTokens: number; cost: number } }; context: { messages: unknown[] } };
			}>(STATS, { id: sessionId });
			expect(session.stats.tree).toEqual({ totalTokens: 90, cost: 1.5 });
			// The omitting edit is on this branch: u1 leaves the context, the branch summary stays.
			expect(session.context.messages).toEqual([expect.objectContaining({ role: "branchSummary" })]);
			await expectContextLikePi(sessionId);
		});

		it("refuses a context edit with both or neither of content and omit, or of a missing entry", async () => {
			const sessionId = uniqueId("edits");
			await create({ sessionId });
			await append(sessionId, { message: userMessage("u") }, { entryId: "u" });
			for (const contextEdit of [{ targetId: "u", content: "x", omit: true }, { targetId: "u" }]) {
				await rejected(APPEND, { input: { sessionId, entry: { contextEdit } } }, "INVALID_INPUT", {
					field: "entry.contextEdit",
					watch: sessionId,
				});
			}
			await rejected(
				APPEND,
				{ input: { sessionId, entry: { contextEdit: { targetId: "nope", omit: true } } } },
				"NOT_FOUND",
				{ field: "targetId", watch: sessionId },
			);
		});

		it("continueSession takes a file as pi writes it: whole, then line by line, repeats held, a divergence refused", async () => {
			const CONTINUE = `mutation Continue($input: ContinueSessionInput!) {
				continueSession(input: $input) { created appended held session { sessionId lastSeq leafId } }
			}`;
			const sessionId = uniqueId("follow");
			const line = (id: string, parentId: string | null, text: string) =>
				JSON.stringify({
					type: "message",
					id,
					parentId,
					timestamp: "2026-11-20T10:00:00.000Z",
					message: userMessage(text),
				});
			const header = JSON.stringify({
				type: "session",
				version: 3,
				id: sessionId,
				timestamp: "2026-11-20T09:00:00.000Z",
				cwd: "/w",
			});
			const send = async (input: Record<string, unknown>) =>
				(
					await query<{
						continueSession: { created: boolean; appended: number; held: number; session: SessionView };
					}>(CONTINUE, { input })
				).continueSession;
			expect(await send({ jsonl: `${header}\n${line("u1", null, "u1")}\n` })).toMatchObject({
				created: true,
				appended: 1,
				session: { sessionId, lastSeq: 1, leafId: "u1" },
			});
			const next = `${line("u2", "u1", "u2")}\n${line("u3", "u2", "u3")}\n`;
			expect(await send({ sessionId, afterEntryId: "u1", jsonl: next })).toMatchObject({
				created: false,
				appended: 2,
				held: 0,
			});
			expect(await send({ sessionId, afterEntryId: "u1", jsonl: next })).toMatchObject({
				appended: 0,
				held: 2,
			});
			// pi went back to u1: a leaf record before the line, seen as a move.
			expect(
				await send({ sessionId, afterEntryId: "u3", jsonl: `${line("u4", "u1", "again")}\n` }),
			).toMatchObject({
				appended: 1,
				session: { lastSeq: 5, leafId: "u4" },
			});
			await rejected(
				CONTINUE,
				{ input: { sessionId, afterEntryId: "u1", jsonl: `${line("u2", "u1", "other")}\n` } },
				"ALREADY_EXISTS",
				{ field: "jsonl", message: /^line 1: the file no longer matches/, watch: sessionId },
			);
			await rejected(CONTINUE, { input: { sessionId, jsonl: next } }, "INVALID_INPUT", {
				field: "afterEntryId",
				watch: sessionId,
			});
			await expectContextLikePi(sessionId);
		});

		it("serves an entry of a type it does not know as OtherEntry, kept as it is, filtered as OTHER", async () => {
			const sessionId = uniqueId("other");
			const line = {
				type: "checkpoint",
				id: "ck",
				parentId: "u1",
				timestamp: "2026-11-20T10:00:01.000Z",
				files: ["a.ts"],
			};
			const jsonl = [
				JSON.stringify({
					type: "session",
					version: 3,
					id: sessionId,
					timestamp: "2026-11-20T10:00:00.000Z",
					cwd: "/w",
				}),
				JSON.stringify({
					type: "message",
					id: "u1",
					parentId: null,
					timestamp: "2026-11-20T10:00:00.500Z",
					message: userMessage("u1"),
				}),
				JSON.stringify(line),
				"",
			].join("\n");
			const imported = await importFile(jsonl);
			expect(imported.leafId).toBe("ck");
			const { session } = await query<{
				session: {
					other: { totalCount: number; edges: Array<{ node: EntryView }> };
					tree: {
						edges: Array<{ node: { entryId: string; type: string; typeName: string; preview: string } }>;
					};
					jsonl: string;
				};
			}>(
				`query($id: String!) { session(sessionId: $id) {
					other: entries(types: [OTHER]) { totalCount edges { node { ...EntryFields } } }
					tree { edges { node { entryId type typeName preview } } }
					jsonl
				} } ${ENTRY}`,
				{ id: sessionId },
			);
			expect(session.other.totalCount).toBe(1);
			expect(session.other.edges[0]?.node).toMatchObject({
				__typename: "OtherEntry",
				type: "OTHER",
				typeName: "checkpoint",
				entryId: "ck",
				depth: 1,
				raw: line,
			});
			expect(session.tree.edges.map((e) => e.node)).toContainEqual({
				entryId: "ck",
				type: "OTHER",
				typeName: "checkpoint",
				preview: "[checkpoint]",
			});
			expect(JSON.parse(session.jsonl.trimEnd().split("\n")[2] as string)).toEqual(line);
			await expectContextLikePi(sessionId);
		});
	});

	describe("importing the same file twice", () => {
		const IMPORT_FILE = `mutation ImportFile($input: ImportSessionInput!) {
			importSessionFile(input: $input) { created session { ...SessionFields } }
		} ${SESSION}`;
		const importOnce = async (jsonl: string, sessionId: string) =>
			(
				await query<{ importSessionFile: { created: boolean; session: SessionView } }>(IMPORT_FILE, {
					input: { jsonl, sessionId },
				})
			).importSessionFile;

		it.each(["v1.jsonl", "v2.jsonl", "v3-harness.jsonl"])(
			"import twice → created: false: %s again returns the stored session and writes nothing",
			async (file) => {
				const sessionId = uniqueId("twice");
				const first = await importOnce(fixture(file), sessionId);
				expect(first.created).toBe(true);
				const before = await snapshot(sessionId);
				expect(await importOnce(fixture(file), sessionId)).toEqual({
					created: false,
					session: first.session,
				});
				// The Session-returning mutation is as idempotent, and so is the session's own export.
				expect(await importFile(fixture(file), sessionId)).toEqual(first.session);
				const { session } = await query<{ session: { jsonl: string } }>(
					`query($id: String!) { session(sessionId: $id) { jsonl } }`,
					{ id: sessionId },
				);
				expect((await importOnce(session.jsonl, sessionId)).created).toBe(false);
				expect(await snapshot(sessionId)).toEqual(before);
			},
		);

		it("another file under the same id is ALREADY_EXISTS and writes nothing", async () => {
			const sessionId = uniqueId("twice");
			await importOnce(fixture("v2.jsonl"), sessionId);
			await rejected(IMPORT_FILE, { input: { jsonl: fixture("v1.jsonl"), sessionId } }, "ALREADY_EXISTS", {
				field: "sessionId",
				watch: sessionId,
			});
		});
	});

	describe("errors: coded, and a rejected write writes nothing", () => {
		it("NOT_FOUND: a missing session, move or label target, or fork entry", async () => {
			const { sessionId } = await seed();
			const watch = sessionId;
			const missing = uniqueId("missing");
			const entry = { message: userMessage("x") };
			await rejected(APPEND, { input: { sessionId: missing, entry } }, "NOT_FOUND", {
				field: "sessionId",
				watch,
				absent: missing,
			});
			await rejected(MOVE, { input: { sessionId: missing, targetId: null } }, "NOT_FOUND", {
				field: "sessionId",
				watch,
				absent: missing,
			});
			await rejected(LABEL, { input: { sessionId: missing, targetId: "u1", label: "x" } }, "NOT_FOUND", {
				watch,
				absent: missing,
			});
			await rejected(RENAME, { input: { sessionId: missing, name: "x" } }, "NOT_FOUND", {
				watch,
				absent: missing,
			});
			await rejected(FORK, { input: { sessionId: missing, newSessionId: missing } }, "NOT_FOUND", {
				watch,
				absent: missing,
			});
			await rejected(MOVE, { input: { sessionId, targetId: "ghost" } }, "NOT_FOUND", {
				field: "targetId",
				watch,
			});
			await rejected(
				MOVE,
				{ input: { sessionId, targetId: "ghost", summary: { summary: "s" } } },
				"NOT_FOUND",
				{ field: "targetId", watch },
			);
			await rejected(LABEL, { input: { sessionId, targetId: "ghost", label: "x" } }, "NOT_FOUND", {
				field: "targetId",
				watch,
			});
			const fork = uniqueId("fork");
			await rejected(FORK, { input: { sessionId, entryId: "ghost", newSessionId: fork } }, "NOT_FOUND", {
				field: "entryId",
				watch,
				absent: fork,
			});
		});

		it("LEAF_CONFLICT: expectedLeafId other than the leaf", async () => {
			const { sessionId } = await seed();
			const watch = sessionId;
			const entry = { message: userMessage("late") };
			await rejected(APPEND, { input: { sessionId, entry, expectedLeafId: "a2" } }, "LEAF_CONFLICT", {
				field: "expectedLeafId",
				watch,
			});
			await rejected(APPEND, { input: { sessionId, entry, expectedLeafId: null } }, "LEAF_CONFLICT", {
				watch,
			});
			await rejected(MOVE, { input: { sessionId, targetId: "u2", expectedLeafId: "a2" } }, "LEAF_CONFLICT", {
				watch,
			});
			await rejected(
				MOVE,
				{ input: { sessionId, targetId: "u2", expectedLeafId: "a2", summary: { summary: "s" } } },
				"LEAF_CONFLICT",
				{ watch },
			);
			const matching = await append(sessionId, entry, { expectedLeafId: "a3" });
			expect(matching.entry.parentId).toBe("a3");
		});

		it("ALREADY_EXISTS: a taken session id, an entryId with other content, an imported or forked id", async () => {
			const { sessionId } = await seed();
			const watch = sessionId;
			await rejected(CREATE, { input: { sessionId, name: "Second" } }, "ALREADY_EXISTS", {
				field: "sessionId",
				watch,
			});
			await rejected(
				APPEND,
				{ input: { sessionId, entryId: "u1", entry: { message: userMessage("changed") } } },
				"ALREADY_EXISTS",
				{ field: "entryId", watch },
			);
			await rejected(
				APPEND,
				{ input: { sessionId, entryId: "a1", entry: { custom: { customType: "x" } } } },
				"ALREADY_EXISTS",
				{ field: "entryId", watch },
			);
			await rejected(IMPORT, { input: { jsonl: fixture("v2.jsonl"), sessionId } }, "ALREADY_EXISTS", {
				watch,
			});
			const other = await seed();
			await rejected(FORK, { input: { sessionId, newSessionId: other.sessionId } }, "ALREADY_EXISTS", {
				watch: other.sessionId,
			});
			expect((await snapshot(sessionId)).session).toMatchObject({ lastSeq: 6, name: null });
		});

		/** A session with one entry, for writes that must be rejected. */
		async function oneEntry(label: string) {
			const sessionId = uniqueId(label);
			await create({ sessionId });
			await append(sessionId, { message: userMessage("ok") });
			return sessionId;
		}

		it("INVALID_INPUT: moveLeaf without a target (null must be said), and entries with both first and last", async () => {
			const { sessionId } = await seed();
			const watch = sessionId;
			await rejected(MOVE, { input: { sessionId } }, "INVALID_INPUT", { field: "targetId", watch });
			const both = await request(
				`query($id: String!) { session(sessionId: $id) { entries(first: 1, last: 1) { totalCount } } }`,
				{
					id: sessionId,
				},
			);
			expectError(both, "INVALID_INPUT", { field: "last" });
		});

		it("INVALID_INPUT: a @oneOf entry with two kinds or none, written as a literal", async () => {
			const sessionId = await oneEntry("oneof-literal");
			const literal = (entry: string) =>
				`mutation { appendEntry(input: { sessionId: "${sessionId}", entry: ${entry} }) { created } }`;
			const expected = { watch: sessionId, message: /NewEntryInput/ };
			await rejected(
				literal(`{ thinkingLevelChange: "high", message: { role: "user" } }`),
				{},
				"INVALID_INPUT",
				expected,
			);
			await rejected(literal("{}"), {}, "INVALID_INPUT", expected);
		});

		it("INVALID_INPUT: a @oneOf entry with two kinds or none, passed in variables", async () => {
			const sessionId = await oneEntry("oneof-variables");
			const expected = { watch: sessionId, message: /NewEntryInput/ };
			const viaVariable = `mutation($entry: NewEntryInput!) {
				appendEntry(input: { sessionId: "${sessionId}", entry: $entry }) { created }
			}`;
			const two = { thinkingLevelChange: "high", message: userMessage("x") };
			await rejected(viaVariable, { entry: two }, "INVALID_INPUT", expected);
			await rejected(viaVariable, { entry: {} }, "INVALID_INPUT", expected);
			await rejected(APPEND, { input: { sessionId, entry: two } }, "INVALID_INPUT", expected);
			// A null kind beside a real one is still two keys.
			await rejected(
				APPEND,
				{ input: { sessionId, entry: { thinkingLevelChange: null, message: userMessage("x") } } },
				"INVALID_INPUT",
				expected,
			);
		});

		it("INVALID_INPUT: a variable of the wrong GraphQL type never reaches the store", async () => {
			const sessionId = await oneEntry("wrong-type");
			const compaction = { summary: "s", firstKeptEntryId: "u1", tokensBefore: "many" };
			await rejected(APPEND, { input: { sessionId, entry: { compaction } } }, "INVALID_INPUT", {
				watch: sessionId,
				message: /tokensBefore/,
			});
		});

		it("INVALID_INPUT names the bad field of an entry or target", async () => {
			const { sessionId, leafRecordId } = await seed();
			const watch = sessionId;
			const compaction = { summary: "s", firstKeptEntryId: "u1", tokensBefore: -1 };
			await rejected(APPEND, { input: { sessionId, entry: { compaction } } }, "INVALID_INPUT", {
				field: "entry.tokensBefore",
				watch,
			});
			await rejected(APPEND, { input: { sessionId, entry: { message: "text" } } }, "INVALID_INPUT", {
				field: "entry.message",
				watch,
			});
			await rejected(
				APPEND,
				{ input: { sessionId, entry: { message: { content: "no role" } } } },
				"INVALID_INPUT",
				{ field: "entry.message.role", watch },
			);
			await rejected(
				APPEND,
				{ input: { sessionId, entryId: "", entry: { message: userMessage("x") } } },
				"INVALID_INPUT",
				{ field: "entry.id", watch },
			);
			// A leaf record is not a tree node: neither a move nor a label target.
			await rejected(MOVE, { input: { sessionId, targetId: leafRecordId } }, "INVALID_INPUT", {
				field: "targetId",
				watch,
			});
			await rejected(LABEL, { input: { sessionId, targetId: leafRecordId, label: "x" } }, "INVALID_INPUT", {
				field: "targetId",
				watch,
			});
		});

		it("INVALID_INPUT: malformed JSONL names the line, and no session appears", async () => {
			const watch = (await seed()).sessionId;
			const good = fixture("v2.jsonl").trimEnd().split("\n");
			const newId = uniqueId("bad-import");
			const cases: Array<[string, RegExp, string]> = [
				[
					[...good.slice(0, 3), "{not json", ...good.slice(3)].join("\n"),
					/^line 4: not valid JSON/,
					"line 4",
				],
				// The field names the offending field of the line when there is one.
				[[good[0], good[1], good[1]].join("\n"), /^line 3: id "m1" is used twice/, "id"],
				[good.slice(1).join("\n"), /^line 1: the first line must be a session header/, "line 1"],
			];
			for (const [jsonl, message, field] of cases) {
				await rejected(IMPORT, { input: { jsonl, sessionId: newId } }, "INVALID_INPUT", {
					message,
					field,
					watch,
					absent: newId,
				});
			}
		});

		it("INVALID_INPUT: a bad cursor or global id; LIMIT_EXCEEDED: a page over the limit", async () => {
			const { sessionId } = await seed();
			const entries = (args: string) =>
				request(`query($id: String!) { session(sessionId: $id) { entries(${args}) { totalCount } } }`, {
					id: sessionId,
				});
			expectError(await entries(`after: "not-a-cursor"`), "INVALID_INPUT", { field: "after" });
			expectError(await entries(`before: "not-a-cursor"`), "INVALID_INPUT", { field: "before" });
			expectError(await entries("first: -1"), "INVALID_INPUT", { field: "first" });
			expectError(await entries("first: 10000"), "LIMIT_EXCEEDED", { field: "first" });
			expectError(await entries("last: 10000"), "LIMIT_EXCEEDED", { field: "last" });
			expectError(await request(`{ sessions(after: "not-a-cursor") { totalCount } }`), "INVALID_INPUT", {
				field: "after",
			});
			expectError(await request(`{ sessions(first: 10000) { totalCount } }`), "LIMIT_EXCEEDED", {
				field: "first",
			});
			// A session cursor is not an entry cursor.
			const { sessions } = await query<{ sessions: { edges: Array<{ cursor: string }> } }>(
				`{ sessions(first: 1) { edges { cursor } } }`,
			);
			expectError(await entries(`after: "${sessions.edges[0]?.cursor}"`), "INVALID_INPUT", {
				field: "after",
			});

			for (const id of ["not-a-global-id", Buffer.from("[1,2]").toString("base64"), ""]) {
				const response = await request(`query($id: ID!) { node(id: $id) { id } }`, { id });
				expectError(response, "INVALID_INPUT", { field: "id" });
				expect(response.data).toEqual({ node: null });
			}
		});
	});

	describe("pagination", () => {
		/** A session whose log is u1 a1 u2 a2 [leaf] a3 [label] = seven entries. */
		async function sevenEntries() {
			const { sessionId } = await seed();
			await label({ sessionId, targetId: "u1", label: "start" });
			return sessionId;
		}
		const ENTRIES = `query($id: String!, $first: Int, $after: String, $last: Int, $before: String, $types: [EntryType!]) {
			session(sessionId: $id) {
				entries(first: $first, after: $after, last: $last, before: $before, types: $types) {
					totalCount
					edges { cursor node { seq type } }
					pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
				}
			}
		}`;
		const entriesPage = async (id: string, args: Record<string, unknown>) => {
			const { session } = await query<{ session: { entries: Connection<{ seq: number; type: string }> } }>(
				ENTRIES,
				{ id, ...args },
			);
			const page = session.entries;
			// startCursor/endCursor are the first and last edge's cursors.
			expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
			expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
			return { ...page, seqs: page.edges.map((e) => e.node.seq) };
		};

		it("an empty session has an empty log", async () => {
			const sessionId = uniqueId("empty");
			await create({ sessionId });
			for (const args of [{}, { first: 5 }, { last: 5 }]) {
				const page = await entriesPage(sessionId, args);
				expect(page).toMatchObject({
					totalCount: 0,
					edges: [],
					pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
				});
			}
		});

		it("pages the append log forwards with first/after, to an empty page past the end", async () => {
			const sessionId = await sevenEntries();
			const all = await entriesPage(sessionId, {});
			expect(all.seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
			expect(all.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });

			const first = await entriesPage(sessionId, { first: 3 });
			expect(first).toMatchObject({ totalCount: 7, seqs: [1, 2, 3] });
			expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
			const second = await entriesPage(sessionId, { first: 3, after: first.pageInfo.endCursor });
			expect(second.seqs).toEqual([4, 5, 6]);
			expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
			const third = await entriesPage(sessionId, { first: 3, after: second.pageInfo.endCursor });
			expect(third.seqs).toEqual([7]);
			expect(third.pageInfo.hasNextPage).toBe(false);
			const beyond = await entriesPage(sessionId, { first: 3, after: third.pageInfo.endCursor });
			expect(beyond).toMatchObject({ totalCount: 7, edges: [] });
			expect(beyond.pageInfo.hasNextPage).toBe(false);
			// The cursors of the pages are those of the whole log.
			expect([...first.edges, ...second.edges, ...third.edges].map((e) => e.cursor)).toEqual(
				all.edges.map((e) => e.cursor),
			);
		});

		it("pages the append log backwards with last/before", async () => {
			const sessionId = await sevenEntries();
			const last = await entriesPage(sessionId, { last: 3 });
			expect(last).toMatchObject({ totalCount: 7, seqs: [5, 6, 7] });
			expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
			const before = await entriesPage(sessionId, { last: 3, before: last.pageInfo.startCursor });
			expect(before.seqs).toEqual([2, 3, 4]);
			expect(before.pageInfo).toMatchObject({ hasPreviousPage: true });
			const start = await entriesPage(sessionId, { last: 3, before: before.pageInfo.startCursor });
			expect(start.seqs).toEqual([1]);
			expect(start.pageInfo.hasPreviousPage).toBe(false);
			const beyond = await entriesPage(sessionId, { last: 3, before: start.pageInfo.startCursor });
			expect(beyond).toMatchObject({ edges: [], pageInfo: { hasPreviousPage: false } });
		});

		it("filters by entry type, counting only those", async () => {
			const sessionId = await sevenEntries();
			const messages = await entriesPage(sessionId, { types: ["MESSAGE"] });
			expect(messages).toMatchObject({ totalCount: 5, seqs: [1, 2, 3, 4, 6] });
			const records = await entriesPage(sessionId, { types: ["LEAF", "LABEL"] });
			expect(records.edges.map((e) => [e.node.seq, e.node.type])).toEqual([
				[5, "LEAF"],
				[7, "LABEL"],
			]);
			expect(records.totalCount).toBe(2);
			const page = await entriesPage(sessionId, {
				types: ["MESSAGE"],
				first: 2,
				after: messages.edges[1]?.cursor,
			});
			expect(page).toMatchObject({ totalCount: 5, seqs: [3, 4] });
			expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
			const lastMessages = await entriesPage(sessionId, { types: ["MESSAGE"], last: 2 });
			expect(lastMessages.seqs).toEqual([4, 6]);
			const none = await entriesPage(sessionId, { types: ["COMPACTION"] });
			expect(none).toMatchObject({ totalCount: 0, edges: [] });
		});

		it("pages sessions newest activity first, forwards and backwards", async () => {
			// Created in order; ids sort in the same order, so ties in time break the same way.
			const prefix = uniqueId("page");
			const mine = ["1", "2", "3", "4", "5"].map((n) => `${prefix}-${n}`);
			for (const sessionId of mine) await create({ sessionId });
			const SESSIONS = `query($first: Int, $after: String, $last: Int, $before: String) {
				sessions(first: $first, after: $after, last: $last, before: $before) {
					totalCount edges { cursor node { sessionId } }
					pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
				}
			}`;
			const sessionsPage = async (args: Record<string, unknown>) => {
				const page = (await query<{ sessions: Connection<{ sessionId: string }> }>(SESSIONS, args)).sessions;
				expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
				expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
				return { ...page, ids: page.edges.map((e) => e.node.sessionId) };
			};
			const newest = [...mine].reverse();
			const first = await sessionsPage({ first: 2 });
			expect(first.ids).toEqual(newest.slice(0, 2));
			expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
			const next = await sessionsPage({ first: 2, after: first.pageInfo.endCursor });
			expect(next.ids).toEqual(newest.slice(2, 4));
			expect(next.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });

			// Activity reorders: appending makes the oldest of mine the newest.
			await append(mine[0] as string, { message: userMessage("bump") });
			expect((await sessionsPage({ first: 1 })).ids).toEqual([mine[0]]);
			const backwards = await sessionsPage({
				last: 2,
				before: (await sessionsPage({ first: 4 })).pageInfo.endCursor,
			});
			expect(backwards.ids).toEqual([mine[4], mine[3]]);
			expect(backwards.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });

			// The last page and past the end, over every session of the server.
			const all = await sessionsPage({ first: 500 });
			expect(all.totalCount).toBe(all.edges.length);
			expect(all.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
			const last = await sessionsPage({ last: 2 });
			expect(last.ids).toEqual(all.ids.slice(-2));
			expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: all.totalCount > 2 });
			const beyond = await sessionsPage({ first: 2, after: last.pageInfo.endCursor });
			expect(beyond).toMatchObject({
				totalCount: all.totalCount,
				edges: [],
				pageInfo: { hasNextPage: false },
			});
		});
	});

	describe("no N+1: statements per request do not grow with the page", () => {
		/** Run one request while counting the SQL statements it sends. */
		async function countStatements(text: string, variables: Record<string, unknown>) {
			statements = [];
			try {
				dataOf(await request(text, variables));
				return statements.length;
			} finally {
				statements = null;
			}
		}

		const TIPS = `query($id: String!) { session(sessionId: $id) { tips { entryId parent { entryId } label } } }`;
		const PAGE = `query($id: String!, $first: Int!, $after: String) { session(sessionId: $id) {
			entries(first: $first, after: $after) { edges { node { entryId parent { entryId } children { entryId } label } } }
		} }`;

		it("tips with parent and label: the same count for 10 and 100 tips", async () => {
			const ten = await importFile(branchyJsonl(uniqueId("tips10"), 10, 150));
			const hundred = await importFile(branchyJsonl(uniqueId("tips100"), 100, 200));
			expect(ten.entryCount).toBeGreaterThanOrEqual(150);
			const tips = async (sessionId: string) =>
				(await query<{ session: { tips: Array<{ label: string | null }> } }>(TIPS, { id: sessionId })).session
					.tips;
			expect(await tips(ten.sessionId)).toHaveLength(10);
			expect(await tips(hundred.sessionId)).toHaveLength(100);
			// Labels and parents are really resolved (some tips are labelled).
			expect((await tips(hundred.sessionId)).filter((t) => t.label !== null).length).toBeGreaterThan(0);

			const forTen = await countStatements(TIPS, { id: ten.sessionId });
			const forHundred = await countStatements(TIPS, { id: hundred.sessionId });
			// Measured: 4 (session, tips, parents, labels) on both backends.
			expect(forHundred).toBe(forTen);
			expect(forTen).toBeLessThanOrEqual(5);
		});

		it("a page of entries with parent, children and label: the same count for 10 and 100", async () => {
			const session = await importFile(branchyJsonl(uniqueId("page"), 30, 160));
			expect(session.entryCount).toBeGreaterThanOrEqual(150);
			// Start mid-log, so parents outside the page must be fetched too.
			const { session: start } = await query<{ session: { entries: { pageInfo: PageInfo } } }>(
				`query($id: String!) { session(sessionId: $id) { entries(first: 15) { pageInfo { endCursor } } } }`,
				{ id: session.sessionId },
			);
			const after = start.entries.pageInfo.endCursor;
			interface Node {
				entryId: string;
				parent: { entryId: string } | null;
				children: unknown[];
				label: string | null;
			}
			const page = async (first: number) =>
				(
					await query<{ session: { entries: { edges: Array<{ node: Node }> } } }>(PAGE, {
						id: session.sessionId,
						first,
						after,
					})
				).session.entries.edges.map((e) => e.node);
			expect(await page(10)).toHaveLength(10);
			const hundred = await page(100);
			expect(hundred).toHaveLength(100);
			expect(hundred[0]?.parent?.entryId).toBe("t14");
			expect(hundred.some((e) => e.label !== null)).toBe(true);
			expect(hundred.some((e) => e.children.length > 1)).toBe(true);

			const forTen = await countStatements(PAGE, { id: session.sessionId, first: 10, after });
			const forHundred = await countStatements(PAGE, { id: session.sessionId, first: 100, after });
			// Measured: 5 (session, page, parents, children, labels) on both backends.
			expect(forHundred).toBe(forTen);
			expect(forTen).toBeLessThanOrEqual(6);
		});

		const FIELDS = "entryId seq type parentId depth author timestamp";
		/** The same page read as the common query (one plain field), and through a fragment (no look-ahead). */
		const plain = (args: string) =>
			`query($id: String!) { session(sessionId: $id) { entries(${args}) { totalCount edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage hasPreviousPage } } } }`;
		const fragment = (args: string) =>
			`query($id: String!) { session(sessionId: $id) { ...S } } fragment S on Session { entries(${args}) { totalCount edges { cursor node { ${FIELDS} ... on MessageEntry { role } } } pageInfo { hasNextPage hasPreviousPage } } }`;

		it("a session with a page of its entries is one statement, with the same answers", async () => {
			const session = await importFile(branchyJsonl(uniqueId("one-read"), 5, 60));
			const id = session.sessionId;
			for (const args of [
				"first: 100",
				"first: 7",
				"last: 5",
				"first: 3, types: [LEAF, MESSAGE]",
				"first: 2, types: []",
			]) {
				const answer = await query<{
					session: { entries: { edges: Array<{ node: Record<string, unknown> }> } };
				}>(plain(args), { id });
				const general = await query<typeof answer>(fragment(args), { id });
				for (const edge of general.session.entries.edges) delete edge.node.role;
				expect(answer).toEqual(general);
			}
			// The session and its page together; a count of other types is a statement of its own.
			expect(await countStatements(plain("first: 100"), { id })).toBe(1);
			expect(await countStatements(plain("first: 3, types: [MESSAGE]"), { id })).toBe(2);
			// No such session: null, as without the look-ahead.
			expect(await query(plain("first: 5"), { id: uniqueId("missing") })).toEqual({ session: null });
			// Wrong arguments are reported by the entries field, as without the look-ahead.
			for (const args of ["first: -1", "first: 2, last: 2", 'after: "nope"']) {
				const [plainError, generalError] = await Promise.all([
					request(plain(args), { id }),
					request(fragment(args), { id }),
				]);
				expect(plainError.errors?.map((e) => [e.path, e.extensions?.code])).toEqual(
					generalError.errors?.map((e) => [e.path, e.extensions?.code]),
				);
				expect(plainError.errors?.[0]?.path).toEqual(["session", "entries"]);
			}
		});

		it("a branch of ids only answers as the whole branch does", async () => {
			const session = await importFile(branchyJsonl(uniqueId("brief-branch"), 3, 40));
			const id = session.sessionId;
			const whole = await query<{ session: { branch: Array<Record<string, unknown>> } }>(
				`query($id: String!) { session(sessionId: $id) { branch(full: true) { ${FIELDS} ... on MessageEntry { role } } } }`,
				{ id },
			);
			const brief = await query<typeof whole>(
				`query($id: String!) { session(sessionId: $id) { branch(full: true) { ${FIELDS} } } }`,
				{ id },
			);
			const ids = await query<{ session: { branch: Array<{ entryId: string }> } }>(
				`query($id: String!) { session(sessionId: $id) { branch(full: true) { entryId parent { entryId timestamp } } } }`,
				{ id },
			);
			expect(whole.session.branch.length).toBeGreaterThan(3);
			for (const entry of whole.session.branch) delete entry.role;
			expect(brief).toEqual(whole);
			expect(ids.session.branch.map((e) => e.entryId)).toEqual(whole.session.branch.map((e) => e.entryId));
		});
	});

	realPiFiles(() => server);
}

// ---- The real pi files --------------------------------------------------------

const piDir = resolve(process.env.PI_FIXTURES_DIR ?? join(repo, "..", "shared", "fixtures", "pi"));
const PI_FILES = ["large-session.v1.jsonl", "before-compaction.v1.jsonl"];
const piPresent = PI_FILES.every((name) => existsSync(join(piDir, name)));

/**
 * The two real pi files (see ../pi-fixtures.test.ts), imported over HTTP:
 * the served context equals pi's own SessionManager reading of the file.
 */
function realPiFiles(server: () => TestServer): void {
	if (!piPresent && process.env.CI) {
		describe("real pi files over HTTP", () => {
			it("are present in CI", () => {
				expect.fail(
					`The real pi session files are missing from ${piDir} (expected ${PI_FILES.join(", ")}). ` +
						"CI must provide them: check out ../shared/fixtures/pi beside the repo or set PI_FIXTURES_DIR.",
				);
			});
		});
	}

	describe.skipIf(!piPresent)(
		piPresent
			? "real pi files over HTTP"
			: `real pi files over HTTP (skipped: none in ${piDir}; set PI_FIXTURES_DIR)`,
		() => {
			let temp: string;
			beforeAll(() => {
				temp = mkdtempSync(join(tmpdir(), "pi-api-"));
			});
			afterAll(() => {
				if (temp) rmSync(temp, { recursive: true, force: true });
			});

			it.each(PI_FILES)("imports %s and serves the context pi builds", async (name) => {
				const text = readFileSync(join(piDir, name), "utf8");
				const response: GraphQLResponse<{ importSession: { sessionId: string; entryCount: number } }> =
					await server().request(
						`mutation($input: ImportSessionInput!) { importSession(input: $input) { sessionId entryCount } }`,
						{ input: { jsonl: text } },
					);
				const { sessionId, entryCount } = dataOf(response).importSession;
				expect(entryCount).toBe(text.trimEnd().split("\n").length - 1);
				// pi's own file, migrated from version 1, is the stored session: importing it again creates nothing.
				const again = await ok<{ importSessionFile: { created: boolean; session: { lastSeq: number } } }>(
					server(),
					`mutation($input: ImportSessionInput!) { importSessionFile(input: $input) { created session { lastSeq } } }`,
					{ input: { jsonl: text } },
				);
				expect(again.importSessionFile).toEqual({ created: false, session: { lastSeq: entryCount } });

				const { session } = await ok<{ session: { context: ContextView } }>(
					server(),
					`query($id: String!) { session(sessionId: $id) {
						context { messages thinkingLevel model { provider modelId } }
					} }`,
					{ id: sessionId },
				);
				// pi rewrites a file it migrates, so it opens a copy.
				const copy = join(temp, name);
				copyFileSync(join(piDir, name), copy);
				const theirs = asJson(SessionManager.open(copy, temp).buildSessionContext());
				expect(theirs.messages.length).toBeGreaterThan(100);
				expect(session.context).toEqual(theirs);
			});
		},
	);
}
