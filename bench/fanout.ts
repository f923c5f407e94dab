/**
 * The fan-out section of `npm run bench` (issue 10): 1,000 SSE subscribers
 * on one session, appends over HTTP at 20/s, our server (Postgres, LISTEN/
 * NOTIFY) against a bare graphql-yoga + createPubSub server serving the same
 * subscription shape (bench/fanout-bare.ts). Both run in child processes
 * (bench/fanout-servers.ts); the subscribers and the writer are this process,
 * the same code for both sides. Rounds alternate (ours first in even rounds),
 * each on a fresh session, so load drifting over the run falls on both alike.
 * Run alone: `npx tsx bench/fanout.ts [--quick]`.
 *
 * commit→receipt, per delivery (one entry reaching one subscriber): the
 * subscriber's receipt instant (the socket chunk that ends the event's frame,
 * before parsing) minus the server's commit instant. Ours: when
 * `PgStore.appendEntry`'s promise resolves, i.e. after COMMIT (reported by
 * bench/fanout-probe.ts, preloaded into the real server; src/ is untouched);
 * bare: just before `publish` (its write is done then). Both instants and the
 * receipts are read from CLOCK_MONOTONIC (`process.hrtime.bigint()`), one
 * clock for every process on the machine, so the difference is exact and
 * never negative; the entry's own `timestamp` (ms resolution, taken before
 * COMMIT) and the mutation's response (which may arrive after the events) are
 * not used. ack→receipt (receipt minus the writer's arrival of the mutation
 * response) is reported beside it, as a second view needing no probe.
 *
 * The probe also reports when the session's feed first pushed each entry,
 * so the report splits ours into commit → push (notice, feed read) and the
 * fan-out itself. 1,000 subscribers × 20 events/s is 20,000 SSE writes a
 * second: on 2 cores either server spends most of a core on it, so figures
 * move with other load on the machine; the loadavg and each round's CPU
 * seconds (server, and this process's clients) are printed beside them.
 *
 * Every subscriber must receive every entry of its round (warm-up included)
 * exactly once, in seq order; the run fails otherwise. Then RSS
 * (/proc/<pid>/status VmRSS) of each server with 0, 1,000 (after a round,
 * idle) and 10,000 idle subscribers, the latter checked with a few appends.
 */
import { pathToFileURL } from "node:url";
import { monotonicNs, type Subscriber, subscribe } from "./fanout-client.js";
import { type FanoutServer, type Side, startFanoutServer } from "./fanout-servers.js";
import { formatHttpTable, type HttpResult } from "./http.js";
import { createBenchDatabase, type PostgresServer, serverVersion, startServer } from "./postgres.js";
import { load } from "./report.js";

export interface FanoutPlan {
	subscribers: number;
	/** Rounds per side, alternating. */
	rounds: number;
	/** Appends per round before the measured ones (checked, not timed). */
	warmup: number;
	/** Measured appends per round. */
	appends: number;
	/** Appends per second. */
	rate: number;
	/** Idle subscribers to measure RSS with, beyond the rounds' ones. */
	idleSubscribers: number;
}

export const FANOUT_FULL_PLAN: FanoutPlan = {
	subscribers: 1_000,
	rounds: 3,
	warmup: 20,
	appends: 200,
	rate: 20,
	idleSubscribers: 10_000,
};
/** Under a minute on an idle 2-core machine: fewer appends, and no 10,000-subscriber RSS (the full run has it). */
export const FANOUT_QUICK_PLAN: FanoutPlan = {
	subscribers: 1_000,
	rounds: 2,
	warmup: 10,
	appends: 40,
	rate: 20,
	idleSubscribers: 0,
};

const FANOUT_TARGET = 1.5;
/** Subscriptions being opened at once. */
const OPENING = 100;
const DELIVERY_TIMEOUT_MS = 60_000;
/** After subscribers close, before the next side's round: let the server detach them. */
const SETTLE_MS = 1_000;
/** Appends that check the 10,000 idle subscribers still receive. */
const IDLE_CHECK_APPENDS = 3;

