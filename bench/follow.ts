/**
 * `npm run bench:follow`: live from pi. pi 1.6.0's own SessionManager
 * appends to BENCH_SESSIONS (20) sessions at BENCH_LINES_PER_S (5) lines per
 * second each, moving back, summarising and compacting now and then; the
 * follower (`npm run follow`, its own process) sends the lines to a real
 * server on Postgres (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else an
 * embedded PostgreSQL); an SSE subscriber to `sessionActivity` watches.
 *
 * - pi's write → the subscriber's receipt: p50 and p99 of every line (the
 *   writer and the subscriber share this process and its clock), target
 *   p99 ≤ 1 s;
 * - lines lost or duplicated: each line pi wrote must reach the subscriber
 *   once and be in the service's export once, in a steady run and in one
 *   where the follower is killed with -9 and the service restarted; target 0;
 * - the follower's CPU while idle, following BENCH_IDLE_FILES (1,000) files
 *   it has caught up with: from /proc over BENCH_IDLE_S (20) seconds, target
 *   under 1% of a core.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
import { silentLogger } from "../src/logger.js";
import { type RunningServer, serve } from "../src/server.js";
import { openServices } from "../src/services.js";
import { canonicalJson } from "../src/session/append.js";
import { createBenchDatabase, serverVersion, startServer } from "./postgres.js";

const progress = (message: string) => process.stderr.write(`bench:follow: ${message}\n`);
const intFrom = (name: string, fallback: number) => {
	const n = Number(process.env[name]?.trim() || fallback);
	if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
	return n;
};
const SESSIONS = intFrom("BENCH_SESSIONS", 20);
const LINES_PER_S = intFrom("BENCH_LINES_PER_S", 5);
const STEADY_S = intFrom("BENCH_STEADY_S", 30);
const CHAOS_S = intFrom("BENCH_CHAOS_S", 20);
const IDLE_FILES = intFrom("BENCH_IDLE_FILES", 1000);
const IDLE_S = intFrom("BENCH_IDLE_S", 20);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const usage = (i: number) => ({
	input: i,
	output: 10,
	cacheRead: 100,
	cacheWrite: 0,
	totalTokens: i + 110,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 },
});

/** The server on `port` (0: any), over the bench's database. */
async function startService(url: string, port = 0): Promise<RunningServer> {
	const services = await openServices({ backend: "postgres", url }, silentLogger, { bufferSize: 100_000 });
	return serve({ services, logger: silentLogger, port, host: "127.0.0.1" });
}

/** A follower process of `dir` (non-TTY: one line per event on stderr). */
function startFollower(url: string, dir: string, state: string) {
	const child: ChildProcess = spawn(
		process.execPath,
		["--import", "tsx", "src/cli/follow.ts", "--url", url, "--state", state, dir],
		{ stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, SESSION_TREE_TOKEN: "" } },
	);
	let stderr = "";
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	return { child, output: () => stderr };
}

async function until(what: string, ms: number, test: () => boolean | Promise<boolean>) {
	const deadline = Date.now() + ms;
	while (!(await test())) {
		if (Date.now() > deadline) throw new Error(`bench:follow: ${what} within ${ms} ms`);
		await sleep(50);
	}
}

/** The workspace's activity over SSE, resuming after a restart: each entry's arrival by its id. */
function watch(url: string) {
	const arrivals = new Map<string, number[]>();
	let lastEventId: string | undefined;
	let stopped = false;
	const abort = new AbortController();
	const body = JSON.stringify({ query: "subscription { sessionActivity { entry { entryId } } }" });
	const reading = (async () => {
		while (!stopped) {
			try {
				const response = await fetch(url, {
					method: "POST",
					headers: {
						"content-type": "application/json",
						accept: "text/event-stream",
						...(lastEventId ? { "last-event-id": lastEventId } : {}),
					},
					body,
					signal: abort.signal,
				});
				const reader = (response.body as ReadableStream<Uint8Array>).getReader();
				const decoder = new TextDecoder();
				let buffer = "";
				for (;;) {
					const { done, value } = await reader.read();
					if (done) break;
					const now = Date.now();
					buffer += decoder.decode(value, { stream: true });
					for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
						const frame = buffer.slice(0, end);
						buffer = buffer.slice(end + 2);
						let data = "";
						for (const line of frame.split("\n")) {
							if (line.startsWith("id:")) lastEventId = line.slice(3).trim();
							else if (line.startsWith("data:")) data += line.slice(5).trim();
						}
						const id = data ? JSON.parse(data)?.data?.sessionActivity?.entry?.entryId : undefined;
						if (typeof id === "string") arrivals.set(id, [...(arrivals.get(id) ?? []), now]);
					}
				}
			} catch {
				if (stopped) return;
			}
			await sleep(100);
		}
	})();
	return {
		arrivals,
		async close() {
			stopped = true;
			abort.abort();
			await reading;
		},
	};
}

