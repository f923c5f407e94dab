/** The served schema: every type module registers itself on the builder. */
import { lexicographicSortSchema } from "graphql";
import { builder } from "./builder.js";
import "./types/node.js";
import "./types/context.js";
import "./types/entry.js";
import "./types/session.js";
import "./types/events.js";

export const schema = builder.toSchema();

/** The schema as committed in schema.graphql (sorted, so diffs show real changes). */
export const sortedSchema = () => lexicographicSortSchema(schema);
