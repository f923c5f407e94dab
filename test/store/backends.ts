/**
 * The three backends as disposable fixtures for the conformance suite. Each
 * fixture owns its data: memory state, a temporary PGlite directory, or a
 * database of its own on the test Postgres server.
 */

import { rmSync } from "node:fs";
import type { InputLimits } from "../../src/session/limits.js";
import { MemoryDatabase, MemoryStore } from "../../src/store/memory.js";
import { openPgliteWorker } from "../../src/store/pglite-worker/worker-store.js";
import { type OpenOptions, openPostgres } from "../../src/store/postgres/open.js";
import type { SessionStore } from "../../src/store/store.js";
import { createTestDatabase } from "../support/databases.js";
import { freshPgliteDirectory } from "../support/pglite-directories.js";

export interface Backend {
	readonly name: "memory" | "pglite" | "postgres";
	/** The store the suite uses; replaced when a second instance takes over (PGlite). */
	readonly store: SessionStore;
	/**
	 * Run `fn` with a second store opened on the same database. Postgres and
	 * memory open it beside the first; PGlite, a single-process database,
	 * closes the first and reopens its directory (the second stays in use).
	 */
	withSecondInstance<T>(fn: (second: SessionStore) => Promise<T>): Promise<T>;
	dispose(): Promise<void>;
}

export async function memoryBackend(options: { limits?: InputLimits } = {}): Promise<Backend> {
	const db = new MemoryDatabase();
	const store = new MemoryStore(db, options);
	return {
		name: "memory",
		store,
		withSecondInstance: (fn) => fn(new MemoryStore(db, options)),
		dispose: () => store.close(),
	};
}

/** PGlite on a directory, as the server runs it: on a worker thread (the suite judges that store). */
export async function pgliteBackend(options: OpenOptions = {}): Promise<Backend> {
	const dir = freshPgliteDirectory();
	let store: SessionStore = await openPgliteWorker(dir, options);
	return {
		name: "pglite",
		get store() {
			return store;
		},
		async withSecondInstance(fn) {
			await store.close();
			store = await openPgliteWorker(dir, options);
			return fn(store);
		},
		async dispose() {
			await store.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

export async function postgresBackend(options: OpenOptions = {}): Promise<Backend> {
	const database = await createTestDatabase();
	const store = await openPostgres(database.url, options);
	return {
		name: "postgres",
		store,
		async withSecondInstance(fn) {
			const second = await openPostgres(database.url, options);
			try {
				return await fn(second);
			} finally {
				await second.close();
			}
		},
		async dispose() {
			await store.close();
			await database.drop();
		},
	};
}
