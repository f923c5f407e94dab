/**
 * Relay global ids, as this API has issued them from the start: standard
 * base64 of a JSON array, `["Session", sessionId]` or `["Entry", sessionId,
 * entryId]` (session cursors use base64url). @pothos/plugin-relay takes them
 * as its id encoding (builder.ts): an object's `id` field gives its kind as
 * the typename and the rest as one string (an entry's two ids as a JSON
 * pair), and `node(id)` gets them back decoded. The workspace comes from the
 * caller, never from the id.
 */
import { invalidInput } from "../session/errors.js";
import { decodeOpaque, encodeOpaque } from "../store/opaque.js";

export type GlobalId =
	| { kind: "Session"; sessionId: string }
	| { kind: "Entry"; sessionId: string; entryId: string };

/** What the plugin hands encodeGlobalID for a session: its kind and id. */
export const sessionIdParts = (sessionId: string) => ({ type: "Session", id: sessionId }) as const;

/** What the plugin hands encodeGlobalID for an entry: its kind and its two ids as one string. */
export const entryIdParts = (sessionId: string, entryId: string) =>
	({ type: "Entry", id: JSON.stringify([sessionId, entryId]) }) as const;

/** The plugin's encodeGlobalID: the kind and the id parts above to the opaque id. */
export function encodeGlobalId(typename: string, id: string | number | bigint): string {
	const parts = typename === "Entry" ? (JSON.parse(String(id)) as string[]) : [String(id)];
	return encodeOpaque([typename, ...parts], "base64");
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

/** The typename of an id that is not one of this API's: refused where it is used (globalIdOf). */
const NOT_OURS = "";

/**
 * The plugin's decodeGlobalID: the opaque id to its kind and the id parts
 * encodeGlobalId took. It never throws: the plugin decodes arguments before
 * the scope check runs, and a caller without the read scope must hear
 * FORBIDDEN whatever id it sends; an id that is not ours is refused by
 * globalIdOf, in the resolver.
 */
export function decodeGlobalIdParts(id: string): { typename: string; id: string } {
	try {
		const decoded = decodeGlobalId(String(id));
		return decoded.kind === "Session"
			? { typename: "Session", id: decoded.sessionId }
			: { typename: "Entry", id: JSON.stringify([decoded.sessionId, decoded.entryId]) };
	} catch {
		return { typename: NOT_OURS, id: String(id) };
	}
}

/** The GlobalId the plugin's decoded parts name; INVALID_INPUT (`id`) for an id that is not ours. */
export function globalIdOf(parts: { typename: string; id: string }): GlobalId {
	if (parts.typename === "Session") return { kind: "Session", sessionId: parts.id };
	if (parts.typename === "Entry") {
		const [sessionId, entryId] = JSON.parse(parts.id) as [string, string];
		return { kind: "Entry", sessionId, entryId };
	}
	return decodeGlobalId(parts.id);
}
