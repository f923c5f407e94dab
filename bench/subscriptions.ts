/**
 * `npm run bench:live`: how long a committed append takes to reach live
 * subscribers. A real server (HTTP + SSE + graphql-ws) on Postgres (LISTEN/
 * NOTIFY; BENCH_DATABASE_URL, else TEST_DATABASE_URL, else an embedded
 * PostgreSQL, see bench/postgres.ts) and then on PGlite (in-process bus);
 * BENCH_SUBSCRIBERS subscribers on one session, half SSE and half WebSocket;
 * BENCH_APPENDS appendEntry mutations over HTTP at a steady BENCH_RATE per
 * second (after a short warm-up that is not measured).
 *
 * Latencies per delivery (one entry reaching one subscriber):
 * - entry→recv: receipt minus the entry's own `timestamp`, which the server
 *   takes inside the write just before it commits (same machine and clock;
 *   millisecond resolution). The closest client-side view of commit → delivery.
 * - ack→recv: receipt minus the arrival of the mutation's HTTP response;
 *   negative when the event arrived before the response did.
 * Subscribers, writer and server share one process (and its CPU): the numbers
 * include the clients' own parsing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../src/logger.js";
import { serve } from "../src/server.js";
import { openServices } from "../src/services.js";
import type { StoreConfig } from "../src/store/open.js";
import { SSE, type SubscriptionClient, type TransportName, WS } from "../test/events/clients.js";
import { createBenchDatabase, serverVersion, startServer } from "./postgres.js";

const progress = (message: string) => process.stderr.write(`bench:live: ${message}\n`);

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
	const given = env[name]?.trim();
	if (!given) return fallback;
	const n = Number(given);
	if (!Number.isInteger(n) || n < 1)
		throw new Error(`${name} must be a positive integer; got ${JSON.stringify(given)}`);
	return n;
}

const SUBSCRIBERS = intFrom(process.env, "BENCH_SUBSCRIBERS", 100);
const APPENDS = intFrom(process.env, "BENCH_APPENDS", 200);
const RATE = intFrom(process.env, "BENCH_RATE", 50);
const WARMUP = 20;
const SESSION = "bench-live";

const QUERY = `subscription($sessionId: String!, $afterSeq: Int) {
	sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) { ... on EntryAppended { seq entry { timestamp } } }
}`;

interface Event {
	sessionEvents?: { seq: number; entry: { timestamp: string } };
}

interface Delivery {
	transport: TransportName;
	seq: number;
	receivedAt: number;
	timestamp: number;
}

/** Wall-clock milliseconds with sub-millisecond resolution. */
const now = () => performance.timeOrigin + performance.now();
const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - now())));

async function post<T>(url: string, query: string, variables: Record<string, unknown>): Promise<T> {
	const response = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
		body: JSON.stringify({ query, variables }),
	});
	const body = (await response.json()) as { data?: T; errors?: unknown };
	if (body.errors || !body.data) throw new Error(`operation failed: ${JSON.stringify(body.errors ?? body)}`);
	return body.data;
}

const APPEND = `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`;

async function appendOne(url: string, i: number): Promise<number> {
	const data = await post<{ appendEntry: { entry: { seq: number } } }>(url, APPEND, {
		input: {
			sessionId: SESSION,
			entry: { message: { role: "user", content: `message ${i}`, timestamp: Date.now() } },
		},
	});
	return data.appendEntry.entry.seq;
}

interface Summary {
	n: number;
	medianMs: number;
	p99Ms: number;
	maxMs: number;
}

function summarize(values: number[]): Summary {
	const sorted = [...values].sort((a, b) => a - b);
	const at = (q: number) =>
		sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
	return { n: sorted.length, medianMs: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1) ?? NaN };
}

interface RunResult {
	backend: string;
	subscribers: Record<TransportName, number>;
	appends: number;
	rate: number;
	writeMs: number;
	entryToReceive: Record<TransportName | "all", Summary>;
	ackToReceive: Record<TransportName | "all", Summary>;
}

