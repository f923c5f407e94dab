/**
 * Columns of type `json` or `varchar` come back as JsonText
 * (session/raw-json.ts), text the store passes on as it stands (a context's
 * messages) or parses itself; `jsonb` columns are values the driver parses.
 * A statement selects `json` for JSON it builds (json_build_object), and
 * stored JSON as `varchar` (storedJsonText): Postgres renders the jsonb as
 * text once, where a cast to json would lex that text again to check it
 * (json_lex was 16% of the backend's CPU for a 10,000-message context on
 * PostgreSQL 15 here). No column of the schema is varchar, so in this
 * store's results the type marks JSON text alone.
 *
 * On postgres.js the text is the field's bytes as the socket delivered
 * them, never decoded: a parser marked `bytes` is handed the bytes
 * (patches/postgres+3.4.9.patch); 9 MB of a long context's messages then
 * never become strings. PGlite hands over the text.
 */
import { type SQL, sql } from "drizzle-orm";
import type { JsonText } from "../../session/raw-json.js";

/** The types that come back as JsonText: `json` and `varchar`. */
export const JSON_TEXT_OIDS = [114, 1043] as const;

/** A jsonb value selected as its JSON text (varchar: see above). */
export const storedJsonText = (jsonb: SQL): SQL => sql`${jsonb}::text::varchar`;

/** postgres.js: the field's bytes. */
export const jsonBytes = Object.assign((bytes: Uint8Array): JsonText => bytes, { bytes: true as const });

/** PGlite: the field's text. */
export const jsonString = (text: string): JsonText => text;

/** Parsers giving each JsonText type to `parse`. */
export function jsonTextParsers<P>(parse: P): Record<number, P> {
	return Object.fromEntries(JSON_TEXT_OIDS.map((oid) => [oid, parse]));
}
