/**
 * Opening the Postgres store is bulk work: applying migrations, and making
 * the rollups of sessions that have none, may take far longer than a
 * request's statement. So it runs under the bulk statement timeout, never
 * the ordinary one; a server configured with a tight ordinary timeout must
 * still start on a loaded machine (CI once failed to start one with 20 ms,
 * its migrations and postgres.js's array-type lookup cancelled).
 */

import { getTableName } from "drizzle-orm";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/store/postgres/open.js";
import { usageRollups } from "../../src/store/postgres/schema.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

/** Far under any migration or rebuild: only the bulk timeout lets opening finish. */
const TIGHT = { ordinaryMs: 1, bulkMs: 60_000 };

describe("opening the Postgres store under a tight ordinary statement timeout", () => {
	let database: TestDatabase | undefined;
	afterEach(async () => {
		await database?.drop();
		database = undefined;
	});

	it("applies every migration to an empty database, then makes missing rollups, under the bulk timeout", async () => {
		database = await createTestDatabase({ empty: true });
		const migrated = await openPostgres(database.url, { statementTimeouts: TIGHT });
		await migrated.close();

		// A session whose rollups are missing (as if written before they existed): the next open makes them.
		const roomy = await openPostgres(database.url);
		try {
			await roomy.createSession("ws", { sessionId: "s" });
			for (const n of [1, 2, 3])
				await roomy.appendEntry("ws", "s", {
					type: "message",
					id: `e${n}`,
					message: { role: "user", content: `turn ${n}`, timestamp: 1_764_000_000_000 },
				});
		} finally {
			await roomy.close();
		}
		const admin = postgres(database.url, { max: 1, onnotice: () => {} });
		try {
			const rollups = getTableName(usageRollups);
			await admin.unsafe(`delete from ${rollups}`);
			const reopened = await openPostgres(database.url, { statementTimeouts: TIGHT });
			await reopened.close();
			const [row] = await admin.unsafe<{ n: number }[]>(`select count(*)::int as n from ${rollups}`);
			expect(row?.n).toBeGreaterThan(0);
		} finally {
			await admin.end({ timeout: 1 });
		}
	}, 60_000);
});
