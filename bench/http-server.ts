/**
 * The real server as users run it: `node --import tsx src/main.ts` in a
 * child process with NODE_ENV=production, so its event loop, GC and JSON
 * work are its own and not shared with the benchmark's clients. Limits that
 * guard against greedy clients are raised to fit the benchmark itself (its 16
 * keep-alive connections from one address, a 10,000-entry walk in one
 * response); every other setting is the production default.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../scripts/dev-postgres.js";
import { cpuOf } from "./proc.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const READY_TIMEOUT_MS = 60_000;

/** The limits the harness would otherwise trip over; nothing here changes how a request is served. */
const BENCH_LIMITS: Record<string, string> = {
	MAX_CONNECTIONS_PER_CLIENT: "10000",
	MAX_SUBSCRIPTIONS_PER_CLIENT: "100000",
	MAX_QUERY_COST: "100000000",
	MAX_RESULT_ITEMS: "1000000",
};

export interface HttpServer {
	/** http://127.0.0.1:PORT/graphql */
	url: string;
	/** User + system CPU time the server process has used, seconds. */
	cpuSeconds(): number;
	stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((done) => child.once("exit", () => done()));
}

export interface HttpServerOptions {
	/** Extra node flags for the child (e.g. `--cpu-prof` for bench/reads.ts). */
	nodeArgs?: readonly string[];
	/** Another server to run instead of ours (bench/append-bare.ts), in the same environment, and its ready line. */
	script?: { path: string; ready: RegExp };
}

/** Our server's "ready" line, as a JSON log line (production's default format) or a pretty one. */
const OUR_READY = /"msg":"ready"| INFO {2}ready /;

export async function startHttpServer(
	databaseUrl: string,
	options: HttpServerOptions = {},
): Promise<HttpServer> {
	const port = await freePort();
	const env: NodeJS.ProcessEnv = {
		...process.env,
		...BENCH_LIMITS,
		NODE_ENV: "production",
		AUTH_MODE: "none",
		DATABASE_URL: databaseUrl,
		HOST: "127.0.0.1",
		PORT: String(port),
		LOG_LEVEL: "info",
	};
	const script = options.script ?? { path: "src/main.ts", ready: OUR_READY };
	const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--import", "tsx", script.path], {
		cwd: REPO,
		env,
		stdio: ["ignore", "ignore", "pipe"],
	});
	// The last lines, to say why the server failed; the log is quiet once it is ready.
	const tail: string[] = [];
	const ready = new Promise<void>((resolveReady, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`server not ready in ${READY_TIMEOUT_MS} ms:\n${tail.join("")}`)),
			READY_TIMEOUT_MS,
		);
		child.stderr?.setEncoding("utf8");
		child.stderr?.on("data", (chunk: string) => {
			tail.push(chunk);
			if (tail.length > 20) tail.shift();
			if (script.ready.test(chunk)) {
				clearTimeout(timer);
				resolveReady();
			}
		});
		child.once("exit", (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`server exited (${code ?? signal}) before it was ready:\n${tail.join("")}`));
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
	return { url: `http://127.0.0.1:${port}/graphql`, cpuSeconds: () => cpuOf(pid), stop };
}
