/** Disposable databases on the test Postgres server: each test file owns one and drops it. */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";

export interface TestDatabase {
	url: string;
	drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
	const adminUrl = inject("postgresUrl");
	const name = `session_tree_test_${randomBytes(6).toString("hex")}`;
	const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
	try {
		await admin.unsafe(`create database ${name}`);
	} finally {
		await admin.end({ timeout: 1 });
	}
	const url = new URL(adminUrl);
	url.pathname = `/${name}`;
	return {
		url: url.toString(),
		async drop() {
			const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
			try {
				await sql.unsafe(`drop database if exists ${name} with (force)`);
			} finally {
				await sql.end({ timeout: 1 });
			}
		},
	};
}