async function run(backend: string, config: StoreConfig): Promise<RunResult> {
	const services = await openServices(config, silentLogger, { bufferSize: 10_000 });
	const running = await serve({ services, logger: silentLogger, port: 0, host: "127.0.0.1" });
	const clients: SubscriptionClient<Event>[] = [];
	try {
		await post(running.url, 'mutation { createSession(input: {sessionId: "bench-live"}) { sessionId } }', {});
		const lastSeq = WARMUP + APPENDS;
		const deliveries: Delivery[] = [];
		const readers: Promise<void>[] = [];
		for (let i = 0; i < SUBSCRIBERS; i++) {
			const transport = i % 2 === 0 ? SSE : WS;
			const client = transport.subscribe<Event>(running, QUERY, { sessionId: SESSION, afterSeq: 0 });
			clients.push(client);
			readers.push(
				(async () => {
					for (;;) {
						const next = await client.next();
						const receivedAt = now();
						if (next.done) throw new Error(`a ${transport.name} subscription ended early`);
						const event = next.value.data?.sessionEvents;
						if (!event) throw new Error(`unexpected result ${JSON.stringify(next.value)}`);
						if (event.seq > WARMUP) {
							deliveries.push({
								transport: transport.name,
								seq: event.seq,
								receivedAt,
								timestamp: Date.parse(event.entry.timestamp),
							});
						}
						if (event.seq >= lastSeq) return;
					}
				})(),
			);
		}
		const deadline = Date.now() + 30_000;
		while (services.live.subscriptionCount < SUBSCRIBERS) {
			if (Date.now() > deadline)
				throw new Error(`only ${services.live.subscriptionCount} subscribers attached`);
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		progress(`${backend}: ${SUBSCRIBERS} subscribers attached; warming up`);
		for (let i = 0; i < WARMUP; i++) await appendOne(running.url, i);

		progress(`${backend}: ${APPENDS} appends at ${RATE}/s`);
		const ackAt = new Map<number, number>();
		const started = now();
		const writes: Promise<void>[] = [];
		for (let i = 0; i < APPENDS; i++) {
			await sleepUntil(started + (i * 1000) / RATE);
			writes.push(
				appendOne(running.url, WARMUP + i).then((seq) => {
					ackAt.set(seq, now());
				}),
			);
		}
		await Promise.all(writes);
		const writeMs = now() - started;
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			Promise.all(readers),
			new Promise((_, reject) => {
				timer = setTimeout(
					() => reject(new Error("subscribers did not receive every entry within 60 s")),
					60_000,
				);
			}),
		]).finally(() => clearTimeout(timer));

		const expected = SUBSCRIBERS * APPENDS;
		if (deliveries.length !== expected)
			throw new Error(`expected ${expected} deliveries, got ${deliveries.length}`);
		const pick = (f: (d: Delivery) => number) => {
			const by = (t?: TransportName) => summarize(deliveries.filter((d) => !t || d.transport === t).map(f));
			return { sse: by("sse"), ws: by("ws"), all: by() };
		};
		return {
			backend,
			subscribers: { sse: Math.ceil(SUBSCRIBERS / 2), ws: Math.floor(SUBSCRIBERS / 2) },
			appends: APPENDS,
			rate: RATE,
			writeMs,
			entryToReceive: pick((d) => d.receivedAt - d.timestamp),
			ackToReceive: pick((d) => d.receivedAt - (ackAt.get(d.seq) ?? Number.NaN)),
		};
	} finally {
		await Promise.all(clients.map((c) => c.close()));
		await running.close(2_000);
	}
}

const f = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1));

function table(results: RunResult[]): string {
	const lines = [
		"backend    transport  subs  deliveries  entry→recv median / p99 / max (ms)  ack→recv median / p99 (ms)",
	];
	for (const r of results) {
		for (const t of ["sse", "ws", "all"] as const) {
			const e = r.entryToReceive[t];
			const a = r.ackToReceive[t];
			const subs = t === "all" ? r.subscribers.sse + r.subscribers.ws : r.subscribers[t];
			lines.push(
				[
					r.backend.padEnd(10),
					(t === "sse" ? "SSE" : t === "ws" ? "WebSocket" : "both").padEnd(10),
					String(subs).padStart(4),
					String(e.n).padStart(11),
					`${f(e.medianMs)} / ${f(e.p99Ms)} / ${f(e.maxMs)}`.padStart(37),
					`${f(a.medianMs)} / ${f(a.p99Ms)}`.padStart(27),
				].join("  "),
			);
		}
	}
	return lines.join("\n");
}

async function main(): Promise<void> {
	const startedAt = new Date().toISOString();
	const server = await startServer();
	const results: RunResult[] = [];
	let version = "unknown";
	try {
		version = await serverVersion(server.url);
		const database = await createBenchDatabase(server.url);
		try {
			results.push(await run("postgres", { backend: "postgres", url: database.url }));
		} finally {
			await database.drop();
		}
	} finally {
		await server.stop();
	}
	const dir = mkdtempSync(join(tmpdir(), "session-tree-bench-live-"));
	try {
		results.push(await run("pglite", { backend: "pglite", dataDir: dir }));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	process.stdout.write(
		`Live delivery latency: ${SUBSCRIBERS} subscribers on one session, ${APPENDS} appends at ${RATE}/s ` +
			`(+${WARMUP} warm-up), Postgres ${version} (${server.origin}); ` +
			`${availableParallelism()} CPUs, Node ${process.version}\n\n${table(results)}\n\n`,
	);
	for (const r of results) {
		process.stdout.write(
			`${r.backend}: the ${r.appends} appends took ${f(r.writeMs)} ms (target ${f((r.appends * 1000) / r.rate)} ms)\n`,
		);
	}
	process.stdout.write(`JSON: ${JSON.stringify({ startedAt, results })}\n`);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exitCode = 1;
});
