/**
 * Relay Global Object Identification through @pothos/plugin-relay: the Node
 * interface and `node(id)` are the plugin's (configured in ../builder.ts
 * with this API's ids, ../global-ids.ts); this is the `id` field of the
 * types that implement it, a Session and every entry type.
 */
import type { StoredEntry } from "../../session/entry.js";
import type { SessionRecord } from "../../store/store.js";
import { entryIdParts, sessionIdParts } from "../global-ids.js";

const ID_DESCRIPTION = "Opaque global id (Relay Global Object Identification).";

/** The part of a Pothos field builder the `id` fields use (the plugin's `t.globalID`). */
interface GlobalIdFieldBuilder<T, Field> {
	globalID(options: { description: string; resolve: (value: T) => { type: string; id: string } }): Field;
}

/** A session's `id`. */
export const sessionIdField = <Field>(t: GlobalIdFieldBuilder<SessionRecord, Field>): Field =>
	t.globalID({ description: ID_DESCRIPTION, resolve: (s) => sessionIdParts(s.sessionId) });

/** An entry's `id`, the same in every entry type. */
export const entryIdField = <Field>(t: GlobalIdFieldBuilder<StoredEntry, Field>): Field =>
	t.globalID({ description: ID_DESCRIPTION, resolve: (e) => entryIdParts(e.sessionId, e.entry.id) });
