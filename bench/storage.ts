/**
 * The storage ratio of issue 10 on its own (`npx tsx bench/storage.ts`),
 * with a per-relation breakdown: bytes of sessions + entries (tables,
 * indexes, TOAST; after VACUUM) ÷ the same sessions as pi JSONL files. Each
 * workload gets a database of its own, so nothing else is counted.
 * `--append N` also times N sequential appends of a ~1 KB message (the cost
 * of compression on the write path). The server is bench/postgres.ts's.
 */
import { loadavg } from "node:os";
import postgres from "postgres";
import { openPostgres } from "../src/store/postgres/open.js";
import { createBenchDatabase, type PostgresServer, startServer } from "./postgres.js";
import { loadSessionFile, messageDraft, syntheticSessionFile } from "./workload.js";

export type StorageSource = "pi" | "synthetic";

/** The storage workload: 50 sessions of 500 entries. */
export const STORAGE_SESSIONS = 50;
export const STORAGE_ENTRIES = 500;

const WORKSPACE = "bench";

/**
 * A session file of `entries` entries: the first ones of the real pi file
 * (when present, and long enough), or the generated one (~950-byte messages).
 */
export function storageFile(source: StorageSource, entries: number): string | undefined {
	if (source === "synthetic") return syntheticSessionFile(entries + 1);
	const file = loadSessionFile();
	if (file.source === "synthetic") return undefined;
	const lines = file.text.split("\n").filter((line) => line.trim() !== "");
	return lines.length > entries ? `${lines.slice(0, entries + 1).join("\n")}\n` : undefined;
}

export interface Relation {
	/** The table, index, TOAST table or TOAST index. */
	name: string;
	kind: "table" | "index" | "toast" | "toast index";
	/** All forks (main, free space map, visibility map), as pg_total_relation_size counts them. */
	bytes: number;
}

export interface StorageMeasure {
	/** Bytes in Postgres (the sum of `relations`). */
	ours: number;
	/** Bytes of the same sessions as JSONL files. */
	baseline: number;
	relations: Relation[];
}

/** Every relation of the given tables: the heap, its indexes, its TOAST table and the TOAST index. */
const RELATIONS = `
	with t as (select oid, relname, reltoastrelid from pg_class where relname = any($1::text[]) and relkind = 'r'),
	rel as (
		select t.relname as name, 'table' as kind, t.oid from t
		union all select c.relname, 'index', c.oid from t join pg_index i on i.indrelid = t.oid join pg_class c on c.oid = i.indexrelid
		union all select t.relname || ' TOAST', 'toast', t.reltoastrelid from t where t.reltoastrelid <> 0
		union all select t.relname || ' TOAST index', 'toast index', i.indexrelid
			from t join pg_index i on i.indrelid = t.reltoastrelid
	)
	select name, kind, (pg_relation_size(oid, 'main') + pg_relation_size(oid, 'fsm') + pg_relation_size(oid, 'vm'))::text as bytes
	from rel order by name`;

/** Imports the sessions into a fresh database, VACUUMs, and measures every relation. */
export async function measureStorageBytes(
	serverUrl: string,
	text: string,
	sessions: number,
): Promise<StorageMeasure> {
	const database = await createBenchDatabase(serverUrl);
	try {
		const store = await openPostgres(database.url);
		try {
			for (let i = 0; i < sessions; i++) {
				await store.importSession(WORKSPACE, text, { sessionId: `storage-${i}` });
			}
		} finally {
			await store.close();
		}
		const sql = postgres(database.url, { max: 1, onnotice: () => {} });
		try {
			// This server may run no autovacuum; the visibility map and free space map are written by VACUUM.
			await sql`vacuum analyze sessions`;
			await sql`vacuum analyze entries`;
			const rows = await sql.unsafe<{ name: string; kind: Relation["kind"]; bytes: string }[]>(RELATIONS, [
				["sessions", "entries"],
			]);
			const relations = rows.map((r) => ({ name: r.name, kind: r.kind, bytes: Number(r.bytes) }));
			const [total] = await sql<{ bytes: string }[]>`
				select (pg_total_relation_size('sessions') + pg_total_relation_size('entries'))::text as bytes`;
			const ours = Number(total?.bytes);
			const sum = relations.reduce((s, r) => s + r.bytes, 0);
			if (sum !== ours) throw new Error(`breakdown ${sum} B ≠ pg_total_relation_size ${ours} B`);
			return { ours, baseline: Buffer.byteLength(text) * sessions, relations };
		} finally {
			await sql.end({ timeout: 5 });
		}
	} finally {
		await database.drop();
	}
}

/** Median ms of `n` sequential appends of a ~1 KB user message to one session. */
export async function timeAppends(serverUrl: string, n: number): Promise<number> {
	const database = await createBenchDatabase(serverUrl);
	try {
		const store = await openPostgres(database.url);
		try {
			const { sessionId } = await store.createSession(WORKSPACE, { sessionId: "append" });
			const times: number[] = [];
			for (let i = 0; i < n; i++) {
				const started = performance.now();
				await store.appendEntry(WORKSPACE, sessionId, messageDraft(i));
				times.push(performance.now() - started);
			}
			times.sort((a, b) => a - b);
			return times[Math.floor(times.length / 2)] ?? Number.NaN;
		} finally {
			await store.close();
		}
	} finally {
		await database.drop();
	}
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

function report(source: StorageSource, m: StorageMeasure, entries: number): string {
	const width = Math.max(...m.relations.map((r) => r.name.length));
	return [
		`storage ${source}: ${mib(m.ours)} ÷ ${mib(m.baseline)} JSONL = ${(m.ours / m.baseline).toFixed(3)}`,
		...m.relations.map(
			(r) =>
				`  ${r.name.padEnd(width)}  ${mib(r.bytes).padStart(10)}  ${(r.bytes / entries).toFixed(1).padStart(7)} B/entry  ${((100 * r.bytes) / m.ours).toFixed(1).padStart(5)} %`,
		),
	].join("\n");
}

async function main(server: PostgresServer): Promise<void> {
	const appendAt = process.argv.indexOf("--append");
	const appends = appendAt >= 0 ? Number(process.argv[appendAt + 1] ?? 500) : 0;
	const load = () =>
		loadavg()
			.map((x) => x.toFixed(2))
			.join(" ");
	console.log(`server ${server.origin}; loadavg ${load()}`);
	for (const source of ["pi", "synthetic"] as const) {
		const text = storageFile(source, STORAGE_ENTRIES);
		if (text === undefined) {
			console.log(`storage ${source}: no pi file, skipped`);
			continue;
		}
		const m = await measureStorageBytes(server.url, text, STORAGE_SESSIONS);
		console.log(report(source, m, STORAGE_SESSIONS * STORAGE_ENTRIES));
		console.log(`JSON: ${JSON.stringify({ source, ...m })}`);
	}
	if (appends > 0) {
		const ms = await timeAppends(server.url, appends);
		console.log(`append of a ~1 KB message: median ${ms.toFixed(3)} ms over ${appends}; loadavg ${load()}`);
	}
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const server = await startServer();
	try {
		await main(server);
	} finally {
		await server.stop();
	}
}
