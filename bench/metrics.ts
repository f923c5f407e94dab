/**
 * The dashboards section of `npm run bench` (issue 11): a workspace of many
 * sessions over 30 days, imported through the store (so its rollups are the
 * store's own), then "tokens, cost and assistant turns by day × model" as
 * the store answers it (rollups) against a raw GROUP BY over the entries
 * table answering the same, alternating, in the same run. Targets: p50 ≤ 50
 * ms, and ≤ 0.2× the raw GROUP BY.
 */
import postgres from "postgres";
import type { MetricsQuery } from "../src/session/analytics/metrics.js";
import { openPostgres } from "../src/store/postgres/open.js";
import { measure, type Stats, sequential } from "./measure.js";
import { createBenchDatabase, type PostgresServer } from "./postgres.js";
import { load } from "./report.js";

export interface MetricsPlan {
	sessions: number;
	entriesPerSession: number;
	iterations: number;
}

/** The workload: 1,000,000 entries in 30 days. */
export const METRICS_FULL_PLAN: MetricsPlan = { sessions: 1000, entriesPerSession: 1000, iterations: 60 };
export const METRICS_QUICK_PLAN: MetricsPlan = { sessions: 100, entriesPerSession: 1000, iterations: 30 };

const WS = "dashboards";
const DAYS = 30;
const START = Date.UTC(2026, 9, 1);
const MODELS = ["claude-sonnet-4-5", "claude-opus-4-1", "gpt-5", "gemini-2.5-pro"];

const progress = (message: string) => process.stderr.write(`bench: metrics  ${message}\n`);

/**
 * A v3 file: user and assistant turns in a chain, 90 s apart (a session of
 * 1,000 entries lasts a day), sessions starting across the 30 days; models
 * and usage vary.
 */
export function dashboardSessionFile(index: number, entries: number): string {
	const sessionId = `dash-${index}`;
	const lines = [
		JSON.stringify({
			type: "session",
			version: 3,
			id: sessionId,
			timestamp: new Date(START).toISOString(),
			cwd: `/work/${index % 10}`,
		}),
	];
	const start = START + (index % DAYS) * 86_400_000 + ((index * 7) % 24) * 3_600_000;
	for (let i = 0; i < entries; i++) {
		const at = start + i * 90_000;
		const timestamp = new Date(at).toISOString();
		const assistant = i % 2 === 1;
		const message = assistant
			? {
					role: "assistant",
					content: [{ type: "text", text: `answer ${i}` }],
					provider: "anthropic",
					model: MODELS[(index + i) % MODELS.length],
					usage: {
						input: 10 + (i % 50),
						output: 100 + (i % 300),
						cacheRead: 1000 + i,
						cacheWrite: 0,
						totalTokens: 1110 + (i % 50) + (i % 300) + i,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 * (1 + (i % 7)) },
					},
					stopReason: "stop",
					timestamp: at,
				}
			: { role: "user", content: `question ${i}`, timestamp: at };
		lines.push(
			JSON.stringify({
				type: "message",
				id: `e${i}`,
				parentId: i === 0 ? null : `e${i - 1}`,
				timestamp,
				message,
			}),
		);
	}
	return `${lines.join("\n")}\n`;
}

const QUERY: MetricsQuery = {
	measures: ["assistantTurns", "totalTokens", "cost"],
	dimensions: ["time", "model"],
	granularity: "day",
	timeZone: "UTC",
	filter: {
		from: new Date(START).toISOString(),
		to: new Date(START + (DAYS + 30) * 86_400_000).toISOString(),
	},
	orderBy: [],
	limit: 10_000,
};

export async function runMetricsSection(
	server: PostgresServer,
	plan: MetricsPlan,
	label: string,
): Promise<string> {
	const loadStart = load();
	const started = performance.now();
	const database = await createBenchDatabase(server.url);
	try {
		const store = await openPostgres(database.url);
		const raw = postgres(database.url, { max: 1, onnotice: () => {} });
		try {
			const total = plan.sessions * plan.entriesPerSession;
			progress(`importing ${plan.sessions} sessions × ${plan.entriesPerSession} entries`);
			const importStarted = performance.now();
			for (let i = 0; i < plan.sessions; i++)
				await store.importSession(WS, dashboardSessionFile(i, plan.entriesPerSession));
			const importSeconds = (performance.now() - importStarted) / 1000;
			// The workspace as a dashboard sees it a second after its writes: folded (src/store/postgres/analytics/fold.ts).
			const foldStarted = performance.now();
			await store.foldRollups();
			const foldSeconds = (performance.now() - foldStarted) / 1000;
			await raw.unsafe("vacuum analyze");
			const rawQuery = () => raw`
				select to_char(date_trunc('day', e.timestamp, 'UTC') at time zone 'UTC', 'YYYY-MM-DD') as day,
					e.payload->'message'->>'model' as model,
					count(*) filter (where e.payload->'message'->>'role' = 'assistant') as turns,
					sum(coalesce((e.payload->'message'->'usage'->>'totalTokens')::float8, 0)) as tokens,
					sum(coalesce((e.payload->'message'->'usage'->'cost'->>'total')::float8, 0)) as cost
				from entries e join sessions s on s.key = e.session_key
				where s.workspace_id = ${WS} and e.type = 'message'
					and e.timestamp >= ${QUERY.filter.from as string} and e.timestamp < ${QUERY.filter.to as string}
				group by 1, 2`;
			// Both answer alike: the same assistant turns and tokens in total.
			const ours = await store.metrics(WS, QUERY);
			const theirs = await rawQuery();
			const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
			const ourTurns = sum(ours.rows.map((r) => r.values.assistantTurns ?? 0));
			const rawTurns = sum(theirs.map((r) => Number(r.turns)));
			if (ourTurns !== rawTurns || ourTurns !== total / 2)
				throw new Error(`metrics: ours counted ${ourTurns} assistant turns, the raw GROUP BY ${rawTurns}`);
			progress(`measuring (${plan.iterations} queries each, alternating)`);
			const [mine, baseline] = (await measure(
				[sequential(() => store.metrics(WS, QUERY)), sequential(() => rawQuery())],
				{ warmup: 3, iterations: plan.iterations, rounds: 3 },
			)) as [Stats, Stats];
			const ratio = mine.medianMs / baseline.medianMs;
			const met = (ok: boolean) => (ok ? "yes" : "NO");
			return [
				`Dashboards (issue 11 targets) — ${label}, ${total.toLocaleString("en")} entries in ${plan.sessions} sessions over ${DAYS} days`,
				`(imported in ${importSeconds.toFixed(1)} s, ${Math.round(total / importSeconds)} entries/s with rollups; the last rollups folded in ${foldSeconds.toFixed(1)} s), ${((performance.now() - started) / 1000).toFixed(1)} s`,
				`loadavg at start ${loadStart}; at end ${load()}`,
				"",
				"case                                             p50       p95       target     met?",
				`metrics day × model (rollups)                    ${mine.medianMs.toFixed(2).padStart(6)} ms ${mine.p95Ms.toFixed(2).padStart(6)} ms  ≤ 50 ms    ${met(mine.medianMs <= 50)}`,
				`raw GROUP BY over entries                        ${baseline.medianMs.toFixed(2).padStart(6)} ms ${baseline.p95Ms.toFixed(2).padStart(6)} ms`,
				`ratio ours ÷ raw                                 ${ratio.toFixed(3).padStart(9)}           ≤ 0.2      ${met(ratio <= 0.2)}`,
				"",
			].join("\n");
		} finally {
			await raw.end({ timeout: 5 });
			await store.close();
		}
	} finally {
		await database.drop();
	}
}
