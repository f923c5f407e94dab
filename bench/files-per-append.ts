/**
 * How many of the service's source files one append runs through, from the
 * GraphQL request to the commit (issue 29's "files per append"): V8's
 * precise coverage, reset after a warm-up append, counts the functions one
 * more `appendEntry` over in-process HTTP calls, and the files holding them
 * are listed by layer. On Postgres when BENCH_DATABASE_URL is set (a fresh
 * database of its own), else on memory.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/files-per-append.ts
 */
import { Session } from "node:inspector/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createApp } from "../src/app.js";
import { createLogger } from "../src/logger.js";
import { openServices } from "../src/services.js";
import { createBenchDatabase } from "./postgres.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const url = process.env.BENCH_DATABASE_URL;
const database = url ? await createBenchDatabase(url) : undefined;
const logger = createLogger("error");
const services = await openServices(
	database ? { backend: "postgres", url: database.url } : { backend: "memory" },
	logger,
);
const app = createApp({ services, logger, metrics: false });

async function graphql(query: string): Promise<void> {
	const response = await app.fetch("http://localhost/graphql", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ query }),
	});
	const body = (await response.json()) as { errors?: unknown };
	if (body.errors) throw new Error(JSON.stringify(body.errors));
}

const append = (text: string) =>
	graphql(
		`mutation { appendEntry(input: { sessionId: "files", entry: { message: { role: "user", content: ${JSON.stringify(text)} } } }) { entry { id } } }`,
	);

await graphql(`mutation { createSession(input: { sessionId: "files" }) { id } }`);
await append("warm-up");
await append("warm-up again");

const inspector = new Session();
inspector.connect();
await inspector.post("Profiler.enable");
await inspector.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
await inspector.post("Profiler.takePreciseCoverage");
await append("measured");
const { result } = await inspector.post("Profiler.takePreciseCoverage");
await inspector.post("Profiler.stopPreciseCoverage");

const files = new Set<string>();
for (const script of result) {
	if (!script.url.startsWith("file://")) continue;
	const path = relative(root, fileURLToPath(script.url));
	if (!path.startsWith("src/")) continue;
	if (script.functions.some((f) => f.ranges.some((r) => r.count > 0))) files.add(path);
}
const byLayer = new Map<string, string[]>();
for (const file of [...files].sort()) {
	const layer = file
		.split("/")
		.slice(0, file.startsWith("src/store/postgres") ? 3 : 2)
		.join("/");
	byLayer.set(layer, [...(byLayer.get(layer) ?? []), file.slice(layer.length + 1) || file]);
}
process.stdout.write(`backend: ${services.store.backend}\nfiles one append runs through: ${files.size}\n`);
for (const [layer, names] of byLayer)
	process.stdout.write(`  ${layer} (${names.length}): ${names.join(", ")}\n`);

await services.close();
await database?.drop();
