/**
 * Relay Global Object Identification: every Session and Entry has an opaque
 * global id that `node(id)` refetches. Ids encode the kind and the session
 * (and entry) id; the workspace comes from the caller, never from the id.
 */
import type { StoredEntry } from "../../session/entry.js";
import { invalidInput } from "../../session/errors.js";
import type { SessionRecord } from "../../store/store.js";
import { builder } from "../builder.js";
import { ENTRY_TYPE_NAMES, NodeRef, PageInfoRef } from "../refs.js";

export type GlobalId =
	| { kind: "Session"; sessionId: string }
	| { kind: "Entry"; sessionId: string; entryId: string };

export function sessionGlobalId(sessionId: string): string {
	return Buffer.from(JSON.stringify(["Session", sessionId])).toString("base64");
}

export function entryGlobalId(sessionId: string, entryId: string): string {
	return Buffer.from(JSON.stringify(["Entry", sessionId, entryId])).toString("base64");
}

export function decodeGlobalId(id: string): GlobalId {
	try {
		const value = JSON.parse(Buffer.from(id, "base64").toString("utf8"));
		if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
			const [kind, sessionId, entryId] = value as string[];
			if (kind === "Session" && sessionId !== undefined && value.length === 2) return { kind, sessionId };
			if (kind === "Entry" && sessionId !== undefined && entryId !== undefined && value.length === 3) {
				return { kind, sessionId, entryId };
			}
		}
	} catch {}
	throw invalidInput("id", "is not a global id from this API");
}

const isEntry = (value: SessionRecord | StoredEntry): value is StoredEntry => "entry" in value;

NodeRef.implement({
	description: "An object with a global id (Relay Global Object Identification).",
	fields: (t) => ({
		id: t.id({
			description: "Opaque global id (Relay Global Object Identification).",
			resolve: (value) =>
				isEntry(value) ? entryGlobalId(value.sessionId, value.entry.id) : sessionGlobalId(value.sessionId),
		}),
	}),
	resolveType: (value) => (isEntry(value) ? ENTRY_TYPE_NAMES[value.entry.type] : "Session"),
});

PageInfoRef.implement({
	fields: (t) => ({
		hasNextPage: t.exposeBoolean("hasNextPage"),
		hasPreviousPage: t.exposeBoolean("hasPreviousPage"),
		startCursor: t.exposeString("startCursor", { nullable: true }),
		endCursor: t.exposeString("endCursor", { nullable: true }),
	}),
});

builder.queryField("node", (t) =>
	t.field({
		type: NodeRef,
		nullable: true,
		description: "Refetch a Session or an Entry by its global id.",
		args: { id: t.arg.id({ required: true }) },
		resolve: async (_, { id }, { loaders }) => {
			const target = decodeGlobalId(String(id));
			const session = await loaders.session.load(target.sessionId);
			if (!session || target.kind === "Session") return session;
			return loaders.entry.load({ sessionId: target.sessionId, entryId: target.entryId });
		},
	}),
);
