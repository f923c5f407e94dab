/**
 * The layer boundaries in biome.json (`noRestrictedImports`, one override per
 * layer) fail `npm run lint` on a wrong import and pass a right one. Biome
 * runs once over a scratch copy of the tree shape (biome.json and one small
 * file per case in a temporary directory), so nothing is written into src.
 * (`biome lint --stdin-file-path` prints no diagnostics and exits 1 even for
 * clean input in Biome 2.6, so it cannot tell the cases apart.)
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIOME = join(ROOT, "node_modules/.bin/biome");
const RULE = "lint/style/noRestrictedImports";
const run = promisify(execFile);

interface Case {
	/** Where the importing file sits, as under src. */
	file: string;
	from: string;
	/** A phrase of the rule's message, for a wrong import; absent when the import is allowed. */
	says?: string;
}

const WRONG: Case[] = [
	{ file: "src/session/wrong.ts", from: "../store/store.js", says: "src/session may import nothing" },
	{ file: "src/store/wrong.ts", from: "../events/bus.js", says: "src/store may not import src/events" },
	{
		file: "src/store/postgres/wrong.ts",
		from: "../../events/live.js",
		says: "src/store may not import src/events",
	},
	{
		file: "src/store/wrong-config.ts",
		from: "../config.js",
		says: "src/store may not import the root config",
	},
	{ file: "src/store/wrong-graphql.ts", from: "../graphql/schema.js", says: "src/store may import only" },
	{ file: "src/store/wrong-logger.ts", from: "../logger.js", says: "src/store may not import the logger" },
	{ file: "src/auth/wrong.ts", from: "../store/store.js", says: "src/auth may import only src/session" },
	{ file: "src/auth/wrong-config.ts", from: "../config.js", says: "src/auth may not import the root config" },
	{ file: "src/events/wrong.ts", from: "../graphql/schema.js", says: "src/events may import only" },
	{
		file: "src/events/wrong-config.ts",
		from: "../config.js",
		says: "src/events may not import the root config",
	},
	{ file: "src/graphql/types/wrong.ts", from: "../../app.js", says: "src/graphql may not import app" },
	{ file: "src/graphql/wrong-app.ts", from: "../app/origins.js", says: "src/graphql may not import app" },
	{
		file: "src/graphql/wrong-auth.ts",
		from: "../auth/verify.js",
		says: "src/graphql may import from src/auth only identity.ts",
	},
	{
		file: "src/graphql/wrong-config.ts",
		from: "../config.js",
		says: "src/graphql may not import the root config",
	},
	{ file: "src/app/wrong.ts", from: "../server.js", says: "src/app may not import server.ts" },
	{ file: "src/app.ts", from: "./main.js", says: "src/app.ts may not import server.ts" },
	{ file: "src/services.ts", from: "./graphql/schema.js", says: "src/services.ts may import only" },
	{ file: "src/server.ts", from: "./main.js", says: "src/server.ts may not import main.ts" },
	{
		file: "src/main.ts",
		from: "./cli/import.js",
		says: "src/main.ts (the server process) may not import src/cli",
	},
	{ file: "src/cli/wrong.ts", from: "../main.js", says: "src/cli may not import main.ts" },
	{ file: "src/follow/wrong.ts", from: "../store/store.js", says: "src/follow may import only src/session" },
	{
		file: "src/follow/wrong-config.ts",
		from: "../config.js",
		says: "src/follow may import only src/session",
	},
	{ file: "src/config.ts", from: "./events/live.js", says: "src/config.ts may import only" },
	{ file: "src/logger.ts", from: "./session/errors.js", says: "src/logger.ts imports nothing of ours" },
];

const RIGHT: Case[] = [
	{ file: "src/session/right.ts", from: "./entry.js" },
	{ file: "src/session/right-node.ts", from: "node:fs" },
	{ file: "src/auth/right.ts", from: "../session/errors.js" },
	{ file: "src/auth/right-own-config.ts", from: "./config.js" },
	{ file: "src/store/right.ts", from: "../session/entry.js" },
	{ file: "src/store/postgres/right.ts", from: "../../session/entry.js" },
	{ file: "src/store/postgres/right-store.ts", from: "../commits.js" },
	{ file: "src/store/right-package.ts", from: "drizzle-orm" },
	{ file: "src/events/right.ts", from: "../store/commits.js" },
	{ file: "src/events/right-logger.ts", from: "../logger.js" },
	{ file: "src/graphql/types/right.ts", from: "../../events/live.js" },
	{ file: "src/graphql/right-auth.ts", from: "../auth/identity.js" },
	{ file: "src/graphql/right-package.ts", from: "graphql" },
	{ file: "src/app/right.ts", from: "../config.js" },
	{ file: "src/app/right-graphql.ts", from: "../graphql/errors.js" },
	{ file: "src/cli/right.ts", from: "../store/open.js" },
	{ file: "src/cli/right-follow.ts", from: "../follow/follower.js" },
	{ file: "src/follow/right.ts", from: "./sink.js" },
	{ file: "src/follow/right-package.ts", from: "chokidar" },
];

/** `file` → the noRestrictedImports messages Biome reported for it. */
let reported: Map<string, string[]>;
let exitCode: number;
let dir: string;

beforeAll(async () => {
	dir = mkdtempSync(join(tmpdir(), "boundaries-"));
	const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8"));
	delete config.vcs; // the scratch directory is no git checkout
	writeFileSync(join(dir, "biome.json"), JSON.stringify(config));
	for (const { file, from } of [...WRONG, ...RIGHT]) {
		mkdirSync(dirname(join(dir, file)), { recursive: true });
		writeFileSync(join(dir, file), `import * as imported from "${from}";\n\nexport const used = imported;\n`);
	}
	let stdout: string;
	try {
		({ stdout } = await run(BIOME, ["lint", "--reporter=github", "--max-diagnostics=none", "src"], {
			cwd: dir,
		}));
		exitCode = 0;
	} catch (error) {
		const failed = error as { code?: number; stdout?: string };
		if (typeof failed.code !== "number" || failed.stdout === undefined) throw error;
		({ stdout } = failed as { stdout: string });
		exitCode = failed.code;
	}
	// `::error title=<rule>,file=<absolute path>,line=…::<message>`
	reported = new Map();
	for (const match of stdout.matchAll(/^::error title=([^,]+),file=([^,]+),[^\n]*?::(.*)$/gm)) {
		const [, rule, file, message] = match as unknown as [string, string, string, string];
		if (rule !== RULE) continue;
		const key = file.slice(dir.length + 1);
		reported.set(key, [...(reported.get(key) ?? []), message]);
	}
});

afterAll(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("layer boundaries (biome noRestrictedImports)", () => {
	it("fails the lint when any file crosses a boundary", () => {
		expect(exitCode).not.toBe(0);
	});

	it.each(WRONG)("rejects $file importing $from", ({ file, says }) => {
		const messages = reported.get(file) ?? [];
		expect(messages).toHaveLength(1);
		expect(messages[0]).toContain(says);
	});

	it.each(RIGHT)("allows $file importing $from", ({ file }) => {
		expect(reported.get(file) ?? []).toEqual([]);
	});

	it("finds no crossing in the tree as it is", async () => {
		const { stdout } = await run(
			BIOME,
			["lint", `--only=${RULE.slice("lint/".length)}`, "--reporter=github", "src"],
			{
				cwd: ROOT,
			},
		);
		expect(stdout).not.toContain(RULE);
	});
});
