/**
 * The HTTP cases of issue 10: one GraphQL operation against the real server
 * next to the least raw postgres.js work that returns the same rows from the
 * same database, in this process. Targets are the table.
 */
import { Agent, request } from "node:http";
import { getTableName } from "drizzle-orm";
import postgres from "postgres";
import { assistantTurns, usageRollups } from "../src/store/postgres/schema.js";
import type { RawBaseline } from "./baseline.js";
import type { Operation } from "./http-measure.js";
import { messageDraft } from "./workload.js";

/** The workspace AUTH_MODE=none puts every caller in (DEFAULT_WORKSPACE). */
export const HTTP_WORKSPACE = "default";

/** Sessions the cases read; seeded before the server starts (http.ts). */
export const CHAIN_SESSION = "chain";

export type Metric = "throughput" | "latency";

export interface HttpCase {
	key: string;
	title: string;
	/** throughput: ours ÷ baseline ops/s, met when ≥ target; latency: median ms ratio, met when ≤ target. */
	metric: Metric;
	target: number;
	workers: number;
	ours: Operation;
	baseline: Operation;
	/** Both sides answer alike (row counts), checked once before timing. */
	check?: () => Promise<void>;
}

type Post = <T>(query: string, variables: Record<string, unknown>) => Promise<T>;

/**
 * A GraphQL client over node:http with a keep-alive agent (one connection per
 * concurrent client, reused). The client shares the machine's 2 cores with
 * the server and Postgres, so its own CPU counts against the server's
 * throughput: the runtime's fetch (undici, WHATWG streams) spent 320 µs of
 * CPU per append, node:http 110 µs, next to the raw baseline's 230 µs in
 * postgres.js. Any GraphQL error fails the run.
 */
export function graphqlClient(url: string): Post {
	const target = new URL(url);
	const agent = new Agent({ keepAlive: true });
	return <T>(query: string, variables: Record<string, unknown>) =>
		new Promise<T>((resolve, reject) => {
			const body = JSON.stringify({ query, variables });
			const headers = {
				"content-type": "application/json",
				accept: "application/graphql-response+json",
				"content-length": Buffer.byteLength(body),
			};
			const options = { agent, host: target.hostname, port: target.port, path: target.pathname };
			const sent = request({ ...options, method: "POST", headers }, (response) => {
				const chunks: Buffer[] = [];
				response.on("data", (chunk: Buffer) => chunks.push(chunk));
				response.on("error", reject);
				response.on("end", () => {
					try {
						const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
							data?: T;
							errors?: unknown;
						};
						if (answer.errors || !answer.data)
							reject(new Error(`operation failed: ${JSON.stringify(answer.errors ?? answer)}`));
						else resolve(answer.data);
					} catch (error) {
						reject(error);
					}
				});
			});
			sent.on("error", reject);
			sent.end(body);
		});
}

const PAGE = `query($s: String!) { session(sessionId: $s) {
	entries(first: 100) { edges { node { entryId seq type parentId timestamp } } } } }`;
const APPEND = `mutation($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`;
const CONTEXT = `query($s: String!) { session(sessionId: $s) { context { messages } } }`;
const BRANCH = `query($s: String!) { session(sessionId: $s) { branch { entryId } } }`;
const CREATE = `mutation($s: String!) { createSession(input: { sessionId: $s }) { sessionId } }`;

/** The tables a write adds rollup rows to, named by the schema so a rename cannot leave the bench behind. */
const ROLLUP_TABLES = [usageRollups, assistantTurns];

/**
 * "Without rollups" for issue 11's write-cost ratio: a trigger discards the
 * rollup rows of the given sessions before they are written (nothing
 * stored, no index touched, nothing dirty to fold). Its WHEN condition is
 * checked without calling the function, so other sessions' writes pay next
 * to nothing for it. The statements still carry the rows: the cost measured
 * is the database's, which is where rollups could contend.
 */
async function discardRollupsOf(sql: postgres.Sql, ws: string, sessionIds: readonly string[]): Promise<void> {
	const rows = await sql<{ key: number }[]>`
		select key from sessions where workspace_id = ${ws} and id = any(${sessionIds as string[]})`;
	const keys = rows.map((r) => Number(r.key));
	if (keys.length !== sessionIds.length) throw new Error("bench: sessions without rollups are missing");
	await sql.unsafe(
		"create or replace function bench_discard_rollups() returns trigger language plpgsql as $$ begin return null; end $$",
	);
	for (const table of ROLLUP_TABLES)
		await sql.unsafe(`create trigger bench_without_rollups before insert on ${getTableName(table)} for each row
			when (new.${table.sessionKey.name} = any('{${keys.join(",")}}'::integer[])) execute function bench_discard_rollups()`);
}

/** Raw reads the store's baseline class has no method for; prepared (tagged templates) like it. */
export class RawReads {
	readonly sql: postgres.Sql;

	constructor(url: string, max = 10) {
		this.sql = postgres(url, { max, onnotice: () => {} });
	}

	/** The columns the GraphQL page selects, nothing more. */
	page(ws: string, sessionId: string, limit: number) {
		return this.sql`select seq, id, parent_id, type, timestamp from entries
			where session_key = (select key from sessions where workspace_id = ${ws} and id = ${sessionId}) and seq > 0
			order by seq limit ${limit}`;
	}

	/** Root → leaf ids: the walk of RawBaseline.path without payloads. */
	pathIds(ws: string, sessionId: string) {
		return this.sql`
			with recursive walk as (
				select e.session_key, e.id, e.parent_id, e.depth
				from sessions s join entries e on e.session_key = s.key and e.id = s.leaf_id
				where s.workspace_id = ${ws} and s.id = ${sessionId}
				union all
				select p.session_key, p.id, p.parent_id, p.depth
				from walk w join entries p on p.session_key = w.session_key and p.id = w.parent_id
			)
			select id from walk order by depth`;
	}

