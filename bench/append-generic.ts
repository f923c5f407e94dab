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
				for (const { c } of all) await warmUp(c.workers, plan.warmupMs, c.baseline);
				const results: HttpResult[] = [];
				for (const { c, measured } of all) {
					results.push(await measureCase(c, plan, cpuClockOf(measured === "ours" ? ours : generic)));
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

/** Each case, and the server on its "ours" side, whose CPU the case reports. */
async function cases(
	oursUrl: string,
	genericUrl: string,
	raw: RawBaseline,
): Promise<Array<{ c: HttpCase; measured: "ours" | "generic" }>> {
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
	// Every case is a throughput, measured in alternating rounds like the bench's own appends.
	const both = (
		key: string,
		title: string,
		target: number,
		workers: number,
		ours: HttpCase["ours"],
		baseline: HttpCase["baseline"],
	): HttpCase => ({ key, title, metric: "throughput", target, workers, ours, baseline });
	return [
		{
			measured: "ours",
			c: both(
				"append×1 ours ÷ raw",
				"sequential appendEntry over HTTP ÷ the raw transaction (npm run bench's append×1)",
				0.6,
				1,
				append(ours, "ours"),
				rawAppend,
			),
		},
		{
			measured: "generic",
			c: both(
				"append×1 generic ÷ raw",
				"the same, for bare graphql-yoga running the raw transaction in its resolver (issue 10's target)",
				0.6,
				1,
				append(generic, "generic"),
				rawAppend,
			),
		},
		{
			measured: "ours",
			c: both(
				"append×1 ours ÷ generic",
				"sequential appendEntry: our server ÷ the generic one",
				1.0,
				1,
				append(ours, "ours"),
				append(generic, "generic"),
			),
		},
		{
			measured: "ours",
			c: both(
				"append×16/16 ours ÷ generic",
				"16 clients, each on its own session: our server ÷ the generic one",
				1.0,
				16,
				append(ours, "ours"),
				append(generic, "generic"),
			),
		},
	];
}

await main();
