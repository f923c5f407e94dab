/**
 * `npm run bench`: the store's operations against a raw-Postgres baseline
 * measured in the same run on the same server (a fresh database of its own),
 * then the same store operations on in-memory PGlite against that baseline.
 * Progress goes to stderr; stdout carries the table, then `JSON:` and the
 * results on one line.
 *
 * BENCH_ITERATIONS (default 200) sets the iterations of the cheap operations;
 * the others scale from it (cases.ts).
 *
 * Then the HTTP section (bench/http.ts): the real server against raw
 * postgres.js, each ratio beside issue 10's target, and the storage ratio;
 * then the fan-out section (bench/fanout.ts): 1,000 SSE subscribers on our
 * server against a bare graphql-yoga + createPubSub server, and each one's
 * RSS with 1,000 and 10,000 subscribers.
 * `--quick` (npm run bench -- --quick) runs fewer store iterations (50 unless
 * BENCH_ITERATIONS is set), shorter HTTP rounds, a shorter chain, fewer
 * fan-out appends and no 10,000-subscriber RSS.
 */
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { parseSessionFile } from "../src/session/jsonl.js";
import { openPglite, openPostgres } from "../src/store/postgres/open.js";
import type { PgStore } from "../src/store/postgres/store.js";
import { RawBaseline } from "./baseline.js";
import { type BaselineSide, CASES, type ReadSession } from "./cases.js";
import { FANOUT_FULL_PLAN, FANOUT_QUICK_PLAN, runFanoutSection } from "./fanout.js";
import { FULL_PLAN, QUICK_PLAN, runHttpSection } from "./http.js";
import { measure, type Stats } from "./measure.js";
import { METRICS_FULL_PLAN, METRICS_QUICK_PLAN, runMetricsSection } from "./metrics.js";
import { createBenchDatabase, serverVersion, startServer } from "./postgres.js";
import { type CaseResult, formatJson, formatLegend, formatTable, type RunInfo, ratioOf } from "./report.js";
import { loadSessionFile, WORKSPACE } from "./workload.js";

/** What issue 10 allows `npm run bench -- --quick`; printed beside the run's own duration. */
const QUICK_LIMIT_S = 180;
const DEFAULT_ITERATIONS = 200;
const QUICK_ITERATIONS = 50;

const quick = process.argv.slice(2).includes("--quick");

