/**
 * The path walk: one recursive statement from an entry (default: the
 * session's leaf) to the root, so a path costs one statement however deep
 * (design/tree-rules.md). The query builder has no recursive CTE; the
 * statement is raw SQL over the schema's columns. Inside the CTE the walk's
 * own columns (`walk.id`, `stop_at`, …) are its, not the table's.
 */

import { sql } from "drizzle-orm";
import type { StoredEntry } from "../../session/entry.js";
import { SETTING_TYPES } from "../../session/kinds.js";
import { isStorableText } from "../../session/validate.js";
import { checkPathStart } from "../records.js";
import type { EntryOmissions } from "../store.js";
import type { Db } from "./queries.js";
import { type BriefEntryRow, isoText, selectList, toStored } from "./rows.js";
import { entries, sessions } from "./schema.js";
import { statement, statementFamily } from "./statements.js";

/**
 * `full`: the whole path. `bounded`: pi's path, stopped at the latest
 * compaction's first kept entry. `context`: the whole path, entries older
 * than that kept entry reduced to what settings need.
 */
export type WalkMode = "full" | "bounded" | "context";

/** Settings entries (session/kinds.ts): read from the whole path even past the compaction bound; literal SQL, fixed in code. */
const SETTINGS_TYPES = sql.raw(`(${SETTING_TYPES.map((type) => `'${type}'`).join(", ")})`);

const keptFrom = sql`case when ${entries.type} = 'compaction' then ${entries.payload}->>'firstKeptEntryId' end`;

/**
 * The path from `fromId` (default: the session's leaf), root first. A
 * `fromId` that is not a node of the session is NOT_FOUND (on `field`), a leaf
 * record INVALID_INPUT; an empty result is told apart by `requireSession`
 * (which throws for a missing session), so a found path costs one statement.
 */
export async function walkPath(
	db: Db,
	ws: string,
	sessionId: string,
	fromId: string | null | undefined,
	mode: WalkMode,
	field: string,
	requireSession: () => Promise<unknown>,
	omit: EntryOmissions = {},
): Promise<StoredEntry[]> {
	if (fromId === undefined || fromId === null) {
		const path = (await walkRows(db, ws, sessionId, null, mode, omit)).map((r) => toStored(r, sessionId));
		if (path.length === 0) await requireSession();
		return path;
	}
	// Postgres cannot compare with an id it cannot hold: no entry has it.
	const path = isStorableText(fromId)
		? (await walkRows(db, ws, sessionId, fromId, mode, omit)).map((r) => toStored(r, sessionId))
		: [];
	const start = path[path.length - 1];
	const found = start?.entry.id === fromId ? start : null;
	// A missing session is reported before a missing entry.
	if (!found) await requireSession();
	checkPathStart(sessionId, fromId, found, field);
	return path;
}

/** The path's rows, root first; none when the start entry is missing. */
function walkRows(
	db: Db,
	ws: string,
	sessionId: string,
	start: string | null,
	mode: WalkMode,
	omit: EntryOmissions,
): Promise<BriefEntryRow[]> {
	// The context reads payloads (the projection needs them); the other modes may go without.
	const brief = mode !== "context" && omit.payload === true;
	const timed = !(brief && omit.timestamp === true);
	return walkStatement(`${mode}:${brief ? "brief" : ""}:${timed ? "" : "untimed"}`).run(db, {
		ws,
		sessionId,
		start,
	});
}

const p = sql.placeholder;

/**
 * One statement per mode, each with and without payloads (and timestamps).
 * The recursion carries every column the answer needs (and the compaction
 * bounds), so the answer is read from the walk: each path entry's row is
 * fetched once, by the step that reaches it. A walk without payloads
 * carries none.
 */
const walkStatement = statementFamily((shape: string) => {
	const [mode, brief, untimed] = shape.split(":") as [WalkMode, string, string];
	const payload =
		mode === "context"
			? sql`case when not walk.beyond or walk.type in ${SETTINGS_TYPES} then walk.payload
				else jsonb_build_object('message', jsonb_build_object('role', 'assistant',
					'provider', walk.payload->'message'->'provider', 'model', walk.payload->'message'->'model'))
				end`
			: sql`walk.payload`;
	const fromWalk = {
		seq: sql`walk.seq`,
		id: sql`walk.id`,
		parentId: sql`walk.parent_id`,
		type: sql`walk.type`,
		depth: sql`walk.depth`,
		author: sql`walk.author`,
		...(untimed ? {} : { timestamp: isoText(sql`walk.ts`) }),
		...(brief ? {} : { payload }),
	};
	const select = sql`select ${selectList(fromWalk)} from walk
		${
			mode === "context"
				? sql`where not walk.beyond or walk.type in ${SETTINGS_TYPES}
					or (walk.type = 'message' and walk.payload->'message'->>'role' = 'assistant')`
				: sql``
		}
		order by walk.depth`;
	const carried = sql`, ${entries.depth} as depth, ${entries.author} as author${untimed ? sql`` : sql`, ${entries.timestamp} as ts`}${brief ? sql`` : sql`, ${entries.payload} as payload`}`;
	return statement<BriefEntryRow>(
		`walk_${mode}`,
		sql`with recursive start as (
			select coalesce(${p("start")}::text, ${sessions.leafId}) as id, ${sessions.key} as key from ${sessions}
			where ${sessions.id} = ${p("sessionId")} and ${sessions.workspaceId} = ${p("ws")}
		), walk as (
			select ${entries.id} as id, ${entries.parentId} as parent_id, ${entries.type} as type, ${entries.seq} as seq,
				${keptFrom} as stop_at,
				false as done,
				${keptFrom} as kept_from,
				false as beyond
				${carried}
			from ${entries} join start on ${entries.sessionKey} = start.key and ${entries.id} = start.id
			union all
			select ${entries.id}, ${entries.parentId}, ${entries.type}, ${entries.seq},
				case when ${entries.type} = 'compaction' then ${entries.payload}->>'firstKeptEntryId' else walk.stop_at end,
				walk.stop_at is not null and ${entries.id} = walk.stop_at,
				coalesce(walk.kept_from, ${keptFrom}),
				walk.beyond or (walk.kept_from is not null and walk.id = walk.kept_from)
				${carried}
			from walk join ${entries} on ${entries.sessionKey} = (select key from start) and ${entries.id} = walk.parent_id
			${mode === "bounded" ? sql`where not walk.done` : sql``}
		)
		${select}`,
	);
});
