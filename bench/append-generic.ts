/**
 * Appends against a generic GraphQL server: where issue 10's append targets
 * sit between our server, the raw transaction and what a bare graphql-yoga
 * server reaches with the same database work (bench/append-bare.ts runs the
 * raw baseline's own transaction in its resolver). The same client, the same
 * requests, the same database, alternating rounds, as `npm run bench`'s HTTP
 * section (bench/http.ts):
 *
 * - append×1 ours ÷ raw: the bench's own sequential-append row (target 0.6);
 * - append×1 generic ÷ raw: the same target, for a server with no layer of
 *   ours in it;
 * - append×1 and append×16/16 ours ÷ generic: ours at least as fast (1.0).
 *
 *   npx tsx bench/append-generic.ts [--quick]    (npm run bench:generic)
 *
 * Postgres as for `npm run bench` (bench/postgres.ts).
 */
import { RawBaseline } from "./baseline.js";
import {
	cpuClockOf,
	FULL_PLAN,
	formatCpuTable,
	formatHttpTable,
	type HttpResult,
	measureCase,
	QUICK_PLAN,
} from "./http.js";
import { graphqlClient, HTTP_WORKSPACE, type HttpCase } from "./http-cases.js";
import { warmUp } from "./http-measure.js";
import { startHttpServer } from "./http-server.js";
import { createBenchDatabase, startServer } from "./postgres.js";
import { load } from "./report.js";
import { messageDraft } from "./workload.js";

const APPEND = `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`;
const CREATE = `mutation($s: String!) { createSession(input: { sessionId: $s }) { sessionId } }`;

const plan = process.argv.includes("--quick") ? QUICK_PLAN : FULL_PLAN;
const progress = (message: string) => process.stderr.write(`bench: generic  ${message}\n`);

async function main() {
	const postgres = await startServer();
	const started = performance.now();
	const loadStart = load();
	try {
		const database = await createBenchDatabase(postgres.url);
		try {
			progress("starting our server (it migrates the database), then the generic one");
			const ours = await startHttpServer(database.url);
			const generic = await startHttpServer(database.url, {
				script: { path: "bench/append-bare.ts", ready: /bare ready/ },
			}).catch(async (error) => {
				await ours.stop();
				throw error;
			});
			const raw = new RawBaseline(database.url);
			try {
				const all = await cases(ours.url, generic.url, raw);
				// Both servers serve appends before any case, so that no case measures a fresh one.
				for (const c of all) await warmUp(c.workers, plan.warmupMs, c.baseline);
				const results: HttpResult[] = [];
				for (const c of all) {
					results.push(await measureCase(c, plan, cpuClockOf(c.measured === "ours" ? ours : generic)));
				}
				const seconds = ((performance.now() - started) / 1000).toFixed(1);
				process.stdout.write(
					`${formatHttpTable(results)}\n${formatCpuTable(results)}\nloadavg ${loadStart} → ${load()}; ${seconds} s\n`,
				);
				for (const r of results) {
					const d = r.detail;
					if (d)
						process.stdout.write(
							`  ${r.key}: ${d.ours.medianOpsPerSec.toFixed(0)}/s against ${d.baseline.medianOpsPerSec.toFixed(0)}/s\n`,
						);
				}
			} finally {
				await raw.close();
				await Promise.all([ours.stop(), generic.stop()]);
			}
		} finally {
			await database.drop();
		}
	} finally {
		await postgres.stop();
	}
}

/** A case, and which server is on its "ours" side: the one whose CPU it reports. */
type GenericCase = HttpCase & { measured: "ours" | "generic" };

async function cases(oursUrl: string, genericUrl: string, raw: RawBaseline): Promise<GenericCase[]> {
	const ours = graphqlClient(oursUrl);
	const generic = graphqlClient(genericUrl);
	// Every side writes to sessions of its own: 16, one per client of the 16-client case.
	const ids = (side: string) => Array.from({ length: 16 }, (_, i) => `${side}-${i}`);
	for (const id of ids("ours")) await ours(CREATE, { s: id });
	for (const id of [...ids("generic"), ...ids("raw")]) await raw.createSession(HTTP_WORKSPACE, id);
	const append = (post: typeof ours, side: string) => (worker: number, index: number) =>
		post(APPEND, {
			input: { sessionId: `${side}-${worker}`, entry: { message: messageDraft(index).message } },
		});
	const rawAppend = (worker: number, index: number) =>
		raw.append(HTTP_WORKSPACE, `raw-${worker}`, { message: messageDraft(index).message });
	return [
		{
			key: "append×1 ours ÷ raw",
			title: "sequential appendEntry over HTTP ÷ the raw transaction (npm run bench's append×1)",
			metric: "throughput",
			target: 0.6,
			workers: 1,
			measured: "ours",
			ours: append(ours, "ours"),
			baseline: rawAppend,
		},
		{
			key: "append×1 generic ÷ raw",
			title:
				"the same, for bare graphql-yoga running the raw transaction in its resolver (issue 10's target)",
			metric: "throughput",
			target: 0.6,
			workers: 1,
			measured: "generic",
			ours: append(generic, "generic"),
			baseline: rawAppend,
		},
		{
			key: "append×1 ours ÷ generic",
			title: "sequential appendEntry: our server ÷ the generic one",
			metric: "throughput",
			target: 1.0,
			workers: 1,
			measured: "ours",
			ours: append(ours, "ours"),
			baseline: append(generic, "generic"),
		},
		{
			key: "append×16/16 ours ÷ generic",
			title: "16 clients, each on its own session: our server ÷ the generic one",
			metric: "throughput",
			target: 1.0,
			workers: 16,
			measured: "ours",
			ours: append(ours, "ours"),
			baseline: append(generic, "generic"),
		},
	];
}

await main();