/** pi writes to every session at LINES_PER_S for `seconds`; each line's id and the time pi wrote it. */
async function write(managers: SessionManager[], seconds: number, during?: (t: number) => Promise<void>) {
	const written = new Map<string, number>();
	const start = Date.now();
	const interval = 1000 / LINES_PER_S;
	const ticks = seconds * LINES_PER_S;
	let step = 0;
	for (let tick = 0; tick < ticks; tick++) {
		await sleep(Math.max(0, start + tick * interval - Date.now()));
		// Spread over the tick, as pi processes write independently.
		for (const [i, pi] of managers.entries()) {
			step++;
			const branch = pi.getBranch();
			let id: string;
			if (step % 41 === 0 && branch.length > 2) {
				id = pi.branchWithSummary(
					branch[1]?.id ?? null,
					`went back at ${step}`,
					undefined,
					false,
					usage(step),
				);
			} else if (step % 67 === 0 && branch.length > 4) {
				id = pi.appendCompaction(
					`summary at ${step}`,
					branch[branch.length - 3]?.id ?? null,
					step,
					undefined,
					false,
					usage(step),
				);
			} else {
				if (step % 23 === 0 && branch.length > 2) pi.branch(branch[branch.length - 3]?.id as string);
				id =
					step % 2
						? pi.appendMessage({ role: "user", content: `u${step} of ${i}`, timestamp: Date.now() } as never)
						: pi.appendMessage({
								role: "assistant",
								content: [{ type: "text", text: `a${step}` }],
								provider: "anthropic",
								model: "claude-sonnet-4-5",
								usage: usage(step),
								stopReason: "stop",
								timestamp: Date.now(),
							} as never);
			}
			written.set(id, Date.now());
		}
		await during?.((Date.now() - start) / 1000);
	}
	return written;
}

function percentile(sorted: readonly number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

/** Lines each reached the subscriber once, each file is its session's export; the latencies. */
async function check(
	url: string,
	managers: SessionManager[],
	written: Map<string, number>,
	arrivals: Map<string, number[]>,
) {
	let lost = 0;
	let duplicated = 0;
	const latencies: number[] = [];
	for (const [id, at] of written) {
		const seen = arrivals.get(id) ?? [];
		if (seen.length === 0) lost++;
		if (seen.length > 1) duplicated += seen.length - 1;
		if (seen[0] !== undefined) latencies.push(seen[0] - at);
	}
	let exportsDiffer = 0;
	for (const pi of managers) {
		const response = await fetch(url, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ query: `{ session(sessionId: "${pi.getSessionId()}") { jsonl } }` }),
		});
		const jsonl = ((await response.json()) as { data: { session: { jsonl: string } | null } }).data.session
			?.jsonl;
		// Line by line as JSON values (Postgres keeps an entry's fields in its own key order).
		const lines = (text: string) =>
			text
				.trim()
				.split("\n")
				.map((line) => canonicalJson(JSON.parse(line)));
		const file = readFileSync(pi.getSessionFile() as string, "utf8");
		if (!jsonl || lines(jsonl).join("\n") !== lines(file).join("\n")) exportsDiffer++;
	}
	latencies.sort((a, b) => a - b);
	return {
		lines: written.size,
		lost,
		duplicated,
		exportsDiffer,
		p50Ms: percentile(latencies, 0.5),
		p99Ms: percentile(latencies, 0.99),
		maxMs: latencies.at(-1) ?? Number.NaN,
	};
}

