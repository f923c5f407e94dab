/**
 * Columns of type `json` (never `jsonb`) come back as JsonText
 * (session/raw-json.ts): a statement selects `json` for stored JSON that the
 * store passes on as it stands (a context's messages) or parses itself, and
 * `jsonb` for values the driver parses. On postgres.js that text is the
 * field's bytes as the socket delivered them, never decoded: a parser marked
 * `bytes` is handed the bytes (patches/postgres+3.4.9.patch); 9 MB of a
 * long context's messages then never become strings. PGlite hands over the
 * text. (Postgres casts jsonb to json through text, checking it again: about
 * 0.7 ms per MB on PostgreSQL 15 here, against the server's 40 ms saved.)
 */
import type { JsonText } from "../../session/raw-json.js";

/** The `json` type's OID. */
export const JSON_OID = 114;

/** postgres.js: the field's bytes. */
export const jsonBytes = Object.assign((bytes: Uint8Array): JsonText => bytes, { bytes: true as const });

/** PGlite: the field's text. */
export const jsonString = (text: string): JsonText => text;
