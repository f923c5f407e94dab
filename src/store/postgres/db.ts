/**
 * The database every statement of the Postgres backend runs on: Drizzle over
 * PGlite or postgres.js, typed by the schema. Its own module so that the
 * statement helpers (./statements.ts) and the statements (./queries.ts) both
 * depend on it, and not on each other.
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema.js";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
