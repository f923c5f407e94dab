/**
 * /health/ready on Postgres follows the database: 503 with the reason while
 * the database refuses connections (its connections cut and new ones
 * refused: what a stopped database looks like from here), 200 again once
 * it answers, without restarting the server. /health/live stays 200 all along.
 * And it follows the LISTEN connection that live updates depend on: killed
 * (while the database still answers the pool), ready is 503 with a listener
 * reason until postgres.js listens again; the probe is a NOTIFY that must come
 * back through that connection, not a count of past LISTENs.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgListenBus } from "../../src/events/pg-bus.js";
import { within } from "../support/expect.js";
import { startTestServer, type TestServer } from "../support/server.js";

async function readiness(
	server: TestServer,
): Promise<{ status: number; body: { status: string; reason?: string } }> {
	const response = await fetch(new URL("/health/ready", server.url));
	return { status: response.status, body: (await response.json()) as { status: string; reason?: string } };
}

/** Ask until `accept` holds (the pool reconnects in about a second); the caller's `within` bounds it. */
async function until(server: TestServer, accept: (status: number) => boolean) {
	for (;;) {
		const answer = await readiness(server);
		if (accept(answer.status)) return answer;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

describe("readiness on Postgres", () => {
	let server: TestServer;
	let admin: postgres.Sql;
	let database: string;

	beforeAll(async () => {
		server = await startTestServer("postgres");
		const url = new URL(server.databaseUrl as string);
		database = url.pathname.slice(1);
		url.pathname = "/postgres";
		admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
	}, 60_000);

	afterAll(async () => {
		await admin?.unsafe(`alter database "${database}" allow_connections true`).catch(() => {});
		await admin?.end({ timeout: 1 });
		await server?.close();
	});

	it("is 200 while the database answers, 503 with a reason while it refuses connections, and 200 again after", async () => {
		expect(await readiness(server)).toEqual({ status: 200, body: { status: "ready" } });

		await admin.unsafe(`alter database "${database}" allow_connections false`);
		await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database}`;
		const down = await within(
			10_000,
			"ready to turn 503",
			until(server, (status) => status === 503),
		);
		expect(down.body.status).toBe("unavailable");
		expect(down.body.reason).toMatch(/^database: /);
		expect((await fetch(new URL("/health/live", server.url))).status).toBe(200);

		await admin.unsafe(`alter database "${database}" allow_connections true`);
		const up = await within(
			15_000,
			"ready to turn 200 again",
			until(server, (status) => status === 200),
		);
		expect(up.body).toEqual({ status: "ready" });
		// And it serves again.
		expect((await server.request("{ sessions(first: 1) { totalCount } }")).errors).toBeUndefined();
	}, 40_000);

	it("is 503 with a listener reason while the listening connection is gone, and 200 once postgres.js listens again", async () => {
		expect(await readiness(server)).toEqual({ status: 200, body: { status: "ready" } });
		// New connections refused, so the killed listener cannot come back until allowed; the store's
		// pooled connection stays, so the database itself still answers.
		await admin.unsafe(`alter database "${database}" allow_connections false`);
		const killed = await admin<{ pid: number }[]>`
			select pg_terminate_backend(pid) as pid from pg_stat_activity
			where datname = ${database} and application_name = 'session-tree-listen'`;
		expect(killed.length).toBeGreaterThanOrEqual(1);
		const down = await within(
			10_000,
			"ready to turn 503",
			until(server, (status) => status === 503),
		);
		expect(down.body.status).toBe("unavailable");
		expect(down.body.reason).toMatch(/^listener: /);

		await admin.unsafe(`alter database "${database}" allow_connections true`);
		const up = await within(
			15_000,
			"ready to turn 200 again",
			until(server, (status) => status === 200),
		);
		expect(up.body).toEqual({ status: "ready" });
		// It listened again (the reconnect that made the probe pass), not merely answered.
		expect(server.services.bus).toBeInstanceOf(PgListenBus);
		expect((server.services.bus as PgListenBus).listenCount).toBeGreaterThanOrEqual(2);
	}, 40_000);
});
