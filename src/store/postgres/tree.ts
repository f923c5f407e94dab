/**
 * Statements of the tree view (session/tree-view.ts): a page of nodes with
 * their child counts and labels, and the comparison of two nodes. Each is
 * one statement; the indexes answer the per-node parts (children by
 * `(session_key, parent_id)`, the latest label by the partial label-target
 * index), so a page costs the same per node however large the session.
 */
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { StoredEntry } from "../../session/entry.js";
import type { Comparison } from "../../session/tree-view.js";
import { isStorableText } from "../../session/validate.js";
import { checkPathStart } from "../records.js";
import type { Db } from "./db.js";
import { sessionKeyOf } from "./queries.js";
import { type EntryRow, entryColumns, selectList, toStored } from "./rows.js";
import { entries, sessions } from "./schema.js";
import { executeRows } from "./statements.js";

/** A column of `entries` under an alias of the statement's own. */
const of = (alias: string, column: PgColumn) => sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`;

/** A node row of a tree page: the entry, its child nodes' count, its current label, and the session's leaf. */
export type TreeRow = EntryRow & {
	childCount: number;
	label: string | null;
	leafId: string | null;
	/** The session's key (sessions.key, never reused): what its cached paths are kept under. */
	sessionKey: number;
};

/**
 * The ids on the path root → a node, kept per node: a node's ancestors never
 * change (the log is append-only), so the path of a session's leaf is read
 * once and every later page of its tree uses it while the leaf stays. Kept
 * under the session's key, which is never reused: a session deleted and
 * created again under its id is another session. Bounded by the ids it
 * holds, least recently used first out.
 */
export class PathCache {
	private readonly paths = new Map<string, ReadonlySet<string>>();
	/** Reads under way: concurrent pages of one tree wait for the same read. */
	private readonly reading = new Map<string, Promise<ReadonlySet<string>>>();
	private held = 0;

	constructor(private readonly maxIds = 1_000_000) {}

	async pathOf(key: readonly string[], read: () => Promise<readonly string[]>): Promise<ReadonlySet<string>> {
		const name = JSON.stringify(key);
		const found = this.paths.get(name);
		if (found) {
			this.paths.delete(name);
			this.paths.set(name, found);
			return found;
		}
		const pending = this.reading.get(name);
		if (pending) return pending;
		const reading = read().then((list) => new Set(list));
		this.reading.set(name, reading);
		let ids: ReadonlySet<string>;
		try {
			ids = await reading;
		} finally {
			this.reading.delete(name);
		}
		if (ids.size > this.maxIds) return ids;
		for (const [old, oldIds] of this.paths) {
			if (this.held + ids.size <= this.maxIds) break;
			this.paths.delete(old);
			this.held -= oldIds.size;
		}
		this.paths.set(name, ids);
		this.held += ids.size;
		return ids;
	}
}

/**
 * Up to `limit` nodes (leaf records are not nodes) after `afterSeq`, in log
 * order. `label` is the latest label entry's for the node, null when it was
 * cleared (an empty label), as session/tree.ts#labelsOf has it.
 */
export function treePageRows(
	db: Db,
	ws: string,
	sessionId: string,
	afterSeq: number,
	limit: number,
): Promise<TreeRow[]> {
	const key = sessionKeyOf(ws, sessionId);
	// Read in seq order through (session_key, seq): the per-node subqueries run for the page's rows only.
	const childCount = sql`(select count(*)::integer from ${entries} as child
		where ${of("child", entries.sessionKey)} = ${entries.sessionKey} and ${of("child", entries.parentId)} = ${entries.id}
		and ${of("child", entries.type)} <> 'leaf')`;
	const label = sql`(select nullif(${of("label", entries.payload)}->>'label', '') from ${entries} as label
		where ${of("label", entries.sessionKey)} = ${entries.sessionKey} and ${of("label", entries.type)} = 'label'
		and ${of("label", entries.payload)}->>'targetId' = ${entries.id}
		order by ${of("label", entries.seq)} desc limit 1)`;
	// Not correlated with the row: read once per statement (an init plan), not once per node.
	const leafId = sql`(select ${sessions.leafId} from ${sessions} where ${sessions.workspaceId} = ${ws} and ${sessions.id} = ${sessionId})`;
	return executeRows<TreeRow>(
		db,
		sql`select ${selectList({ ...entryColumns, childCount, label, leafId, sessionKey: entries.sessionKey })} from ${entries}
		where ${entries.sessionKey} = ${key} and ${entries.seq} > ${afterSeq} and ${entries.type} <> 'leaf'
		order by ${entries.seq} limit ${limit}`,
	);
}

/** Ids and depths of a node's path, root first, as one recursive CTE named `name` walking from `start`. */
function pathOf(name: string, key: SQL, start: string): SQL {
	const walk = sql.identifier(name);
	return sql`${walk} as (
		select ${entries.id} as id, ${entries.parentId} as parent_id, ${entries.depth} as depth from ${entries}
		where ${entries.sessionKey} = ${key} and ${entries.id} = ${start}
		union all
		select ${entries.id}, ${entries.parentId}, ${entries.depth}
		from ${walk} join ${entries} on ${entries.sessionKey} = ${key} and ${entries.id} = ${walk}.parent_id
	)`;
}

/** A row of a comparison: the common ancestor, or a node of the path below it to `a` or to `b`. */
export type ComparedRow = EntryRow & { side: "ancestor" | "a" | "b" };

/**
 * Two nodes compared in one statement: both paths are walked to the root
 * (ids and depths only), their deepest common node is the ancestor, and only
 * it and the two parts below it are read as entries, root first. A node
 * that is not in the session has no path: no row names it.
 */
export function compareRows(
	db: Db,
	ws: string,
	sessionId: string,
	a: string,
	b: string,
): Promise<ComparedRow[]> {
	const key = sessionKeyOf(ws, sessionId);
	return executeRows<ComparedRow>(
		db,
		sql`with recursive ${pathOf("path_a", key, a)}, ${pathOf("path_b", key, b)},
		ancestor as (select path_a.id, path_a.depth from path_a join path_b on path_b.id = path_a.id
			order by path_a.depth desc limit 1),
		compared as (
			select 'ancestor' as side, id, depth from ancestor
			union all
			select 'a', id, depth from path_a where depth > coalesce((select depth from ancestor), -1)
			union all
			select 'b', id, depth from path_b where depth > coalesce((select depth from ancestor), -1)
		)
		select compared.side as "side", ${selectList(entryColumns)} from compared
		join ${entries} on ${entries.sessionKey} = ${key} and ${entries.id} = compared.id
		order by compared.side, compared.depth`,
	);
}

/**
 * Two nodes compared (store/tree-view.ts#compareOf's answer) from one
 * statement. A node with no row is not in the session; a missing session is
 * reported before a missing node (`requireSession` throws for it).
 */
export async function compareNodes(
	db: Db,
	ws: string,
	sessionId: string,
	a: string,
	b: string,
	requireSession: () => Promise<unknown>,
): Promise<Comparison<StoredEntry>> {
	const storable = isStorableText(a) && isStorableText(b);
	const rows = storable ? await compareRows(db, ws, sessionId, a, b) : [];
	const of = (side: ComparedRow["side"]) =>
		rows.filter((row) => row.side === side).map((row) => toStored(row, sessionId));
	const [ancestor = null] = of("ancestor");
	const comparison = { ancestor, a: of("a"), b: of("b") };
	const found = (id: string, path: StoredEntry[]) =>
		path.at(-1)?.entry.id === id ? path.at(-1) : ancestor?.entry.id === id ? ancestor : undefined;
	const foundA = found(a, comparison.a);
	const foundB = found(b, comparison.b);
	if (!foundA || !foundB) await requireSession();
	checkPathStart(sessionId, a, foundA, "a");
	checkPathStart(sessionId, b, foundB, "b");
	return comparison;
}
