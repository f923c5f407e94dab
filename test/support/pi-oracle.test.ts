/**
 * The oracle the tests compare with is pi itself: every name a test file
 * imports from `@mariozechner/pi-coding-agent` (resolved to pi-oracle.ts,
 * see there) is the package's own export, not a missing one read as
 * undefined.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const TEST_DIR = fileURLToPath(new URL("..", import.meta.url));
const IMPORTS = /import\s*\{([^}]*)\}\s*from\s*"@mariozechner\/pi-coding-agent"/g;

function importedNames(): Set<string> {
	const names = new Set<string>();
	for (const file of readdirSync(TEST_DIR, { recursive: true, encoding: "utf8" })) {
		if (!file.endsWith(".ts")) continue;
		for (const [, list] of readFileSync(join(TEST_DIR, file), "utf8").matchAll(IMPORTS)) {
			for (const part of (list as string).split(",")) {
				const name = part.trim().split(/\s+as\s+/)[0] as string;
				if (name && !name.startsWith("type ")) names.add(name);
			}
		}
	}
	return names;
}

it("gives the tests pi's own functions for every name they import from pi", async () => {
	const pi = (await import("../../node_modules/@mariozechner/pi-coding-agent/dist/index.js")) as Record<
		string,
		unknown
	>;
	const oracle = (await import("./pi-oracle.js")) as Record<string, unknown>;
	const names = importedNames();
	expect(names).toContain("buildSessionContext");
	for (const name of names) {
		expect(pi[name], `pi exports ${name}`).toBeDefined();
		expect(oracle[name], `pi-oracle.ts gives ${name}`).toBe(pi[name]);
	}
});