const began = performance.now();
const progress = (message: string) =>
	process.stderr.write(`bench: fanout  ${((performance.now() - began) / 1000).toFixed(1)} s  ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

const CREATE = "mutation($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }";
const APPEND = "mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }";

function appendOne(url: string, sessionId: string, i: number): Promise<number> {
	return post<{ appendEntry: { entry: { seq: number } } }>(url, APPEND, {
		input: {
			sessionId,
			entry: { message: { role: "user", content: `message ${i}`, timestamp: Date.now() } },
		},
	}).then((data) => data.appendEntry.entry.seq);
}

/** `count` subscribers of `sessionId` from seq 0, opened `OPENING` at a time; resolves once all are subscribed. */
async function openSubscribers(
	server: FanoutServer,
	sessionId: string,
	count: number,
	maxSeq: number,
	onProgress: (s: Subscriber) => void,
): Promise<Subscriber[]> {
	const subscribers: Subscriber[] = [];
	let next = 0;
	const opener = async () => {
		while (next < count) {
			next += 1;
			const s = subscribe({
				host: server.host,
				port: server.port,
				sessionId,
				afterSeq: 0,
				maxSeq,
				onProgress,
			});
			subscribers.push(s);
			await s.opened;
		}
	};
	try {
		await Promise.all(Array.from({ length: OPENING }, opener));
	} catch (error) {
		for (const s of subscribers) s.close();
		throw error;
	}
	return subscribers;
}

/** Resolves once every subscriber's `lastSeq` reached `seq` (`advance` is their onProgress). */
function deliveryTracker(count: number) {
	let target = Number.POSITIVE_INFINITY;
	let reached = 0;
	let wake: (() => void) | undefined;
	let counted = new WeakSet<Subscriber>();
	return {
		advance(s: Subscriber) {
			if (s.lastSeq >= target && !counted.has(s)) {
				counted.add(s);
				reached += 1;
				if (reached === count) wake?.();
			}
		},
		async until(seq: number, subscribers: readonly Subscriber[]) {
			target = seq;
			reached = 0;
			counted = new WeakSet();
			for (const s of subscribers) this.advance(s);
			if (reached === count) return;
			let timer: NodeJS.Timeout | undefined;
			await Promise.race([
				new Promise<void>((resolve) => {
					wake = resolve;
				}),
				new Promise<never>((_, reject) => {
					timer = setTimeout(() => {
						const behind = subscribers.filter((s) => s.lastSeq < seq);
						reject(
							new Error(
								`${behind.length} of ${count} subscribers did not reach seq ${seq} within ${DELIVERY_TIMEOUT_MS} ms` +
									` (first: at ${behind[0]?.lastSeq}; ${behind[0]?.violations.slice(0, 3).join("; ") ?? ""})`,
							),
						);
					}, DELIVERY_TIMEOUT_MS);
				}),
			]).finally(() => clearTimeout(timer));
		},
	};
}

function checkExactlyOnce(side: Side, subscribers: readonly Subscriber[], lastSeq: number): void {
	for (const [i, s] of subscribers.entries()) {
		if (s.violations.length > 0 || s.lastSeq !== lastSeq)
			throw new Error(
				`${side}: subscriber ${i} did not receive seqs 1..${lastSeq} exactly once in order: ` +
					`last ${s.lastSeq}; ${s.violations.slice(0, 5).join("; ")}`,
			);
	}
}

async function waitForCommits(server: FanoutServer, lastSeq: number): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (server.commits.size < lastSeq || (server.side === "ours" && server.pushes.size < lastSeq)) {
		if (Date.now() > deadline)
			throw new Error(`${server.side}: only ${server.commits.size} commit instants reported`);
		await sleep(5);
	}
}

interface RoundResult {
	side: Side;
	round: number;
	/** ms, one per measured delivery */
	commitToReceipt: Float64Array;
	ackToReceipt: Float64Array;
	writeMs: number;
	rssBytes: number;
	/** Ours: per measured seq, commit → the feed's first push (ms); empty for bare. */
	commitToPush: Float64Array;
	/** CPU seconds over the timed appends: the server process, and this process (subscribers and writer). */
	cpu: { server: number; client: number };
}

async function runRound(server: FanoutServer, plan: FanoutPlan, round: number): Promise<RoundResult> {
	const sessionId = `fanout-${round}`;
	const lastSeq = plan.warmup + plan.appends;
	await post(server.url, CREATE, { id: sessionId });
	server.resetCommits();
	const tracker = deliveryTracker(plan.subscribers);
	const subscribers = await openSubscribers(server, sessionId, plan.subscribers, lastSeq, (s) =>
		tracker.advance(s),
	);
	try {
		for (let i = 0; i < plan.warmup; i++) await appendOne(server.url, sessionId, i);
		await tracker.until(plan.warmup, subscribers);
		const ackAt = new Float64Array(lastSeq + 1).fill(Number.NaN);
		const serverCpu = server.cpuSeconds();
		const clientCpu = process.cpuUsage();
		const started = performance.now();
		const writes: Promise<void>[] = [];
		for (let i = 0; i < plan.appends; i++) {
			const at = started + (i * 1000) / plan.rate;
			await sleep(at - performance.now());
			writes.push(
				appendOne(server.url, sessionId, plan.warmup + i).then((seq) => {
					ackAt[seq] = monotonicNs();
				}),
			);
		}
		await Promise.all(writes);
		const writeMs = performance.now() - started;
		await tracker.until(lastSeq, subscribers);
		const clientUsed = process.cpuUsage(clientCpu);
		const cpu = {
			server: server.cpuSeconds() - serverCpu,
			client: (clientUsed.user + clientUsed.system) / 1e6,
		};
		checkExactlyOnce(server.side, subscribers, lastSeq);
		await waitForCommits(server, lastSeq);
		const n = plan.appends * subscribers.length;
		const commitToReceipt = new Float64Array(n);
		const ackToReceipt = new Float64Array(n);
		let k = 0;
		for (const s of subscribers) {
			for (let seq = plan.warmup + 1; seq <= lastSeq; seq++) {
				const received = s.receivedAt[seq] as number;
				commitToReceipt[k] = (received - (server.commits.get(seq) as number)) / 1e6;
				ackToReceipt[k] = (received - (ackAt[seq] as number)) / 1e6;
				k += 1;
			}
		}
		const commitToPush = new Float64Array(server.pushes.size > 0 ? plan.appends : 0);
		for (let i = 0; i < commitToPush.length; i++) {
			const seq = plan.warmup + 1 + i;
			commitToPush[i] = ((server.pushes.get(seq) as number) - (server.commits.get(seq) as number)) / 1e6;
		}
		const rssBytes = server.rssBytes();
		return { side: server.side, round, commitToReceipt, ackToReceipt, commitToPush, writeMs, rssBytes, cpu };
	} finally {
		for (const s of subscribers) s.close();
		await sleep(SETTLE_MS);
	}
}

/** RSS with `count` idle subscribers, then a few appends every one of them must receive. */
async function idleRss(server: FanoutServer, count: number): Promise<number> {
	const sessionId = `fanout-idle-${count}`;
	await post(server.url, CREATE, { id: sessionId });
	const tracker = deliveryTracker(count);
	const subscribers = await openSubscribers(server, sessionId, count, IDLE_CHECK_APPENDS, (s) =>
		tracker.advance(s),
	);
	try {
		await sleep(2_000);
		const rss = server.rssBytes();
		for (let i = 0; i < IDLE_CHECK_APPENDS; i++) await appendOne(server.url, sessionId, i);
		await tracker.until(IDLE_CHECK_APPENDS, subscribers);
		checkExactlyOnce(server.side, subscribers, IDLE_CHECK_APPENDS);
		return rss;
	} finally {
		for (const s of subscribers) s.close();
		await sleep(SETTLE_MS * 2);
	}
}

function quantile(sorted: Float64Array, q: number): number {
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export interface Latency {
	n: number;
	p50: number;
	p99: number;
	max: number;
}

function latency(parts: readonly Float64Array[]): Latency {
	const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
	let at = 0;
	for (const p of parts) {
		all.set(p, at);
		at += p.length;
	}
	all.sort();
	return {
		n: all.length,
		p50: quantile(all, 0.5),
		p99: quantile(all, 0.99),
		max: all[all.length - 1] ?? NaN,
	};
}

export interface FanoutResult {
	plan: FanoutPlan;
	commitToReceipt: Record<Side, Latency>;
	ackToReceipt: Record<Side, Latency>;
	/** Ours: commit → the feed's first push of the entry, per append. */
	commitToPush: Latency;
	/** Per round and side: p99 commit→receipt, ms. */
	roundP99: Array<{ round: number; side: Side; p99: number; writeMs: number; cpu: RoundResult["cpu"] }>;
	rss: Record<Side, { idle0: number; after1000: number; idle10000: number | undefined }>;
	ratio: number;
	exactlyOnce: boolean;
}

/** A failure, with what the server logged last. */
async function withLog<T>(server: FanoutServer, work: Promise<T>): Promise<T> {
	try {
		return await work;
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		throw new Error(
			`${server.side}: ${message}\n${server.side} server's last log lines:\n${server.logTail()}`,
		);
	}
}

