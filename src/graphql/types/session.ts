/**
 * Sessions: the Session type with its views (append log, branch, context,
 * tips, JSONL) and the session queries; the session-level mutations are
 * ./session-writes.ts.
 */
import type { FieldNode, GraphQLObjectType, GraphQLResolveInfo } from "graphql";
import type { EntryType } from "../../session/entry.js";
import { invalidInput } from "../../session/errors.js";
import { readSessionStats } from "../../store/analytics/session-stats.js";
import {
	type ConnectionArgs,
	DEFAULT_ENTRY_PAGE_SIZE,
	DEFAULT_PAGE_SIZE,
	type EntryWindow,
	entryLogQuery,
	entryPage,
	entryWindow,
} from "../../store/paging.js";
import { sessionQuery } from "../../store/session-query.js";
import type { EntryLogQuery, SessionRecord } from "../../store/store.js";
import { spend } from "../budget.js";
import { builder } from "../builder.js";
import { type Connection, connection, connectionType } from "../connection.js";
import { EntryRef, EntryTypeEnum, NodeRef, SessionContextRef, SessionRef } from "../refs.js";
import { maySelect, omissionsOfConnection, omissionsOfEntries, soleChildField } from "../selection.js";
import { SessionStatsRef } from "./analytics/usage.js";
import { EntryConnectionRef } from "./entry.js";
import { sessionIdField } from "./node.js";

const ExportFormatEnum = builder.enumType("ExportFormat", {
	description: "The form of a session's file (Session.jsonl).",
	values: {
		PI: {
			value: "pi",
			description:
				"What pi's coding agent reads: no leaf records (pi takes the last line as its leaf), and a `custom` entry of type `session-tree.leaf` under the pointer as the last line when the pointer is not the last node. pi opens it with the same leaf and context, and its next entry continues from there.",
		},
		LOSSLESS: {
			value: "lossless",
			description:
				"The append log as it is, leaf records included: what pi's harness replays, and what re-imports to the same log.",
		},
	} as const,
});