/** A process's CPU seconds so far (user + system, from /proc). */
function cpuSeconds(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
	return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main() {
	const postgres = await startServer();
	const database = await createBenchDatabase(postgres.url);
	const root = mkdtempSync(join(tmpdir(), "bench-follow-"));
	progress(
		`Postgres ${await serverVersion(postgres.url)} (${postgres.origin}); loadavg ${loadavg()
			.map((l) => l.toFixed(2))
			.join(" ")}`,
	);
	let service = await startService(database.url);
	const port = Number(new URL(service.url).port);
	const sessionsDir = join(root, "sessions");
	const managers = Array.from({ length: SESSIONS }, (_, i) => {
		const pi = SessionManager.create(`/work/bench-${i}`, join(sessionsDir, `--work-bench-${i}--`));
		pi.appendMessage({ role: "user", content: `start ${i}`, timestamp: Date.now() } as never);
		return pi;
	});
	const feed = watch(service.url);
	let follower = startFollower(service.url, sessionsDir, join(root, "state.json"));
	const results: Record<string, unknown> = {};
	try {
		await until("the follower's first scan", 30_000, () => follower.output().includes("session files"));
		await until(
			"the first sync of every file",
			60_000,
			() => (follower.output().match(/^new /gm) ?? []).length >= SESSIONS,
		);
		progress(`steady: ${SESSIONS} sessions × ${LINES_PER_S} lines/s for ${STEADY_S} s`);
		const steady = await write(managers, STEADY_S);
		await until("every steady line", 60_000, () => [...steady.keys()].every((id) => feed.arrivals.has(id)));
		results.steady = await check(service.url, managers, steady, feed.arrivals);
		progress(`steady: ${JSON.stringify(results.steady)}`);

		progress(
			`chaos: ${CHAOS_S} s, the follower killed with -9 at 25% and started at 40%, the service restarted from 55% to 70%`,
		);
		const phases = { killed: false, started: false, down: false, up: false };
		const chaos = await write(managers, CHAOS_S, async (t) => {
			const f = t / CHAOS_S;
			if (f >= 0.25 && !phases.killed) {
				phases.killed = true;
				follower.child.kill("SIGKILL");
			}
			if (f >= 0.4 && !phases.started) {
				phases.started = true;
				follower = startFollower(service.url, sessionsDir, join(root, "state.json"));
			}
			if (f >= 0.55 && !phases.down) {
				phases.down = true;
				await service.close(1_000);
			}
			if (f >= 0.7 && !phases.up) {
				phases.up = true;
				service = await startService(database.url, port);
			}
		});
		await until("every chaos line", 120_000, () => [...chaos.keys()].every((id) => feed.arrivals.has(id)));
		const {
			p50Ms: _p50,
			p99Ms: _p99,
			maxMs: _max,
			...chaosCounts
		} = await check(service.url, managers, chaos, feed.arrivals);
		results.chaos = chaosCounts;
		progress(`chaos: ${JSON.stringify(results.chaos)}`);

		progress(`idle: ${IDLE_FILES} files`);
		follower.child.kill("SIGTERM");
		const idleDir = join(root, "idle");
		for (let i = 0; i < IDLE_FILES; i++) {
			const pi = SessionManager.create(`/work/idle-${i % 50}`, join(idleDir, `--work-idle-${i % 50}--`));
			pi.appendMessage({ role: "user", content: `idle ${i}`, timestamp: Date.now() } as never);
		}
		const idle = startFollower(service.url, idleDir, join(root, "idle-state.json"));
		follower = idle;
		await until(
			`the follower to catch up with ${IDLE_FILES} files`,
			300_000,
			() => (idle.output().match(/^new /gm) ?? []).length >= IDLE_FILES,
		);
		await sleep(2_000);
		const pid = idle.child.pid as number;
		const before = cpuSeconds(pid);
		const startedAt = Date.now();
		await sleep(IDLE_S * 1000);
		const cpu = (cpuSeconds(pid) - before) / ((Date.now() - startedAt) / 1000);
		results.idle = { files: IDLE_FILES, seconds: IDLE_S, cpuPercentOfCore: Number((cpu * 100).toFixed(2)) };
		progress(`idle: ${JSON.stringify(results.idle)}`);
	} finally {
		follower.child.kill("SIGKILL");
		await feed.close();
		await service.close(1_000).catch(() => {});
		await database.drop();
		await postgres.stop();
		rmSync(root, { recursive: true, force: true });
	}
	const steady = results.steady as {
		p50Ms: number;
		p99Ms: number;
		lost: number;
		duplicated: number;
		exportsDiffer: number;
		lines: number;
	};
	const chaos = results.chaos as { lost: number; duplicated: number; exportsDiffer: number; lines: number };
	const idle = results.idle as { cpuPercentOfCore: number };
	const rows = [
		["pi's write → subscriber, p50", `${steady.p50Ms} ms`, ""],
		["pi's write → subscriber, p99", `${steady.p99Ms} ms`, "≤ 1000 ms"],
		[
			"lines lost / duplicated, steady",
			`${steady.lost} / ${steady.duplicated} of ${steady.lines} (exports differing: ${steady.exportsDiffer})`,
			"0 / 0",
		],
		[
			"lines lost / duplicated, kill -9 + restart",
			`${chaos.lost} / ${chaos.duplicated} of ${chaos.lines} (exports differing: ${chaos.exportsDiffer})`,
			"0 / 0",
		],
		[`follower CPU idle, ${IDLE_FILES} files`, `${idle.cpuPercentOfCore}% of a core`, "< 1%"],
	];
	process.stdout.write(
		`${rows.map(([a, b, c]) => `| ${a} | ${b} | ${c} |`).join("\n")}\nloadavg ${loadavg()
			.map((l) => l.toFixed(2))
			.join(" ")}\nJSON: ${JSON.stringify(results)}\n`,
	);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(
			`bench:follow: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exit(1);
	},
);
