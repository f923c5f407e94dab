/**
 * The server as a real process (`node --import tsx src/main.ts`, what
 * `npm start` runs) on a Postgres database: results that no encoder could
 * write (an entry stored before the write-time limits existed, nested
 * thousands of levels; an event far over the response limit) fail their
 * subscription with LIMIT_EXCEEDED over SSE and graphql-ws, and the process
 * stays up and keeps serving. An exception outside a request would kill
 * the process: only a separate process can witness that.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, sseSubscribe, wsSubscribe } from "../events/clients.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { within } from "../support/expect.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

interface ServerProcess {
	child: ChildProcess;
	url: string;
	wsUrl: string;
	exited: Promise<number | null>;
	log: string[];
}

/** Starts the server and resolves once it logged its address. */
async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
	const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
		cwd: repo,
		env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
		stdio: ["ignore", "ignore", "pipe"],
	});
	const log: string[] = [];
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	const ready = new Promise<string>((resolve, reject) => {
		child.once("error", reject);
		let buffered = "";
		child.stderr?.on("data", (chunk: Buffer) => {
			buffered += chunk.toString();
			const lines = buffered.split("\n");
			buffered = lines.pop() ?? "";
			for (const line of lines) {
				log.push(line);
				const url = / ready url=(\S+)/.exec(line)?.[1];
				if (url) resolve(url);
			}
		});
		void exited.then((code) => reject(new Error(`server exited with ${code}:\n${log.join("\n")}`)));
	});
	const url = await within(30_000, "the server process to be ready", ready);
	return { child, url, wsUrl: url.replace(/^http/, "ws"), exited, log };
}

async function request(url: string, query: string, variables?: Record<string, unknown>) {
	const response = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ query, variables }),
	});
	return (await response.json()) as {
		data?: Record<string, unknown>;
		errors?: Array<{ extensions?: { code?: string } }>;
	};
}

describe("the server process survives results it cannot encode", () => {
	let database: TestDatabase;
	let server: ServerProcess;
	let sql: postgres.Sql;

	beforeAll(async () => {
		database = await createTestDatabase();
		server = await startServerProcess({
			DATABASE_URL: database.url,
			MAX_RESPONSE_BYTES: String(4 * 1024 * 1024),
		});
		sql = postgres(database.url, { max: 1, onnotice: () => {} });
	}, 60_000);

	afterAll(async () => {
		await sql?.end({ timeout: 1 });
		if (server && server.child.exitCode === null) {
			server.child.kill("SIGTERM");
			await within(10_000, "the server to stop", server.exited);
		}
		await database?.drop();
	});

	/** A session whose one entry (its message as JSON text) was written straight into the table, past the store's checks. */
	async function storedAsIs(sessionId: string, message: string): Promise<void> {
		const created = await request(
			server.url,
			`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`,
		);
		expect(created.errors).toBeUndefined();
		await sql`insert into entries (session_key, seq, id, parent_id, type, timestamp, depth, payload)
			select key, 1, 'e1', null, 'message', now(), 0, (${`{"message":${message}}`}::text)::jsonb
			from sessions where workspace_id = 'default' and id = ${sessionId}`;
		await sql`update sessions set last_seq = 1, entry_count = 1, leaf_id = 'e1', leaf_depth = 0
			where workspace_id = 'default' and id = ${sessionId}`;
	}

	/** JSON text nested `depth` levels; built as text because JSON.stringify itself overflows on it. */
	const nested = (depth: number) => `${"[".repeat(depth)}"bottom"${"]".repeat(depth)}`;

	const cases = [
		["nested 5,000 levels", () => `{"role":"user","content":${nested(5_000)},"timestamp":1}`, "raw"],
		[
			"aliased far over the response limit",
			() => JSON.stringify({ role: "user", content: "w".repeat(1_000_000), timestamp: 1 }),
			Array.from({ length: 10 }, (_, i) => `r${i}: raw`).join(" "),
		],
	] as const;

	for (const [what, message, selection] of cases) {
		for (const transport of [sseSubscribe, wsSubscribe]) {
			const name = transport === sseSubscribe ? "SSE" : "graphql-ws";
			it(`an event ${what} ends the ${name} subscription with LIMIT_EXCEEDED; the process serves on`, async () => {
				const sessionId = `s-${name}-${what.length}-${Date.now()}`;
				await storedAsIs(sessionId, message());
				const client = transport(
					server,
					`subscription { sessionEvents(sessionId: "${sessionId}", afterSeq: 0) { ... on EntryAppended { seq entry { ${selection} } } } }`,
				);
				const results = await within(
					10_000,
					"the failed event",
					collect(client, (r) => r.errors !== undefined),
				);
				await client.close();
				expect(results.at(-1)?.errors?.[0]?.extensions?.code, server.log.join("\n").slice(-3000)).toBe(
					"LIMIT_EXCEEDED",
				);
				expect(server.child.exitCode).toBeNull();
				const alive = await request(server.url, "{ __typename }");
				expect(alive.data).toEqual({ __typename: "Query" });
			});
		}
	}

	it("never logged a payload", () => {
		expect(server.log.join("\n")).not.toContain("w".repeat(10_000));
	});
});
