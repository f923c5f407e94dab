/**
 * Type references shared across type files (they refer to each other:
 * an Entry has a Session, a Session has entries). GraphQL types are views of
 * plain domain objects, never of database rows.
 */
import { ENTRY_TYPES, type EntryType, type SessionContext, type StoredEntry } from "../session/entry.js";
import { ENTRY_KINDS } from "../session/kinds.js";
import type { SessionRecord } from "../store/store.js";
import { builder } from "./builder.js";

export const NodeRef = builder.interfaceRef<SessionRecord | StoredEntry>("Node");
export const SessionRef = builder.objectRef<SessionRecord>("Session");
export const EntryRef = builder.interfaceRef<StoredEntry>("Entry");
export const SessionContextRef = builder.objectRef<SessionContext>("SessionContext");

/** The GraphQL object type of each entry type (session/kinds.ts). */
export const ENTRY_TYPE_NAMES = Object.fromEntries(
	ENTRY_TYPES.map((type) => [type, ENTRY_KINDS[type].graphqlName]),
) as { readonly [T in EntryType]: (typeof ENTRY_KINDS)[T]["graphqlName"] };

export const EntryTypeEnum = builder.enumType("EntryType", {
	values: Object.fromEntries(ENTRY_TYPES.map((type) => [type.toUpperCase(), { value: type }])) as Record<
		Uppercase<EntryType>,
		{ value: EntryType }
	>,
});
