/**
 * PGlite data directories for the tests: each a copy of one that the global
 * setup created and migrated with `openPglite` at the start of the run.
 * Creating a directory runs initdb in WebAssembly and every migration
 * (seconds, and a run needs dozens of directories); copying one takes a
 * fraction of that. The run still creates and migrates an empty directory
 * through the store's own open path once, and a test about what that does
 * (test/store/session-key-migration.test.ts) makes its own.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { openPglite } from "../../src/store/postgres/open.js";

declare module "vitest" {
	export interface ProvidedContext {
		/** A migrated PGlite data directory nobody opens: copy it, never use it. */
		pgliteTemplate: string;
	}
}

/** Global setup: the template directory, and how to remove it at the end of the run. */
export async function createPgliteTemplate(): Promise<{ dir: string; remove(): void }> {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-pglite-template-"));
	try {
		await (await openPglite(dir)).close();
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
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
