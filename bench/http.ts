/**
 * The HTTP section of `npm run bench` (issue 10): the real server in a child
 * process (bench/http-server.ts) against raw postgres.js on the same
 * database, in the same run, in alternating rounds; then the storage ratio.
 * Each ratio is printed next to the target. The fan-out case (1,000
 * SSE subscribers against a bare Yoga + createPubSub) is bench/fanout.ts.
 */
import { existsSync } from "node:fs";
import { openPostgres } from "../src/store/postgres/open.js";
import { RawBaseline } from "./baseline.js";
import { CHAIN_SESSION, HTTP_WORKSPACE, type HttpCase, httpCases, RawReads } from "./http-cases.js";
import { alternate, type CpuClock, type SideStats, type TimedPlan } from "./http-measure.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { createBenchDatabase, type PostgresServer } from "./postgres.js";
import { formatColumns, load } from "./report.js";
import { measureStorageBytes } from "./storage.js";
import { loadSessionFile, syntheticSessionFile } from "./workload.js";

export interface HttpPlan extends TimedPlan {
	/** Entries of the chain that context and branch walk (the issue measures 10,000). */
	chainLength: number;
}

export const FULL_PLAN: HttpPlan = { chainLength: 10_000, warmupMs: 2_000, phaseMs: 4_000, rounds: 4 };
/** Sized so that `npm run bench -- --quick` stays well within its 3 minutes on 2 cores (2:58 with 1.5 s phases). */
export const QUICK_PLAN: HttpPlan = { chainLength: 2_000, warmupMs: 1_000, phaseMs: 1_200, rounds: 3 };

/** The storage workload: 50 sessions of 500 entries. */
const STORAGE_SESSIONS = 50;
const STORAGE_ENTRIES = 500;
const STORAGE_TARGET = 1.3;

export interface HttpResult {
	key: string;
	title: string;
	metric: "throughput" | "latency" | "bytes";
	ours: number;
	baseline: number;
	ratio: number;
	target: number;
	met: boolean;
	/** Latency and throughput details of both sides (not for bytes). */
	detail?: { ours: SideStats; baseline: SideStats };
}

const progress = (message: string) => process.stderr.write(`bench: http  ${message}\n`);

function judge(c: Pick<HttpCase, "metric" | "target">, ratio: number): boolean {
	return c.metric === "latency" ? ratio <= c.target : ratio >= c.target;
}

/** The server's CPU clock where /proc has it (Linux). */
export const cpuClockOf = (server: HttpServer): CpuClock | undefined =>
	existsSync("/proc/self/stat") ? server.cpuSeconds : undefined;

/** `serverCpu`: the server's CPU clock, for its CPU per operation (none where /proc is missing). */
export async function measureCase(c: HttpCase, plan: TimedPlan, serverCpu?: CpuClock): Promise<HttpResult> {
	progress(c.key);
	await c.check?.();
	const [ours, baseline] = await alternate(c.ours, c.baseline, c.workers, plan, serverCpu);
	const [a, b] =
		c.metric === "throughput"
			? [ours.medianOpsPerSec, baseline.medianOpsPerSec]
			: [ours.medianMs, baseline.medianMs];
	const ratio = a / b;
	return {
		key: c.key,
		title: c.title,
		metric: c.metric,
		ours: a,
		baseline: b,
		ratio,
		target: c.target,
		met: judge(c, ratio),
		detail: { ours, baseline },
	};
}

type StorageSource = "pi" | "synthetic";

/**
 * A session file of `entries` entries: the first ones of the real pi file
 * (when present, and long enough), or the generated one (~950-byte messages).
 */
function storageFile(source: StorageSource, entries: number): string | undefined {
	if (source === "synthetic") return syntheticSessionFile(entries + 1);
	const file = loadSessionFile();
	if (file.source === "synthetic") return undefined;
	const lines = file.text.split("\n").filter((line) => line.trim() !== "");
	return lines.length > entries ? `${lines.slice(0, entries + 1).join("\n")}\n` : undefined;
}

