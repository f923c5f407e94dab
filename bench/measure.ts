/**
 * Timing: runners that perform an operation a given number of times and
 * return every operation's latency, and the statistics the report shows.
 */
import { performance } from "node:perf_hooks";

/** One timed batch: each operation's latency and the batch's wall time. */
export interface Batch {
	latenciesMs: number[];
	wallMs: number;
}

/** Performs `count` operations; successive calls continue where the last one stopped. */
export type Runner = (count: number) => Promise<Batch>;

export interface Stats {
	iterations: number;
	medianMs: number;
	p95Ms: number;
	meanMs: number;
	/** Operations over wall time: for concurrent runners this is throughput, not 1 / latency. */
	opsPerSec: number;
}

export interface Plan {
	warmup: number;
	iterations: number;
	/**
	 * The measured iterations are split into this many rounds, each running
	 * every runner in turn. Other work on a shared 2-core machine comes and
	 * goes; alternating store and baseline spreads it over both instead of
	 * charging it to whichever happened to run at the time.
	 */
	rounds: number;
}

/** One operation at a time, as a single client would issue them. */
export function sequential(operation: (index: number) => Promise<unknown>): Runner {
	let next = 0;
	return async (count) => {
		const latenciesMs: number[] = [];
		const started = performance.now();
		for (let i = 0; i < count; i++) {
			const t0 = performance.now();
			await operation(next++);
			latenciesMs.push(performance.now() - t0);
		}
		return { latenciesMs, wallMs: performance.now() - started };
	};
}

/**
 * `workers` clients, each issuing its share of the operations back to back
 * without waiting for the others, so the batch's wall time gives throughput.
 */
export function concurrent(
	workers: number,
	operation: (worker: number, index: number) => Promise<unknown>,
): Runner {
	const next = Array.from({ length: workers }, () => 0);
	return async (count) => {
		const latenciesMs: number[] = [];
		const started = performance.now();
		await Promise.all(
			next.map(async (_, worker) => {
				const share = Math.floor(count / workers) + (worker < count % workers ? 1 : 0);
				for (let i = 0; i < share; i++) {
					const index = next[worker] ?? 0;
					next[worker] = index + 1;
					const t0 = performance.now();
					await operation(worker, index);
					latenciesMs.push(performance.now() - t0);
				}
			}),
		);
		return { latenciesMs, wallMs: performance.now() - started };
	};
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(batches: readonly Batch[]): Stats {
	const latencies = batches.flatMap((b) => b.latenciesMs).sort((a, b) => a - b);
	const wallMs = batches.reduce((sum, b) => sum + b.wallMs, 0);
	const total = latencies.reduce((sum, x) => sum + x, 0);
	return {
		iterations: latencies.length,
		medianMs: percentile(latencies, 50),
		p95Ms: percentile(latencies, 95),
		meanMs: latencies.length === 0 ? Number.NaN : total / latencies.length,
		opsPerSec: wallMs === 0 ? Number.NaN : (latencies.length * 1000) / wallMs,
	};
}

/**
 * Warm every runner up (connections opened, statements prepared, caches
 * filled, JIT compiled), then measure them in alternating rounds; one Stats
 * per runner, in order.
 */
export async function measure(runners: readonly Runner[], plan: Plan): Promise<Stats[]> {
	for (const run of runners) await run(plan.warmup);
	const batches: Batch[][] = runners.map(() => []);
	const rounds = Math.max(1, Math.min(plan.rounds, plan.iterations));
	for (let round = 0; round < rounds; round++) {
		// Spread the remainder over the first rounds so the total is exactly `iterations`.
		const count = Math.floor(plan.iterations / rounds) + (round < plan.iterations % rounds ? 1 : 0);
		for (const [i, run] of runners.entries()) batches[i]?.push(await run(count));
	}
	return batches.map(summarize);
}