SessionRef.implement({
	description: "One session tree: an append-only log of entries and a leaf pointer.",
	interfaces: [NodeRef],
	isTypeOf: (value) => typeof value === "object" && value !== null && "lastSeq" in value,
	fields: (t) => ({
		id: sessionIdField(t),
		sessionId: t.exposeString("sessionId"),
		name: t.exposeString("name", { nullable: true }),
		cwd: t.exposeString("cwd", { nullable: true }),
		createdAt: t.field({ type: "DateTime", resolve: (s) => s.createdAt }),
		updatedAt: t.field({
			type: "DateTime",
			description: "Time of the latest entry (or of creation).",
			resolve: (s) => s.updatedAt,
		}),
		parentSessionId: t.exposeString("parentSessionId", {
			nullable: true,
			description: "The parent as the header names it: a session id, or for files written by pi a file path.",
		}),
		parentSession: t.field({
			type: SessionRef,
			nullable: true,
			resolve: (s, _, { loaders }) =>
				s.parentSessionId === null ? null : loaders.session.load(s.parentSessionId),
		}),
		header: t.field({
			type: "JSON",
			description: "Header fields kept from an imported pi file (provider, modelId, branchedFrom, …).",
			resolve: (s) => s.headerExtra,
		}),
		archivedAt: t.field({
			type: "DateTime",
			nullable: true,
			description:
				"When the session was archived (archiveSession); null while active. An archived session is read-only (a write is ARCHIVED) and listed only by `sessions(filter: { archived: true })`.",
			resolve: (s) => s.archivedAt,
		}),
		leafId: t.exposeString("leafId", {
			nullable: true,
			description: "Current leaf pointer; null before the first entry or after moving to the root.",
		}),
		leaf: t.field({
			type: EntryRef,
			nullable: true,
			resolve: (s, _, { loaders }) =>
				s.leafId === null ? null : loaders.entry.load({ sessionId: s.sessionId, entryId: s.leafId }),
		}),
		entryCount: t.exposeInt("entryCount"),
		lastSeq: t.exposeInt("lastSeq"),
		entry: t.field({
			type: EntryRef,
			nullable: true,
			args: { entryId: t.arg.string({ required: true }) },
			resolve: (s, { entryId }, { loaders }) => loaders.entry.load({ sessionId: s.sessionId, entryId }),
		}),
		entries: t.field({
			type: EntryConnectionRef,
			description: "The append log in seq order (all branches), cursor-paged.",
			complexity: (args) => ({ field: 2, multiplier: args.first ?? args.last ?? DEFAULT_ENTRY_PAGE_SIZE }),
			args: {
				...t.arg.connectionArgs(),
				types: t.arg({ type: [EntryTypeEnum] }),
			},
			resolve: async (s, args, { store, workspaceId, loaders, budget }, info) => {
				const window = entryWindow(args);
				const types = args.types ?? undefined;
				const omit = omissionsOfConnection(info.fieldNodes);
				// Read already, with the session (see Query.session).
				const node = info.fieldNodes[0] as FieldNode;
				const read = loaders.pages.get(node);
				if (read?.sessionId === s.sessionId) loaders.pages.delete(node);
				const [rows, totalCount] = await Promise.all([
					read?.sessionId === s.sessionId
						? read.entries
						: store.listEntries(workspaceId, s.sessionId, {
								...entryLogQuery(window),
								...(types ? { types } : {}),
								...(omit.payload ? { omit } : {}),
							}),
					types ? store.countEntries(workspaceId, s.sessionId, types) : s.entryCount,
				]);
				const page = entryPage(rows, window);
				const nodes = spend(
					budget,
					page.items.map(({ node }) => node),
				);
				// Entries without their payload must not answer a later lookup that wants it.
				if (!omit.payload) loaders.prime(nodes);
				return connection(page, totalCount);
			},
		}),
		branch: t.field({
			type: [EntryRef],
			description:
				"Active path root -> fromId (default: the current leaf). Bounded by the latest compaction unless full is true.",
			// A path's length is not known before it is walked; a long one is charged by the result budget.
			complexity: { field: 20, multiplier: 50 },
			args: { fromId: t.arg.string(), full: t.arg.boolean({ defaultValue: false }) },
			resolve: async (s, { fromId, full }, { store, workspaceId, loaders, budget }, info) => {
				const omit = omissionsOfEntries(info);
				const path = spend(
					budget,
					await store.activePath(workspaceId, s.sessionId, {
						fromId: fromId ?? null,
						full: full ?? false,
						...(omit.payload ? { omit } : {}),
					}),
				);
				// Entries without their payload must not answer a later lookup that wants it.
				return omit.payload ? path : loaders.prime(path);
			},
		}),
		context: t.field({
			type: SessionContextRef,
			description: "Model context projected from the active path.",
			complexity: 50,
			args: { fromId: t.arg.string() },
			resolve: (s, { fromId }, { store, workspaceId }) =>
				// The messages are only encoded here: stored JSON text passes through as it stands.
				store.context(workspaceId, s.sessionId, { fromId: fromId ?? null, rawMessages: true }),
		}),
		stats: t.field({
			type: SessionStatsRef,
			description:
				"Activity measures over the whole tree and over the active path, the tree's shape, first and last activity.",
			// Reads the whole log and the path.
			complexity: 50,
			resolve: (s, _, { store, workspaceId }) => readSessionStats(store, workspaceId, s.sessionId),
		}),
		tips: t.field({
			type: [EntryRef],
			description: "Entries with no children (one per branch of the tree).",
			complexity: { field: 10, multiplier: 10 },
			resolve: async (s, _, { store, workspaceId, loaders, budget }) =>
				loaders.prime(spend(budget, await store.tips(workspaceId, s.sessionId))),
		}),
		jsonl: t.string({
			description:
				"The session as a pi JSONL file (header line + one line per entry). PI (the default) is what pi's coding agent opens with the same leaf and context; LOSSLESS is the append log as it is, leaf records included.",
			// The whole log: the dearest field there is.
			complexity: 1000,
			args: { format: t.arg({ type: ExportFormatEnum, defaultValue: "pi" }) },
			resolve: (s, { format }, { store, workspaceId }) =>
				store.exportSession(workspaceId, s.sessionId, { format: format ?? "pi" }),
		}),
	}),
});

/** A list of sessions, and where the activity log stood just before it was read (when asked). */
type SessionList = Connection<SessionRecord> & { activityCursor?: string };

const SessionConnectionRef = connectionType("Session", SessionRef);

builder.objectFields(SessionConnectionRef, (t) => ({
	activityCursor: t.field({
		type: "String",
		description:
			"Where the workspace's activity stood just before this list was read: `sessionActivity(afterCursor:)` from it delivers every change the list may not show (one it already shows may come again), so a live list misses nothing between its read and its subscription.",
		// Read by `sessions` before its list whenever the selection may hold this field (maySelect).
		resolve: (list) => (list as SessionList).activityCursor as string,
	}),
}));

/**
 * When a session is asked for one page of its entries (the common query),
 * that page's store query, so the session and the page are one read. None
 * when the selection is anything else, or the page's arguments are wrong
 * (Session.entries then reads, and reports them, as usual).
 */
