/** The served schema: every type module registers itself on the builder. */
import { lexicographicSortSchema } from "graphql";
import { builder } from "./builder.js";
import { ENTRY_TYPE_NAMES } from "./refs.js";
import "./types/node.js";
import "./types/session-context.js";
import "./types/entry.js";
import "./types/entry-types.js";
import "./types/entry-writes.js";
import "./types/session.js";
import "./types/session-writes.js";
import "./types/continuation.js";
import "./types/caller.js";
import "./types/events.js";
import "./types/analytics/metrics.js";
import "./types/tree.js";
import "./types/search.js";
import "./types/presence.js";

export const schema = builder.toSchema();

// Entry.resolveType answers with these names: an entry kind (session/kinds.ts) without its
// object type in types/entry-types.ts would otherwise fail only when such an entry is read.
for (const [type, name] of Object.entries(ENTRY_TYPE_NAMES)) {
	if (!schema.getType(name)) throw new Error(`entry type ${type} has no GraphQL object type ${name}`);
}

/** The schema as committed in schema.graphql (sorted, so diffs show real changes). */
export const sortedSchema = () => lexicographicSortSchema(schema);