	close() {
		return this.sql.end({ timeout: 5 });
	}
}

function expectEqual(what: string, ours: number, baseline: number) {
	if (ours !== baseline) throw new Error(`${what}: ours returned ${ours}, the baseline ${baseline}`);
}

/** Every case, in the order of the table; sessions for the appends are created here. */
export async function httpCases(
	url: string,
	raw: RawBaseline,
	reads: RawReads,
	chainLength: number,
): Promise<HttpCase[]> {
	const post = graphqlClient(url);
	const ws = HTTP_WORKSPACE;
	const sessions = async (prefix: string, count: number) => {
		const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
		for (const id of ids) {
			await post(CREATE, { s: `${id}-ours` });
			await raw.createSession(ws, `${id}-raw`);
		}
		return ids;
	};
	const appendCase = (ids: readonly string[], workers: number) => ({
		ours: (worker: number, index: number) =>
			post(APPEND, {
				input: {
					sessionId: `${ids[worker % ids.length]}-ours`,
					entry: { message: messageDraft(index).message },
				},
			}),
		baseline: (worker: number, index: number) =>
			raw.append(ws, `${ids[worker % ids.length]}-raw`, { message: messageDraft(index).message }),
		workers,
	});
	const one = await sessions("seq", 1);
	const sixteen = await sessions("c16", 16);
	const shared = await sessions("one", 1);
	// Both sides ours: sessions that keep rollups, and sessions whose rollup rows the database discards.
	const kept = Array.from({ length: 16 }, (_, i) => `rollups-${i}`);
	const bare = Array.from({ length: 16 }, (_, i) => `bare-${i}`);
	for (const id of [...kept, ...bare]) await post(CREATE, { s: id });
	await discardRollupsOf(reads.sql, ws, bare);
	const appendTo = (ids: readonly string[]) => (worker: number, index: number) =>
		post(APPEND, {
			input: { sessionId: ids[worker % ids.length], entry: { message: messageDraft(index).message } },
		});

	type Page = { session: { entries: { edges: unknown[] } } };
	type Context = { session: { context: { messages: unknown[] } } };
	type Branch = { session: { branch: unknown[] } };
	return [
		{
			key: "page100×16",
			title:
				"entries(first: 100) of a session, 16 keep-alive clients ÷ the same columns and rows, 16 concurrent",
			metric: "throughput",
			target: 0.4,
			workers: 16,
			ours: () => post(PAGE, { s: CHAIN_SESSION }),
			baseline: () => reads.page(ws, CHAIN_SESSION, 100),
			check: async () => {
				const ours = await post<Page>(PAGE, { s: CHAIN_SESSION });
				expectEqual(
					"page",
					ours.session.entries.edges.length,
					(await reads.page(ws, CHAIN_SESSION, 100)).length,
				);
			},
		},
		{
			key: "page100×16 rows",
			title: "the same page ÷ whole rows (payloads too) in the baseline, as RawBaseline.logPage reads them",
			metric: "throughput",
			target: 0.4,
			workers: 16,
			ours: () => post(PAGE, { s: CHAIN_SESSION }),
			baseline: () => raw.logPage(ws, CHAIN_SESSION, 100),
		},
		{
			key: "append×1",
			title: "sequential appendEntry over HTTP ÷ BEGIN; SELECT … FOR UPDATE; INSERT; UPDATE; COMMIT",
			metric: "throughput",
			target: 0.6,
			...appendCase(one, 1),
		},
		{
			key: "append×16/16",
			title: "16 clients appending, each to its own session (same baseline transaction)",
			metric: "throughput",
			target: 0.6,
			...appendCase(sixteen, 16),
		},
		{
			key: "append×16/1",
			title: "16 clients appending to one session (same baseline transaction)",
			metric: "throughput",
			target: 0.6,
			...appendCase(shared, 16),
		},
		{
			key: "append rollups",
			title:
				"16 clients appending, each to its own session: with rollups ÷ the same server discarding those sessions' rollup rows (issue 11)",
			metric: "throughput",
			target: 0.9,
			workers: 16,
			ours: appendTo(kept),
			baseline: appendTo(bare),
		},
		{
			key: "context",
			title: `context { messages } of a ${chainLength}-entry chain ÷ recursive CTE returning its rows with payloads`,
			metric: "latency",
			target: 1.0,
			workers: 1,
			ours: () => post(CONTEXT, { s: CHAIN_SESSION }),
			baseline: () => raw.path(ws, CHAIN_SESSION),
			check: async () => {
				const ours = await post<Context>(CONTEXT, { s: CHAIN_SESSION });
				const rows = await raw.path(ws, CHAIN_SESSION);
				const messages = rows.filter((r) => r.type === "message").length;
				expectEqual("context messages", ours.session.context.messages.length, messages);
			},
		},
		{
			key: "branch ids",
			title: `branch { entryId } of the same chain ÷ recursive CTE returning ids only`,
			metric: "latency",
			target: 1.3,
			workers: 1,
			ours: () => post(BRANCH, { s: CHAIN_SESSION }),
			baseline: () => reads.pathIds(ws, CHAIN_SESSION),
			check: async () => {
				const ours = await post<Branch>(BRANCH, { s: CHAIN_SESSION });
				expectEqual("branch", ours.session.branch.length, (await reads.pathIds(ws, CHAIN_SESSION)).length);
				expectEqual("branch length", ours.session.branch.length, chainLength);
			},
		},
	];
}