/**
 * Bytes of the sessions and entries tables with their indexes and TOAST,
 * after VACUUM (this server runs no autovacuum), ÷ the same sessions as pi
 * JSONL files. A database of its own, so nothing else is counted.
 */
async function measureStorage(serverUrl: string, source: StorageSource): Promise<HttpResult | undefined> {
	const text = storageFile(source, STORAGE_ENTRIES);
	if (text === undefined) return undefined;
	progress(`storage: ${STORAGE_SESSIONS} sessions × ${STORAGE_ENTRIES} entries (${source})`);
	// The per-relation breakdown: `npx tsx bench/storage.ts`.
	const { ours, baseline } = await measureStorageBytes(serverUrl, text, STORAGE_SESSIONS);
	const ratio = ours / baseline;
	return {
		key: `storage ${source}`,
		title: `bytes of sessions + entries (tables, indexes, TOAST; after VACUUM) ÷ the same ${STORAGE_SESSIONS} × ${STORAGE_ENTRIES}-entry sessions as pi JSONL; ${source === "pi" ? "each the first entries of the real pi file" : "each the generated file of workload.ts"}`,
		metric: "bytes",
		ours,
		baseline,
		ratio,
		target: STORAGE_TARGET,
		met: ratio <= STORAGE_TARGET,
	};
}

/**
 * A database of its own with the chain seeded through the store (outside
 * timing), the real server on it (`nodeArgs` for node, e.g. --cpu-prof), the
 * raw baselines beside it, and every case built: `use` runs them; all of it
 * is torn down after.
 */
export async function withHttpCases<T>(
	serverUrl: string,
	plan: HttpPlan,
	use: (cases: HttpCase[], server: HttpServer) => Promise<T>,
	nodeArgs: readonly string[] = [],
): Promise<T> {
	const database = await createBenchDatabase(serverUrl);
	try {
		progress(`seeding a ${plan.chainLength}-entry chain`);
		const store = await openPostgres(database.url);
		try {
			await store.importSession(HTTP_WORKSPACE, syntheticSessionFile(plan.chainLength + 1), {
				sessionId: CHAIN_SESSION,
			});
		} finally {
			await store.close();
		}
		const raw = new RawBaseline(database.url);
		const reads = new RawReads(database.url);
		try {
			await raw.analyze();
			progress("starting the server (NODE_ENV=production)");
			const server = await startHttpServer(database.url, { nodeArgs: [...nodeArgs] });
			try {
				return await use(await httpCases(server.url, raw, reads, plan.chainLength), server);
			} finally {
				await server.stop();
			}
		} finally {
			await reads.close();
			await raw.close();
		}
	} finally {
		await database.drop();
	}
}

/**
 * Every case. Each warms both of its sides up before measuring (alternate):
 * V8 compiles a case's code paths in that warm-up, on the fresh server too.
 */
function measureServer(serverUrl: string, plan: HttpPlan): Promise<HttpResult[]> {
	return withHttpCases(serverUrl, plan, async (cases, server) => {
		const results: HttpResult[] = [];
		for (const c of cases) results.push(await measureCase(c, plan, cpuClockOf(server)));
		return results;
	});
}

const fixed = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function figure(metric: HttpResult["metric"], x: number): string {
	if (metric === "throughput") return `${fixed(x)}/s`;
	if (metric === "latency") return `${fixed(x)} ms`;
	return `${(x / 1024 / 1024).toFixed(1)} MiB`;
}

export function formatHttpTable(results: readonly HttpResult[]): string {
	const header = ["case", "ours", "baseline", "ratio", "target", "met?"];
	const rows = results.map((r) => [
		r.key,
		figure(r.metric, r.ours),
		figure(r.metric, r.baseline),
		r.ratio.toFixed(2),
		`${r.metric === "throughput" ? "≥" : "≤"} ${r.target.toFixed(2)}`,
		r.met ? "yes" : "NO",
	]);
	return formatColumns(header, rows);
}

