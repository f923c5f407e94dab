/**
 * Presence through the real server (graphql/types/presence.ts): the
 * `presence` subscription over SSE and WebSocket joins for its lifetime and
 * lists the session's viewers; `setPresence` over HTTP moves a viewer's
 * focus, also when the subscription is served by another instance on the
 * same Postgres; closing the subscription leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SubscriptionClient, type SubscriptionResult, TRANSPORTS } from "../events/clients.js";
import { createSession, waitUntil } from "../events/helpers.js";
import { within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";

const WAIT = 10_000;
const PRESENCE = `subscription ($s: String!, $f: String) {
	presence(sessionId: $s, focusEntryId: $f) { viewerId viewers { viewerId subject focusEntryId since } }
}`;
const SET = `mutation ($i: SetPresenceInput!) { setPresence(input: $i) { viewerId focusEntryId } }`;

interface Snapshot {
	presence: {
		viewerId: string;
		viewers: Array<{ viewerId: string; subject: string | null; focusEntryId: string | null; since: string }>;
	};
}

async function until(
	client: SubscriptionClient<Snapshot>,
	what: string,
	ok: (r: SubscriptionResult<Snapshot>) => boolean,
): Promise<SubscriptionResult<Snapshot>> {
	return within(
		WAIT,
		what,
		(async () => {
			for (;;) {
				const r = await client.next();
				if (r.done) throw new Error(`${what}: ended`);
				if (ok(r.value)) return r.value;
			}
		})(),
	);
}

describe.each(["memory", "pglite", "postgres"] as const)("presence through the server (%s)", (backend) => {
	let a: TestServer;
	let b: TestServer;

	beforeAll(async () => {
		a = await startTestServer(backend, { presence: { heartbeatMs: 200, ttlMs: 1000 } });
		// On memory and PGlite, B is the same server: one instance.
		b =
			backend === "postgres"
				? await startTestServer("postgres", {
						databaseUrl: a.databaseUrl as string,
						presence: { heartbeatMs: 200, ttlMs: 1000 },
					})
				: a;
		await createSession(a, "p");
	});

	afterAll(async () => {
		if (b !== a) await b?.close();
		await a?.close();
	});

	it("joins for the subscription's lifetime, setPresence moves the focus, closing leaves", async () => {
		const [sse, ws] = TRANSPORTS;
		const first = sse?.subscribe<Snapshot>(a, PRESENCE, { s: "p", f: "e1" }) as SubscriptionClient<Snapshot>;
		const own = await until(first, "the first list", () => true);
		const me = own.data?.presence.viewerId as string;
		expect(own.data?.presence.viewers).toEqual([
			{ viewerId: me, subject: null, focusEntryId: "e1", since: expect.any(String) },
		]);
		const second = ws?.subscribe<Snapshot>(b, PRESENCE, { s: "p" }) as SubscriptionClient<Snapshot>;
		await until(second, "the other viewer seen from B", (r) => r.data?.presence.viewers.length === 2);

		// Through B's HTTP endpoint, for a viewer served by A.
		const set = await b.request(SET, { i: { sessionId: "p", viewerId: me, focusEntryId: "e2" } });
		expect(set).toEqual({ data: { setPresence: { viewerId: me, focusEntryId: "e2" } } });
		await until(second, "the focus on B", (r) =>
			Boolean(r.data?.presence.viewers.some((v) => v.viewerId === me && v.focusEntryId === "e2")),
		);
		const missing = await a.request(SET, { i: { sessionId: "p", viewerId: "nobody", focusEntryId: null } });
		expect(missing.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

		await first.close();
		await until(second, "the first viewer leaving", (r) => r.data?.presence.viewers.length === 1);
		await second.close();
		await waitUntil(
			"both hubs are empty",
			() => a.services.presence.sessionCount + b.services.presence.sessionCount === 0,
		);
	});

	it("an unknown session is NOT_FOUND and nothing is tracked", async () => {
		const client = TRANSPORTS[1]?.subscribe<Snapshot>(a, PRESENCE, {
			s: "no-such",
		}) as SubscriptionClient<Snapshot>;
		const r = await until(client, "the error", () => true);
		expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
		await client.close();
		expect(a.services.presence.sessionCount).toBe(0);
	});
});

describe("presence for a read-only caller", () => {
	it("a read-only caller is present under its subject and may move its own viewer's focus, not another's", async () => {
		const reader = (subject: string) => async () => ({
			workspaceId: "default",
			subject,
			scopes: new Set(["read"] as const),
			expiresAt: null,
		});
		const ro = await startTestServer("memory", { authenticate: reader("ann") });
		try {
			await ro.services.store.createSession("default", { sessionId: "r" });
			const client = TRANSPORTS[0]?.subscribe<Snapshot>(ro, PRESENCE, {
				s: "r",
			}) as SubscriptionClient<Snapshot>;
			const first = await until(client, "the first list", () => true);
			const me = first.data?.presence.viewerId as string;
			expect(first.data?.presence.viewers.map((v) => v.subject)).toEqual(["ann"]);
			const set = await ro.request(SET, { i: { sessionId: "r", viewerId: me, focusEntryId: "x" } });
			expect(set).toEqual({ data: { setPresence: { viewerId: me, focusEntryId: "x" } } });
			const other = ro.services.presence.join("default", "r", { subject: "bob", focusEntryId: null });
			const refused = await ro.request(SET, {
				i: { sessionId: "r", viewerId: other.viewerId, focusEntryId: "x" },
			});
			expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
			other.leave();
			await client.close();
		} finally {
			await ro.close();
		}
	});
});
