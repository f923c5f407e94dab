/**
 * What the shared-results prototype (src/app/shared-results.ts) saves, before
 * it is wired into our app: the fan-out rounds of bench/fanout.ts on the bare
 * Yoga server without and with the plugin (FANOUT_SHARED=1), alternating,
 * same clients, same commit→receipt definition. Reports p50/p99 and the
 * server's CPU seconds per round (the work the plugin removes is per
 * delivery: one execution and one JSON.stringify per subscriber and event).
 *
 * `npx tsx bench/fanout-shared.ts [rounds] [appends]` (default 3 rounds × 200).
 * Needs no database.
 */
import { loadavg } from "node:os";
import { latency, type RoundResult, runRound } from "./fanout.js";
import { startFanoutServer } from "./fanout-servers.js";

const rounds = Number(process.argv[2] ?? 3);
const appends = Number(process.argv[3] ?? 200);
const plan = { subscribers: 1_000, rounds, warmup: 20, appends, rate: 20, idleSubscribers: 0 };
const sides = ["bare", "bare-shared"] as const;

async function main(): Promise<void> {
	const load = () =>
		loadavg()
			.map((x) => x.toFixed(2))
			.join(" ");
	const loadStart = load();
	const servers = {
		bare: await startFanoutServer("bare"),
		"bare-shared": await startFanoutServer("bare-shared"),
	};
	const results: RoundResult[] = [];
	try {
		for (let round = 0; round < rounds; round++) {
			for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
				process.stderr.write(`fanout-shared: round ${round + 1}/${rounds} ${side}\n`);
				results.push(await runRound(servers[side], plan, round));
			}
		}
	} finally {
		await Promise.all(Object.values(servers).map((s) => s.stop()));
	}
	const f = (x: number) => x.toFixed(1);
	const lines = [
		`bare Yoga without / with the shared-results plugin: ${plan.subscribers} SSE subscribers, ${appends} appends at 20/s per round, ${rounds} alternating rounds`,
		`loadavg at start ${loadStart}; at end ${load()}`,
		"side           commit→receipt p50 / p99 ms   server CPU s per round (each)",
	];
	for (const side of sides) {
		const mine = results.filter((r) => r.side === side);
		const l = latency(mine.map((r) => r.commitToReceipt));
		lines.push(
			`${side.padEnd(15)}${`${f(l.p50)} / ${f(l.p99)}`.padEnd(30)}${mine.map((r) => r.cpu.server.toFixed(2)).join(", ")}`,
		);
	}
	lines.push(
		`p99 per round: ${results.map((r) => `${r.side} ${f(latency([r.commitToReceipt]).p99)}`).join(", ")}`,
	);
	process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 1;
});
