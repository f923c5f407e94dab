/**
 * The raw-Postgres baseline: the least work each store operation needs on the
 * same schema, written directly with postgres.js in its idiomatic form
 * (tagged templates, hence named prepared statements reused across calls).
 * No validation, no tree rules, no result mapping beyond the driver's: the
 * distance between a store operation and its baseline is what the store adds.
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { ParsedSessionFile } from "../src/session/jsonl.js";

/** As many rows per INSERT as the store's import sends (IMPORT_BATCH in the store). */
const IMPORT_BATCH = 1000;

const ENTRY_COLUMNS = [
	"session_key",
	"seq",
	"id",
	"parent_id",
	"type",
	"timestamp",
	"depth",
	"payload",
] as const;

export interface RawEntry {
	seq: number;
	id: string;
	parent_id: string | null;
	type: string;
	timestamp: Date;
	depth: number;
	payload: Record<string, unknown>;
}

export class RawBaseline {
	private readonly sql: postgres.Sql;

	/** The store's pool size (openPostgres default), so concurrency is compared like for like. */
	constructor(url: string, max = 10) {
		this.sql = postgres(url, { max, onnotice: () => {} });
	}

	async createSession(ws: string, sessionId: string): Promise<void> {
		const now = new Date().toISOString();
		await this.sql`insert into sessions (workspace_id, id, created_at, updated_at)
			values (${ws}, ${sessionId}, ${now}, ${now})`;
	}

	/**
	 * One append: lock the session row, insert the entry under the current leaf
	 * (its depth read in the same statement), move the pointer. Returns the entry's seq.
	 */
	async append(ws: string, sessionId: string, payload: Record<string, unknown>): Promise<number> {
		return this.sql.begin(async (tx) => {
			const [session] = await tx<
				{ key: number; leaf_id: string | null; last_seq: number; entry_count: number }[]
			>`
				select key, leaf_id, last_seq, entry_count from sessions
				where workspace_id = ${ws} and id = ${sessionId} for update`;
			if (!session) throw new Error(`baseline session ${sessionId} is missing`);
			const id = randomBytes(8).toString("hex");
			const seq = session.last_seq + 1;
			const now = new Date().toISOString();
			await tx`insert into entries (session_key, seq, id, parent_id, type, timestamp, depth, payload)
				values (${session.key}, ${seq}, ${id}, ${session.leaf_id}, 'message', ${now},
					coalesce((select p.depth + 1 from entries p
						where p.session_key = ${session.key} and p.id = ${session.leaf_id}), 0),
					${tx.json(payload as postgres.JSONValue)})`;
			await tx`update sessions set leaf_id = ${id}, last_seq = ${seq}, entry_count = ${session.entry_count + 1},
				updated_at = ${now} where workspace_id = ${ws} and id = ${sessionId}`;
			return seq;
		});
	}

	/** Root → leaf: one recursive walk up parent_id from the session's leaf, payloads carried along. */
	async path(ws: string, sessionId: string): Promise<RawEntry[]> {
		return this.sql<RawEntry[]>`
			with recursive walk as (
				select e.session_key, e.seq, e.id, e.parent_id, e.type, e.timestamp, e.depth, e.payload
				from sessions s join entries e on e.session_key = s.key and e.id = s.leaf_id
				where s.workspace_id = ${ws} and s.id = ${sessionId}
				union all
				select p.session_key, p.seq, p.id, p.parent_id, p.type, p.timestamp, p.depth, p.payload
				from walk w join entries p on p.session_key = w.session_key and p.id = w.parent_id
			)
			select seq, id, parent_id, type, timestamp, depth, payload from walk order by depth`;
	}

	/** The first `limit` entries of the append log. */
	async logPage(ws: string, sessionId: string, limit: number): Promise<RawEntry[]> {
		return this.sql<RawEntry[]>`
			select seq, id, parent_id, type, timestamp, depth, payload from entries
			where session_key = (select key from sessions where workspace_id = ${ws} and id = ${sessionId}) and seq > 0
			order by seq limit ${limit}`;
	}

	/**
	 * The rows an import writes, already parsed (the store parses and migrates
	 * inside its timing; that work is part of what the ratio shows): the
	 * session row, then the entries in multi-row INSERTs, in one transaction.
	 */
	async importRows(ws: string, sessionId: string, file: ParsedSessionFile): Promise<void> {
		const rows = (key: number) =>
			file.rows.map(({ seq, depth, entry }) => {
				const { type, id, parentId, timestamp, ...own } = entry;
				return {
					session_key: key,
					seq,
					id,
					parent_id: parentId,
					type,
					timestamp,
					depth,
					payload: own as postgres.JSONValue,
				};
			});
		const last = file.rows[file.rows.length - 1];
		const count = file.rows.length;
		await this.sql.begin(async (tx) => {
			const [session] = await tx<{ key: number }[]>`
				insert into sessions (workspace_id, id, created_at, updated_at, cwd, leaf_id, last_seq, entry_count, header)
				values (${ws}, ${sessionId}, ${file.header.timestamp}, ${last?.entry.timestamp ?? file.header.timestamp},
					${file.header.cwd}, ${file.leafId}, ${count}, ${count},
					${tx.json(file.header.extra as postgres.JSONValue)})
				returning key`;
			const all = rows(session?.key as number);
			for (let i = 0; i < all.length; i += IMPORT_BATCH) {
				await tx`insert into entries ${tx(all.slice(i, i + IMPORT_BATCH), ...ENTRY_COLUMNS)}`;
			}
		});
	}

	/** Plans and the row estimates they rest on settle before timing starts (see run.ts). */
	async analyze(): Promise<void> {
		await this.sql`analyze sessions`;
		await this.sql`analyze entries`;
	}

	async close(): Promise<void> {
		await this.sql.end({ timeout: 5 });
	}
}