function withPage(info: GraphQLResolveInfo): { node: FieldNode; query: EntryLogQuery } | undefined {
	const field = soleChildField(info, info.schema.getType("Session") as GraphQLObjectType, "entries");
	if (!field) return undefined;
	const args = field.args as ConnectionArgs & { types?: EntryType[] | null };
	let window: EntryWindow;
	try {
		window = entryWindow(args);
	} catch {
		return undefined;
	}
	const omit = omissionsOfConnection([field.node]);
	return {
		node: field.node,
		query: {
			...entryLogQuery(window),
			...(args.types ? { types: args.types } : {}),
			...(omit.payload ? { omit } : {}),
		},
	};
}

const SessionOrderFieldEnum = builder.enumType("SessionOrderField", {
	values: {
		ACTIVITY: { value: "activity", description: "Last activity (updatedAt)." },
		CREATED: { value: "created" },
		ENTRIES: { value: "entries", description: "Entries in the log (every branch)." },
		COST: {
			value: "cost",
			description: "Sum of the assistant messages' usage.cost.total over the whole tree.",
		},
		TOKENS: {
			value: "tokens",
			description: "Sum of the assistant messages' total tokens over the whole tree.",
		},
	} as const,
});

const OrderDirectionEnum = builder.enumType("OrderDirection", { values: ["ASC", "DESC"] as const });

const SessionOrderInput = builder.inputType("SessionOrder", {
	fields: (t) => ({
		field: t.field({ type: SessionOrderFieldEnum, required: true }),
		direction: t.field({ type: OrderDirectionEnum, defaultValue: "DESC" }),
	}),
});

const SessionFilterInput = builder.inputType("SessionFilter", {
	fields: (t) => ({
		updatedAfter: t.field({ type: "DateTime", description: "Last activity at or after." }),
		updatedBefore: t.field({ type: "DateTime", description: "Last activity before." }),
		model: t.string({ description: "Sessions in which an assistant message names this model." }),
		nameContains: t.string({ description: "The name contains this text, ignoring case." }),
		parentSessionId: t.string({ description: "Sessions forked from this one." }),
		archived: t.boolean({
			description:
				"True: only archived sessions. False or absent: only active ones (archived ones are hidden).",
		}),
	}),
});

builder.queryFields((t) => ({
	session: t.field({
		type: SessionRef,
		nullable: true,
		args: { sessionId: t.arg.string({ required: true }) },
		resolve: async (_, { sessionId }, { store, workspaceId, loaders }, info) => {
			const read = store.sessionWithEntries && withPage(info);
			if (!read) return loaders.session.load(sessionId);
			// The session and its page in one read; the page waits for Session.entries in `loaders.pages`.
			const found = await store.sessionWithEntries?.(workspaceId, sessionId, read.query);
			if (!found) return null;
			loaders.session.prime(sessionId, found.session);
			loaders.pages.set(read.node, { sessionId, entries: found.entries });
			return found.session;
		},
	}),
	sessions: t.field({
		type: SessionConnectionRef,
		description:
			"Sessions of the caller's workspace, newest activity first; or in `orderBy`'s order and through `filter` (then paged forward only: first/after).",
		complexity: (args) => ({ field: 2, multiplier: args.first ?? args.last ?? DEFAULT_PAGE_SIZE }),
		args: {
			...t.arg.connectionArgs(),
			orderBy: t.arg({ type: SessionOrderInput }),
			filter: t.arg({ type: SessionFilterInput }),
		},
		resolve: async (_, args, { store, workspaceId, loaders, budget }, info) => {
			const ranked = args.orderBy != null || args.filter != null;
			if (ranked && (args.last != null || args.before != null))
				throw invalidInput(
					args.last != null ? "last" : "before",
					"with orderBy or filter, page forward (first/after)",
				);
			// Before the list, never after: read after it, a session created between the two reads
			// would be in neither the list nor the feed from the cursor (SessionStore.activityNow).
			const activityCursor = maySelect(info, "activityCursor") ? await store.activityNow() : undefined;
			const page = ranked
				? await store.findSessions(workspaceId, sessionQuery(args))
				: await store.listSessions(workspaceId, {
						...(args.first == null ? {} : { first: args.first }),
						...(args.after == null ? {} : { after: args.after }),
						...(args.last == null ? {} : { last: args.last }),
						...(args.before == null ? {} : { before: args.before }),
					});
			for (const { node } of spend(budget, page.items)) loaders.session.prime(node.sessionId, node);
			const list: SessionList = connection(page, page.totalCount);
			return activityCursor ? { ...list, activityCursor } : list;
		},
	}),
}));
