/**
 * Timing for the HTTP cases: each side runs its clients for a fixed time,
 * the two sides take turns in rounds, and each side's figure is the median
 * over its rounds (ops/s) or over all its operations (latency).
 */
import { performance } from "node:perf_hooks";
import { type Batch, type Stats, summarize } from "./measure.js";

/** One operation of client `worker`; `index` counts that client's operations from 0. */
export type Operation = (worker: number, index: number) => Promise<unknown>;

export interface TimedPlan {
	/** Each side runs this long once, unmeasured, before the first round. */
	warmupMs: number;
	/** Each side's turn in a round. */
	phaseMs: number;
	rounds: number;
}

export interface SideStats extends Stats {
	/** Median over the rounds of each round's operations / wall time. */
	medianOpsPerSec: number;
	/** CPU per operation over the measured rounds, ms. */
	cpuMsPerOp: {
		/** The server process (a raw baseline leaves it idle); null where its CPU is not known. */
		server: number | null;
		/** This process: the clients, and for a raw baseline the driver's work too. */
		bench: number;
	};
}

/** User + system CPU time a process has used, seconds. */
export type CpuClock = () => number;

/**
 * `workers` clients issue operations back to back until `ms` have passed;
 * an operation started before the deadline is waited for and counted.
 */
function timedPhase(workers: number, ms: number, operation: Operation, next: number[]): Promise<Batch> {
	const latenciesMs: number[] = [];
	const started = performance.now();
	const deadline = started + ms;
	return Promise.all(
		Array.from({ length: workers }, async (_, worker) => {
			while (performance.now() < deadline) {
				const index = next[worker] ?? 0;
				next[worker] = index + 1;
				const t0 = performance.now();
				await operation(worker, index);
				latenciesMs.push(performance.now() - t0);
			}
		}),
	).then(() => ({ latenciesMs, wallMs: performance.now() - started }));
}

/** Runs `operation` from `workers` clients for `ms`, unmeasured (JIT, caches, connections). */
export async function warmUp(workers: number, ms: number, operation: Operation): Promise<void> {
	await timedPhase(workers, ms, operation, []);
}

const median = (values: readonly number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2
		? (sorted[mid] as number)
		: ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * Ours and the baseline in alternating order (ours first in even rounds,
 * the baseline first in odd ones), so drift in the machine's load over the
 * run falls on both sides alike.
 */
export async function alternate(
	ours: Operation,
	baseline: Operation,
	workers: number,
	plan: TimedPlan,
	serverCpu?: CpuClock,
): Promise<[SideStats, SideStats]> {
	const sides = [ours, baseline];
	const next = sides.map(() => Array.from({ length: workers }, () => 0));
	for (const [i, side] of sides.entries()) await timedPhase(workers, plan.warmupMs, side, next[i] ?? []);
	const batches: Batch[][] = sides.map(() => []);
	// CPU seconds each side used over its measured phases: the server's, this process's.
	const cpu = sides.map(() => ({ server: 0, bench: 0 }));
	const benchCpu = () => {
		const { user, system } = process.cpuUsage();
		return (user + system) / 1e6;
	};
	for (let round = 0; round < plan.rounds; round++) {
		const order = round % 2 === 0 ? [0, 1] : [1, 0];
		for (const i of order) {
			const server0 = serverCpu?.() ?? 0;
			const bench0 = benchCpu();
			batches[i]?.push(await timedPhase(workers, plan.phaseMs, sides[i] as Operation, next[i] ?? []));
			const used = cpu[i] as { server: number; bench: number };
			used.server += (serverCpu?.() ?? 0) - server0;
			used.bench += benchCpu() - bench0;
		}
	}
	return batches.map((b, i) => {
		const msPerOp = (seconds: number) =>
			(seconds * 1000) / b.reduce((n, batch) => n + batch.latenciesMs.length, 0);
		const used = cpu[i] as { server: number; bench: number };
		return {
			...summarize(b),
			medianOpsPerSec: median(b.map((batch) => summarize([batch]).opsPerSec)),
			cpuMsPerOp: { server: serverCpu ? msPerOp(used.server) : null, bench: msPerOp(used.bench) },
		};
	}) as [SideStats, SideStats];
}
