/**
 * The service in a child process (./connection-loss-server.ts), as the
 * connection-loss tests drive it: over HTTP and SSE, watching whether it is
 * still alive. Everything it logs is kept, so a test can show why it died
 * and check that no log line carries a payload.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { GraphQLResponse } from "./server.js";

const SCRIPT = fileURLToPath(new URL("./connection-loss-server.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ServerProcess {
	url: string;
	wsUrl: string;
	/** No exit code and no signal yet. */
	alive(): boolean;
	/** How it ended ("code 1", "signal SIGKILL"), or "running". */
	status(): string;
	/** Everything written to stderr so far. */
	log(): string;
	request<T = Record<string, unknown>>(
		query: string,
		variables?: Record<string, unknown>,
	): Promise<GraphQLResponse<T>>;
	/** SIGTERM, then SIGKILL if it has not exited after `ms`. */
	stop(ms?: number): Promise<void>;
}

export async function startServerProcess(databaseUrl: string, ms = 30_000): Promise<ServerProcess> {
	const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
		cwd: ROOT,
		env: { ...process.env, DATABASE_URL: databaseUrl },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stderr = "";
	let stdout = "";
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		stderr += chunk;
	});
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	const status = () =>
		child.exitCode !== null
			? `code ${child.exitCode}`
			: child.signalCode !== null
				? `signal ${child.signalCode}`
				: "running";
	const endpoint = await new Promise<{ url: string; wsUrl: string }>((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`the server process did not start within ${ms} ms:\n${stderr}`));
		}, ms);
		const fail = (why: string) => {
			clearTimeout(timer);
			reject(new Error(`the server process ${why} before serving:\n${stderr}`));
		};
		child.once("error", (error) => fail(`failed (${error.message})`));
		child.once("exit", () => fail(`exited (${status()})`));
		child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
			stdout += chunk;
			const line = stdout.split("\n")[0];
			if (stdout.includes("\n") && line) {
				clearTimeout(timer);
				resolve(JSON.parse(line) as { url: string; wsUrl: string });
			}
		});
	});
	return {
		...endpoint,
		alive: () => child.exitCode === null && child.signalCode === null,
		status,
		log: () => stderr,
		async request(query, variables) {
			try {
				const response = await fetch(endpoint.url, {
					method: "POST",
					headers: {
						"content-type": "application/json",
						accept: "application/graphql-response+json, application/json",
					},
					body: JSON.stringify({ query, variables }),
					signal: AbortSignal.timeout(20_000),
				});
				return (await response.json()) as never;
			} catch (error) {
				// A dropped connection usually means the process died: say so, with what it logged.
				await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1_000))]);
				throw new Error(`${(error as Error).message}; the server process: ${status()}\n${stderr}`);
			}
		},
		async stop(wait = 1_000) {
			if (child.exitCode !== null || child.signalCode !== null) return;
			child.kill("SIGTERM");
			const timer = setTimeout(() => child.kill("SIGKILL"), wait);
			await exited;
			clearTimeout(timer);
		},
	};
}
