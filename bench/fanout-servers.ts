/**
 * The two servers of the fan-out benchmark, each in a child process of its
 * own (its event loop, GC and JSON work are not shared with the clients):
 *
 * - ours: `node --import tsx --import ./bench/fanout-probe.ts src/main.ts`,
 *   NODE_ENV=production, AUTH_MODE=none, on the benchmark's database. The
 *   limits that guard against greedy clients are raised, because every
 *   subscriber comes from this one address (10,000 connections at most);
 *   every other setting is the production default.
 * - bare: bench/fanout-bare.ts (graphql-yoga + createPubSub, no database).
 *
 * Both report each commit's instant over IPC (see the probe and the bare
 * server); `commits` collects them by seq until the next `resetCommits()`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../scripts/dev-postgres.js";
import { cpuOf, rssOf } from "./proc.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const READY_TIMEOUT_MS = 60_000;

/** Only the caps one benchmark address would trip over; nothing here changes how an event is served. */
const OUR_LIMITS: Record<string, string> = {
	MAX_CONNECTIONS: "100000",
	MAX_CONNECTIONS_PER_CLIENT: "100000",
	MAX_SUBSCRIPTIONS_PER_CLIENT: "100000",
};

export type Side = "ours" | "bare";

export interface FanoutServer {
	side: Side;
	pid: number;
	host: string;
	port: number;
	/** http://host:port/graphql */
	url: string;
	/** Commit instants (CLOCK_MONOTONIC ns) by seq, since the last reset. */
	readonly commits: Map<number, number>;
	/** Ours only: when the session's feed first pushed each seq to the streams (same clock). */
	readonly pushes: Map<number, number>;
	/** Forget both. */
	resetCommits(): void;
	/** Resident set size of the server process, bytes (VmRSS). */
	rssBytes(): number;
	/** User + system CPU time the server process has used, seconds. */
	cpuSeconds(): number;
	/** The last lines the server logged (to say why an operation failed). */
	logTail(): string;
	stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((done) => child.once("exit", () => done()));
}

export async function startFanoutServer(side: Side, databaseUrl?: string): Promise<FanoutServer> {
	const port = await freePort();
	const host = "127.0.0.1";
	// BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it stops.
	const profile = process.env.BENCH_CPU_PROF?.trim();
	const args = [
		...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}/${side}`] : []),
		...(side === "ours"
			? ["--import", "tsx", "--import", "./bench/fanout-probe.ts", "src/main.ts"]
			: ["--import", "tsx", "bench/fanout-bare.ts"]),
	];
	if (side === "ours" && !databaseUrl) throw new Error("our server needs a database");
	const env: NodeJS.ProcessEnv = {
		...process.env,
		...(side === "ours"
			? { ...OUR_LIMITS, AUTH_MODE: "none", DATABASE_URL: databaseUrl, LOG_LEVEL: "info" }
			: {}),
		NODE_ENV: "production",
		HOST: host,
		PORT: String(port),
	};
	const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ["ignore", "ignore", "pipe", "ipc"] });
	const commits = new Map<number, number>();
	const pushes = new Map<number, number>();
	child.on("message", (message: { kind?: string; seq?: number; at?: string }) => {
		if (typeof message.seq !== "number") return;
		if (message.kind === "commit") commits.set(message.seq, Number(message.at));
		else if (message.kind === "push") pushes.set(message.seq, Number(message.at));
	});
	// The last lines, to say why the server failed; read to the end so the pipe never fills.
	const tail: string[] = [];
	const readyLine = side === "ours" ? /"msg":"ready"| INFO {2}ready / : /bare ready/;
	const ready = new Promise<void>((resolveReady, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`${side} server not ready in ${READY_TIMEOUT_MS} ms:\n${tail.join("")}`)),
			READY_TIMEOUT_MS,
		);
		child.stderr?.setEncoding("utf8");
		child.stderr?.on("data", (chunk: string) => {
			tail.push(chunk);
			if (tail.length > 20) tail.shift();
			if (readyLine.test(chunk)) {
				clearTimeout(timer);
				resolveReady();
			}
		});
		child.once("exit", (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`${side} server exited (${code ?? signal}) before it was ready:\n${tail.join("")}`));
		});
	});
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		child.kill("SIGTERM");
		const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
		await exited(child);
		clearTimeout(timer);
	};
	try {
		await ready;
	} catch (error) {
		await stop();
		throw error;
	}
	const pid = child.pid as number;
	return {
		side,
		pid,
		host,
		port,
		url: `http://${host}:${port}/graphql`,
		commits,
		pushes,
		resetCommits: () => {
			commits.clear();
			pushes.clear();
		},
		rssBytes: () => rssOf(pid),
		cpuSeconds: () => cpuOf(pid),
		logTail: () => tail.join(""),
		stop,
	};
}