/**
 * Where each operation's CPU went, in ms: the server process, and this one
 * (the clients; for a raw baseline, the driver's work too). The three
 * processes share 2 cores, so a side's CPU is what the other side's
 * throughput lost. Postgres is not counted.
 */
export function formatCpuTable(results: readonly HttpResult[]): string {
	const ms = (x: number | null) => (x === null ? "-" : x >= 10 ? x.toFixed(1) : x.toFixed(3));
	const header = [
		"CPU ms per operation",
		"ours: server",
		"ours: bench",
		"baseline: server",
		"baseline: bench",
	];
	const rows = results.flatMap(({ key, detail }) =>
		detail === undefined
			? []
			: [
					[
						key,
						ms(detail.ours.cpuMsPerOp.server),
						ms(detail.ours.cpuMsPerOp.bench),
						ms(detail.baseline.cpuMsPerOp.server),
						ms(detail.baseline.cpuMsPerOp.bench),
					],
				],
	);
	return [
		formatColumns(header, rows),
		"  server: the server process (/proc); bench: this process (the clients, and a raw baseline's driver); Postgres not counted",
	].join("\n");
}

function formatHttpLegend(results: readonly HttpResult[]): string {
	return [
		...results.map((r) => `  ${r.key.padEnd(18)}${r.title}`),
		"  ours              the server (node src/main.ts, NODE_ENV=production, AUTH_MODE=none) over HTTP/1.1 keep-alive (node:http)",
		"                    from this process; baseline: raw postgres.js (prepared) in this process, same database",
		"  ratio             throughput: median ops/s over rounds, ours ÷ baseline (higher is better);",
		"                    latency: median ms, ours ÷ baseline, and bytes ÷ JSONL bytes (lower is better)",
		"  fan-out (1,000 SSE subscribers vs bare graphql-yoga + createPubSub): the next section",
	].join("\n");
}

/** Runs every HTTP case and the storage case on `server`; returns the section's text for stdout. */
export async function runHttpSection(server: PostgresServer, plan: HttpPlan, label: string): Promise<string> {
	const loadStart = load();
	const started = performance.now();
	const results = [...(await measureServer(server.url, plan))];
	for (const source of ["pi", "synthetic"] as const) {
		const storage = await measureStorage(server.url, source);
		if (storage) results.push(storage);
	}
	const loadEnd = load();
	const seconds = ((performance.now() - started) / 1000).toFixed(1);
	const rows = results.map(({ detail, ...r }) => ({
		...r,
		ours: Number(r.ours.toFixed(3)),
		baseline: Number(r.baseline.toFixed(3)),
		ratio: Number(r.ratio.toFixed(3)),
		...(detail
			? {
					n: { ours: detail.ours.iterations, baseline: detail.baseline.iterations },
					cpuMsPerOp: {
						ours: detail.ours.cpuMsPerOp,
						baseline: detail.baseline.cpuMsPerOp,
					},
					p95Ms: {
						ours: Number(detail.ours.p95Ms.toFixed(3)),
						baseline: Number(detail.baseline.p95Ms.toFixed(3)),
					},
				}
			: {}),
	}));
	return [
		`HTTP server vs raw postgres.js (issue 10 targets) — ${label}, chain ${plan.chainLength} entries,`,
		`${plan.rounds} alternating rounds × ${plan.phaseMs / 1000} s per side after ${plan.warmupMs / 1000} s warm-up, ${seconds} s`,
		`loadavg at start ${loadStart}; at end ${loadEnd}`,
		"",
		formatHttpTable(results),
		"",
		formatCpuTable(results),
		"",
		formatHttpLegend(results),
		"",
		"HTTP JSON:",
		JSON.stringify({ plan, loadavg: { start: loadStart, end: loadEnd }, results: rows }),
		"",
	].join("\n");
}
