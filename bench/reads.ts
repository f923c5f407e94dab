/**
 * The read cases of the HTTP section alone (page, context, branch): the same
 * seeding, server and measuring as `npm run bench` (bench/http.ts), in a
 * fraction of its time, for working on the read path. `--only PREFIX` picks
 * any case of bench/http-cases.ts whose key starts with PREFIX instead
 * (`--only append` runs the append cases).
 *
 *   npx tsx bench/reads.ts [--quick] [--only page|context|branch|append] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` starts the server with `node --cpu-prof` (the profile is
 * written to DIR when it exits) and runs only the chosen cases' server side,
 * without baselines, so the profile holds the server's work under that load
 * (for `--profile-seconds S` per case; default the case's measuring time).
 */
import {
	cpuClockOf,
	FULL_PLAN,
	formatCpuTable,
	formatHttpTable,
	type HttpResult,
	measureCase,
	QUICK_PLAN,
	withHttpCases,
} from "./http.js";
import { warmUp } from "./http-measure.js";
import { startServer } from "./postgres.js";
import { load } from "./report.js";

const READ_CASES = ["page100×16", "page100×16 rows", "context", "branch ids"];

const argv = process.argv.slice(2);
const option = (name: string) => {
	const at = argv.indexOf(name);
	return at === -1 ? undefined : argv[at + 1];
};
const quick = argv.includes("--quick");
const only = option("--only");
const profileDir = option("--cpu-prof");
const profileSeconds = option("--profile-seconds");
const plan = quick ? QUICK_PLAN : FULL_PLAN;
const progress = (message: string) => process.stderr.write(`reads: ${message}\n`);

async function main() {
	const server = await startServer();
	try {
		const nodeArgs = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
		await withHttpCases(
			server.url,
			plan,
			async (all, httpServer) => {
				const cases = all.filter((c) =>
					only === undefined ? READ_CASES.includes(c.key) : c.key.startsWith(only),
				);
				for (const c of cases) await warmUp(c.workers, plan.warmupMs, c.ours);
				if (profileDir) {
					for (const c of cases) {
						await c.check?.();
						progress(`profiling ${c.key}`);
						await warmUp(
							c.workers,
							profileSeconds ? Number(profileSeconds) * 1000 : plan.phaseMs * plan.rounds,
							c.ours,
						);
					}
					return;
				}
				const loadStart = load();
				const results: HttpResult[] = [];
				for (const c of cases) results.push(await measureCase(c, plan, cpuClockOf(httpServer)));
				process.stdout.write(
					`${formatHttpTable(results)}\n${formatCpuTable(results)}\nchain ${plan.chainLength}; loadavg ${loadStart} → ${load()}\n`,
				);
				for (const r of results) {
					const d = r.detail;
					if (d)
						process.stdout.write(
							`  ${r.key}: ours p50 ${d.ours.medianMs.toFixed(2)} ms ${d.ours.medianOpsPerSec.toFixed(0)}/s; baseline p50 ${d.baseline.medianMs.toFixed(2)} ms ${d.baseline.medianOpsPerSec.toFixed(0)}/s\n`,
						);
				}
			},
			nodeArgs,
		);
	} finally {
		await server.stop();
	}
}

await main();
