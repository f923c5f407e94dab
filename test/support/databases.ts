/** Disposable databases on the test Postgres server: each test file owns one and drops it. */
import { inject } from "vitest";
import { createDatabase, type DisposableDatabase } from "../../scripts/dev-postgres.js";

export type TestDatabase = DisposableDatabase;

export function createTestDatabase(): Promise<TestDatabase> {
	return createDatabase(inject("postgresUrl"), "session_tree_test");
}
