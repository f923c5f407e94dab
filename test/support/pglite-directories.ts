/**
 * PGlite data directories for the tests: each a copy of one that the global
 * setup made at the start of the run. Creating a directory runs initdb in
 * WebAssembly and every migration (seconds, and a run needs dozens of
 * directories); copying one takes a fraction of that. The global setup makes
 * two: one initdb left (no schema: for the tests of migrating), and a copy of
 * it migrated through the store's own open path (every other test). The
 * first depends only on PGlite and the settings below, so it is kept between
 * runs (node_modules/.cache): initdb took 5 of a run's first 14 s.
 */
import { createHash } from "node:crypto";
import {
	appendFileSync,
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	renameSync,
	rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { inject } from "vitest";
import { openPglite } from "../../src/store/postgres/open.js";
import { PGLITE_WASM, pgliteWasmModule } from "../../src/store/postgres/pglite-wasm.js";

declare module "vitest" {
	export interface ProvidedContext {
		/** A migrated PGlite data directory nobody opens: copy it, never use it. */
		pgliteTemplate: string;
		/** The same before any migration (initdb only): copy it, never use it. */
		pgliteEmptyTemplate: string;
	}
}

/**
 * The tests' PGlite settings, in the templates' postgresql.conf. Postgres
 * clears its shared buffers when it starts, and PGlite starts it in
 * WebAssembly at every open: at the default 128MB that was half of an open's
 * second of CPU, paid by every test directory and every server a test spawns
 * on one. A test's database is a few megabytes.
 */
const TEST_SETTINGS =
	"\n# The tests' directories (test/support/pglite-directories.ts)\nshared_buffers = 8MB\n";

const CACHE = fileURLToPath(new URL("../../node_modules/.cache/session-tree-tests", import.meta.url));

/** The initdb'd directory of this PGlite version with TEST_SETTINGS, made if the cache lacks it. */
async function initdbDirectory(): Promise<string> {
	// The package's root: its dist/ holds the WebAssembly.
	const pgliteDir = dirname(dirname(PGLITE_WASM));
	const { version } = JSON.parse(readFileSync(join(pgliteDir, "package.json"), "utf8")) as {
		version: string;
	};
	const key = createHash("sha256").update(`${version}\0${TEST_SETTINGS}`).digest("hex").slice(0, 16);
	const cached = join(CACHE, `pglite-initdb-${key}`);
	if (existsSync(join(cached, "PG_VERSION"))) return cached;
	mkdirSync(CACHE, { recursive: true });
	// Made beside its place and renamed into it: a run sees a whole directory or none.
	const building = mkdtempSync(`${cached}.building-`);
	try {
		const client = new PGlite(building, { pgliteWasmModule: await pgliteWasmModule() });
		await client.waitReady;
		await client.close();
		appendFileSync(join(building, "postgresql.conf"), TEST_SETTINGS);
		renameSync(building, cached);
	} catch (error) {
		rmSync(building, { recursive: true, force: true });
		// A run beside this one put its copy there first.
		if (!existsSync(join(cached, "PG_VERSION"))) throw error;
	}
	return cached;
}

/** Global setup: both templates, and how to remove them at the end of the run. */
export async function createPgliteTemplates(): Promise<{ empty: string; migrated: string; remove(): void }> {
	const empty = mkdtempSync(join(tmpdir(), "session-tree-pglite-empty-"));
	const migrated = mkdtempSync(join(tmpdir(), "session-tree-pglite-template-"));
	const remove = () => {
		rmSync(empty, { recursive: true, force: true });
		rmSync(migrated, { recursive: true, force: true });
	};
	try {
		cpSync(await initdbDirectory(), empty, { recursive: true });
		cpSync(empty, migrated, { recursive: true });
		await (await openPglite(migrated)).close();
	} catch (error) {
		remove();
		throw error;
	}
	return { empty, migrated, remove };
}

/** Copies the migrated template to `dir` (created if missing), a directory nobody holds yet. */
export function copyPgliteTemplate(dir: string): string {
	cpSync(inject("pgliteTemplate"), dir, { recursive: true });
	return dir;
}

/** A new temporary PGlite data directory holding a migrated, empty database; the caller removes it. */
export function freshPgliteDirectory(prefix = "session-tree-pglite-"): string {
	return copyPgliteTemplate(mkdtempSync(join(tmpdir(), prefix)));
}

/** A new temporary PGlite data directory with no schema at all (initdb only); the caller removes it. */
export function emptyPgliteDirectory(prefix = "session-tree-pglite-empty-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	cpSync(inject("pgliteEmptyTemplate"), dir, { recursive: true });
	return dir;
}