function iterationsFrom(env: NodeJS.ProcessEnv): number {
	const given = env.BENCH_ITERATIONS?.trim();
	if (!given) return quick ? QUICK_ITERATIONS : DEFAULT_ITERATIONS;
	const n = Number(given);
	if (!Number.isInteger(n) || n < 1) {
		throw new Error(`BENCH_ITERATIONS must be a positive integer; got ${JSON.stringify(given)}`);
	}
	return n;
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The session the read cases read, imported through the store under test (outside timing). */
async function seedReadSession(store: PgStore, text: string, pathLength: number): Promise<ReadSession> {
	const { sessionId } = await store.importSession(WORKSPACE, text, { sessionId: "read" });
	return { sessionId, pathLength };
}

/** Every case: store on Postgres and the raw baseline, alternating on one server. */
async function runPostgres(
	url: string,
	text: string,
	baselineSide: Omit<BaselineSide, "read">,
	pathLength: number,
	iterations: number,
): Promise<CaseResult[]> {
	const store = await openPostgres(url);
	try {
		const read = await seedReadSession(store, text, pathLength);
		// The import just wrote ~1000 rows into empty tables: autovacuum would
		// analyze them at some moment during the run and change plans midway.
		// Analyzing now gives both sides settled plans from the first iteration.
		await baselineSide.raw.analyze();
		const results: CaseResult[] = [];
		for (const c of CASES) {
			progress(`postgres  ${c.key}`);
			const runners = [await c.store({ store, read, text }), await c.baseline({ ...baselineSide, read })];
			const [storeStats, baselineStats] = (await measure(runners, c.plan(iterations))) as [Stats, Stats];
			results.push({
				op: c.key,
				title: c.title,
				backend: "postgres",
				store: storeStats,
				baseline: baselineStats,
				ratio: ratioOf(storeStats, baselineStats),
			});
		}
		return results;
	} finally {
		await store.close();
	}
}

/**
 * Every case on in-memory PGlite against the Postgres baseline already
 * measured: PGlite has no raw postgres.js counterpart, and the question the
 * row answers is "what does the default backend cost next to raw Postgres".
 * No ANALYZE here: PGlite runs no autovacuum, so this is what it plans with
 * in use.
 */
async function runPglite(
	text: string,
	postgresResults: readonly CaseResult[],
	pathLength: number,
	iterations: number,
) {
	const store = await openPglite(undefined);
	try {
		const read = await seedReadSession(store, text, pathLength);
		const results: CaseResult[] = [];
		for (const c of CASES) {
			const baseline = postgresResults.find((r) => r.op === c.key)?.baseline;
			if (!baseline) throw new Error(`no Postgres baseline for ${c.key}`);
			progress(`pglite    ${c.key}`);
			const [storeStats] = (await measure([await c.store({ store, read, text })], c.plan(iterations))) as [
				Stats,
			];
			results.push({
				op: c.key,
				title: c.title,
				backend: "pglite",
				store: storeStats,
				baseline,
				ratio: ratioOf(storeStats, baseline),
			});
		}
		return results;
	} finally {
		await store.close();
	}
}

async function main(): Promise<void> {
	const started = performance.now();
	const iterations = iterationsFrom(process.env);
	const file = loadSessionFile();
	const parsed = parseSessionFile(file.text);
	const leaf = parsed.rows.find((r) => r.entry.id === parsed.leafId);
	const pathLength = leaf ? leaf.depth + 1 : 0;
	progress(`session file ${file.source} (${file.lines} lines, ${pathLength} entries on the active path)`);

	const server = await startServer();
	try {
		progress(`server ${server.origin}`);
		const info: RunInfo = {
			startedAt: new Date().toISOString(),
			server: { origin: server.origin, version: await serverVersion(server.url) },
			machine: { cpus: availableParallelism(), node: process.version, platform: process.platform },
			iterations,
			sessionFile: { source: file.source, lines: file.lines, bytes: file.bytes },
		};
		const database = await createBenchDatabase(server.url);
		try {
			const raw = new RawBaseline(database.url);
			let results: CaseResult[];
			try {
				const onPostgres = await runPostgres(
					database.url,
					file.text,
					{ raw, parsed },
					pathLength,
					iterations,
				);
				const onPglite = await runPglite(file.text, onPostgres, pathLength, iterations);
				// Each op's two backends side by side.
				results = CASES.flatMap((c) => [...onPostgres, ...onPglite].filter((r) => r.op === c.key));
			} finally {
				await raw.close();
			}
			info.durationMs = Math.round(performance.now() - started);
			process.stdout.write(
				[
					`Session store vs raw postgres.js — PostgreSQL ${info.server.version} (${info.server.origin}),`,
					`${info.machine.cpus} CPUs, Node ${info.machine.node}, BENCH_ITERATIONS=${iterations},`,
					`file ${file.source} (${file.lines} lines), ${(info.durationMs / 1000).toFixed(1)} s`,
					"",
					formatTable(results),
					"",
					formatLegend(results),
					"",
					"JSON:",
					formatJson(info, results),
					"",
				].join("\n"),
			);
		} finally {
			await database.drop();
		}
		const label = `PostgreSQL ${info.server.version} (${info.server.origin}), ${info.machine.cpus} CPUs${quick ? ", --quick" : ""}`;
		process.stdout.write(`\n${await runHttpSection(server, quick ? QUICK_PLAN : FULL_PLAN, label)}`);
		process.stdout.write(
			`\n${await runFanoutSection(server, quick ? FANOUT_QUICK_PLAN : FANOUT_FULL_PLAN, label)}`,
		);
		process.stdout.write(
			`\n${await runMetricsSection(server, quick ? METRICS_QUICK_PLAN : METRICS_FULL_PLAN, label)}`,
		);
		const seconds = (performance.now() - started) / 1000;
		const limit = quick ? `; --quick is to finish within ${QUICK_LIMIT_S} s (issue 10)` : "";
		process.stdout.write(`\nWhole run: ${seconds.toFixed(1)} s${limit}\n`);
	} finally {
		await server.stop();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(
		`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	// The finally blocks above have already dropped the database and stopped the server.
	process.exitCode = 1;
});
