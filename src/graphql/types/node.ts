/**
 * Relay Global Object Identification: every Session and Entry has an opaque
 * global id that `node(id)` refetches. Ids encode the kind and the session
 * (and entry) id; the workspace comes from the caller, never from the id.
 */
import { type StoredEntry, typeOrOther } from "../../session/entry.js";
import { invalidInput } from "../../session/errors.js";
import { decodeOpaque, encodeOpaque } from "../../store/opaque.js";
import type { SessionRecord } from "../../store/store.js";
import { builder } from "../builder.js";
import { ENTRY_TYPE_NAMES, NodeRef } from "../refs.js";

export type GlobalId =
	| { kind: "Session"; sessionId: string }
	| { kind: "Entry"; sessionId: string; entryId: string };

// Standard base64 of a JSON array, as first issued (session cursors use base64url).
export function sessionGlobalId(sessionId: string): string {
	return encodeOpaque(["Session", sessionId], "base64");
}

export function entryGlobalId(sessionId: string, entryId: string): string {
	return encodeOpaque(["Entry", sessionId, entryId], "base64");
}

export function decodeGlobalId(id: string): GlobalId {
	const value = decodeOpaque(id, "base64");
	if (value?.every((v) => typeof v === "string")) {
		const [kind, sessionId, entryId] = value as string[];
		if (kind === "Session" && sessionId !== undefined && value.length === 2) return { kind, sessionId };
		if (kind === "Entry" && sessionId !== undefined && entryId !== undefined && value.length === 3) {
			return { kind, sessionId, entryId };
		}
	}
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
	resolveType: (value) => (isEntry(value) ? ENTRY_TYPE_NAMES[typeOrOther(value.entry.type)] : "Session"),
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
