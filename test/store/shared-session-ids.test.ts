/**
 * Two workspaces may hold a session of the same id with the same entry ids
 * (the same pi file imported into both). Some secondary indexes leave the
 * workspace out to stay small (src/store/postgres/schema.ts); every read
 * must still answer from the caller's workspace only. Run on each backend
 * (opening PGlite and Postgres also applies every migration).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DraftEntry, StoredEntry } from "../../src/session/entry.js";
import { type Backend, memoryBackend, pgliteBackend, postgresBackend } from "./backends.js";
import { assistant, user } from "./conformance.js";

const withId = (id: string, draft: DraftEntry): DraftEntry => ({ ...draft, id });
const ids = (entries: readonly StoredEntry[] | undefined) => (entries ?? []).map((e) => e.entry.id);

describe.each([
	["memory", memoryBackend],
	["pglite", pgliteBackend],
	["postgres", postgresBackend],
])("the same session id in two workspaces: %s", (_name, open) => {
	let backend: Backend;
	const session = "shared";
	const branched = `ws-${randomBytes(5).toString("hex")}`;
	const plain = `ws-${randomBytes(5).toString("hex")}`;

	beforeAll(async () => {
		backend = await open();
		const s = backend.store;
		for (const ws of [branched, plain]) {
			await s.createSession(ws, { sessionId: session });
			await s.appendEntry(ws, session, withId("u1", user("u1")));
			await s.appendEntry(ws, session, withId("a1", assistant("a1")));
		}
		// Only `branched` gets a second turn and a branch from u1.
		await s.appendEntry(branched, session, withId("u2", user("u2")));
		await s.moveLeaf(branched, session, { targetId: "u1" });
		await s.appendEntry(branched, session, withId("a2", assistant("a2")));
	});
	afterAll(async () => {
		await backend?.dispose();
	});

	it("lists each workspace's children of an entry", async () => {
		const s = backend.store;
		expect(ids((await s.children(branched, session, ["u1"])).get("u1"))).toEqual(["a1", "a2"]);
		expect(ids((await s.children(plain, session, ["u1"])).get("u1"))).toEqual(["a1"]);
		expect(ids((await s.children(plain, session, ["a1"])).get("a1"))).toEqual([]);
	});

	it("finds each workspace's tips", async () => {
		const s = backend.store;
		expect(ids(await s.tips(branched, session))).toEqual(["u2", "a2"]);
		expect(ids(await s.tips(plain, session))).toEqual(["a1"]);
	});

	it("counts and lists each workspace's entries by type", async () => {
		const s = backend.store;
		expect(await s.countEntries(branched, session, ["message"])).toBe(4);
		expect(await s.countEntries(plain, session, ["message"])).toBe(2);
		expect(await s.countEntries(plain, session, ["leaf"])).toBe(0);
		expect(ids(await s.listEntries(plain, session, { types: ["message"] }))).toEqual(["u1", "a1"]);
		expect(
			ids(await s.listEntries(branched, session, { types: ["message"], limit: 2, fromEnd: true })),
		).toEqual(["u2", "a2"]);
	});
});