export async function measureFanout(postgresUrl: string, plan: FanoutPlan): Promise<FanoutResult> {
	const database = await createBenchDatabase(postgresUrl);
	try {
		progress("starting our server (NODE_ENV=production) and the bare Yoga server");
		const servers = {
			ours: await startFanoutServer("ours", database.url),
			bare: await startFanoutServer("bare"),
		};
		try {
			const idle0 = { ours: servers.ours.rssBytes(), bare: servers.bare.rssBytes() };
			const rounds: RoundResult[] = [];
			for (let round = 0; round < plan.rounds; round++) {
				const order: Side[] = round % 2 === 0 ? ["ours", "bare"] : ["bare", "ours"];
				for (const side of order) {
					progress(
						`round ${round + 1}/${plan.rounds} ${side}: ${plan.subscribers} subscribers, ${plan.warmup}+${plan.appends} appends at ${plan.rate}/s`,
					);
					rounds.push(await withLog(servers[side], runRound(servers[side], plan, round)));
				}
			}
			const idle: Partial<Record<Side, number>> = {};
			if (plan.idleSubscribers > 0) {
				for (const side of ["ours", "bare"] as const) {
					progress(`${side}: RSS with ${plan.idleSubscribers} idle subscribers`);
					idle[side] = await withLog(servers[side], idleRss(servers[side], plan.idleSubscribers));
				}
			}
			const of = (side: Side) => rounds.filter((r) => r.side === side);
			const commitToReceipt = {
				ours: latency(of("ours").map((r) => r.commitToReceipt)),
				bare: latency(of("bare").map((r) => r.commitToReceipt)),
			};
			return {
				plan,
				commitToReceipt,
				ackToReceipt: {
					ours: latency(of("ours").map((r) => r.ackToReceipt)),
					bare: latency(of("bare").map((r) => r.ackToReceipt)),
				},
				commitToPush: latency(of("ours").map((r) => r.commitToPush)),
				roundP99: rounds.map((r) => ({
					round: r.round,
					side: r.side,
					p99: latency([r.commitToReceipt]).p99,
					writeMs: r.writeMs,
					cpu: r.cpu,
				})),
				rss: {
					ours: {
						idle0: idle0.ours,
						after1000: Math.max(...of("ours").map((r) => r.rssBytes)),
						idle10000: idle.ours,
					},
					bare: {
						idle0: idle0.bare,
						after1000: Math.max(...of("bare").map((r) => r.rssBytes)),
						idle10000: idle.bare,
					},
				},
				ratio: commitToReceipt.ours.p99 / commitToReceipt.bare.p99,
				// Every round and the idle check threw otherwise.
				exactlyOnce: true,
			};
		} finally {
			await Promise.all([servers.ours.stop(), servers.bare.stop()]);
		}
	} finally {
		await database.drop();
	}
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const mib = (x: number | undefined) => (x === undefined ? "-" : `${(x / 1024 / 1024).toFixed(0)} MiB`);

/** The issue's row, in the HTTP section's table format. */
export function fanoutRow(r: FanoutResult): HttpResult {
	return {
		key: "fan-out p99",
		title: "",
		metric: "latency",
		ours: r.commitToReceipt.ours.p99,
		baseline: r.commitToReceipt.bare.p99,
		ratio: r.ratio,
		target: FANOUT_TARGET,
		met: r.ratio <= FANOUT_TARGET && r.exactlyOnce,
	};
}

/** Per round, ours' p99 ÷ bare's p99: the two sides of one round ran back to back. */
function pairRatios(r: FanoutResult): number[] {
	const p99 = (side: Side, round: number) =>
		r.roundP99.find((x) => x.side === side && x.round === round)?.p99;
	return Array.from(
		{ length: r.plan.rounds },
		(_, round) => (p99("ours", round) ?? NaN) / (p99("bare", round) ?? NaN),
	);
}

function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2
		? (sorted[mid] as number)
		: ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Server CPU µs per delivery over the timed appends (the appends' own handling included). */
function perDelivery(r: FanoutResult, side: Side): number {
	const rounds = r.roundP99.filter((x) => x.side === side);
	const cpu = rounds.reduce((sum, x) => sum + x.cpu.server, 0);
	return (cpu * 1e6) / (rounds.length * r.plan.appends * r.plan.subscribers);
}

export function formatFanout(r: FanoutResult): string {
	const { plan } = r;
	const lat = (l: Latency) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)} ms`;
	return [
		formatHttpTable([fanoutRow(r)]),
		"",
		"                 commit→receipt p50 / p99 / max     ack→receipt p50 / p99 / max     deliveries",
		`  ours           ${lat(r.commitToReceipt.ours).padEnd(35)}${lat(r.ackToReceipt.ours).padEnd(32)}${r.commitToReceipt.ours.n}`,
		`  bare Yoga      ${lat(r.commitToReceipt.bare).padEnd(35)}${lat(r.ackToReceipt.bare).padEnd(32)}${r.commitToReceipt.bare.n}`,
		`  ours, per append: commit→the feed's first push (notice + the feed's read) ${lat(r.commitToPush)}`,
		`  p99 per round  ${r.roundP99.map((x) => `${x.side} ${ms(x.p99)}`).join(", ")}`,
		`  p99 ratio of each round's pair (ours ÷ bare, run back to back) ${pairRatios(r)
			.map((x) => x.toFixed(2))
			.join(", ")}; median ${median(pairRatios(r)).toFixed(2)}`,
		`  CPU s/round    ${r.roundP99.map((x) => `${x.side} server ${x.cpu.server.toFixed(1)} client ${x.cpu.client.toFixed(1)}`).join(", ")}`,
		`  server CPU per delivery (timed appends; less load-sensitive than latency): ours ${perDelivery(r, "ours").toFixed(0)} µs, bare ${perDelivery(r, "bare").toFixed(0)} µs`,
		`  exactly once   ${r.exactlyOnce ? "yes" : "NO"}: every subscriber got seqs 1..${plan.warmup + plan.appends} of each round once, in order${plan.idleSubscribers ? `, and ${IDLE_CHECK_APPENDS} appends with ${plan.idleSubscribers} idle subscribers` : ""}`,
		"",
		"  RSS (VmRSS)    0 subscribers   1,000 (after a round)   10,000 idle",
		`  ours           ${mib(r.rss.ours.idle0).padEnd(16)}${mib(r.rss.ours.after1000).padEnd(24)}${mib(r.rss.ours.idle10000)}`,
		`  bare Yoga      ${mib(r.rss.bare.idle0).padEnd(16)}${mib(r.rss.bare.after1000).padEnd(24)}${mib(r.rss.bare.idle10000)}`,
		"",
		`  fan-out p99    ${plan.subscribers} SSE subscribers (one connection each) on one session, ${plan.appends} appends at ${plan.rate}/s`,
		`                 (+${plan.warmup} warm-up) per round, ${plan.rounds} alternating rounds per side; p99 of commit→receipt over`,
		"                 all deliveries, ours ÷ bare graphql-yoga + createPubSub (no database); commit = the store's write",
		"                 resolved (ours) or just before publish (bare), receipt = the chunk reaching the subscriber, one clock",
	].join("\n");
}

/** Runs the fan-out case on `server`; returns the section's text for stdout. */
export async function runFanoutSection(
	server: PostgresServer,
	plan: FanoutPlan,
	label: string,
): Promise<string> {
	const loadStart = load();
	const started = performance.now();
	const result = await measureFanout(server.url, plan);
	const loadEnd = load();
	const seconds = ((performance.now() - started) / 1000).toFixed(1);
	const round3 = (x: number) => Number(x.toFixed(3));
	const json = {
		...result,
		ratio: round3(result.ratio),
		roundP99: result.roundP99.map((x) => ({
			...x,
			p99: round3(x.p99),
			writeMs: Math.round(x.writeMs),
			cpu: { server: round3(x.cpu.server), client: round3(x.cpu.client) },
		})),
		loadavg: { start: loadStart, end: loadEnd },
	};
	return [
		`Fan-out: our server vs bare graphql-yoga + createPubSub (issue 10 target) — ${label}, ${seconds} s`,
		`loadavg at start ${loadStart}; at end ${loadEnd}`,
		"",
		formatFanout(result),
		"",
		"FANOUT JSON:",
		JSON.stringify(json),
		"",
	].join("\n");
}

async function main(): Promise<void> {
	const quick = process.argv.slice(2).includes("--quick");
	const server = await startServer();
	try {
		const label = `PostgreSQL ${await serverVersion(server.url)} (${server.origin})${quick ? ", --quick" : ""}`;
		process.stdout.write(await runFanoutSection(server, quick ? FANOUT_QUICK_PLAN : FANOUT_FULL_PLAN, label));
	} finally {
		await server.stop();
	}
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	main().catch((error: unknown) => {
		process.stderr.write(
			`fanout failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exitCode = 1;
	});
}
