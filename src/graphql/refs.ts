/**
 * Type references shared across type files (they refer to each other:
 * an Entry has a Session, a Session has entries). GraphQL types are views of
 * plain domain objects, never of database rows.
 */
import {
	ENTRY_TYPES,
	type EntryTypeOrOther,
	OTHER_TYPE,
	type SessionContext,
	type StoredEntry,
} from "../session/entry.js";
import { kindOf } from "../session/kinds.js";
import type { SessionRecord } from "../store/store.js";
import { builder } from "./builder.js";

/** Relay's Node interface, the plugin's (../builder.ts): a SessionRecord or a StoredEntry. */
export const NodeRef = builder.nodeInterfaceRef();
export const SessionRef = builder.objectRef<SessionRecord>("Session");
export const EntryRef = builder.interfaceRef<StoredEntry>("Entry");
export const SessionContextRef = builder.objectRef<SessionContext>("SessionContext");

/** Every value of the EntryType enum: the known types, and "other" for the rest. */
const ENUM_TYPES: readonly EntryTypeOrOther[] = [...ENTRY_TYPES, OTHER_TYPE];

/** The GraphQL object type of each entry type (session/kinds.ts), OtherEntry for any other. */
export const ENTRY_TYPE_NAMES = Object.fromEntries(
	ENUM_TYPES.map((type) => [type, kindOf(type).graphqlName]),
) as Readonly<Record<EntryTypeOrOther, string>>;

export const EntryTypeEnum = builder.enumType("EntryType", {
	values: Object.fromEntries(
		ENUM_TYPES.map((type) => [
			type.toUpperCase(),
			{
				value: type,
				...(type === OTHER_TYPE
					? { description: "A type the service does not know (a later pi's): Entry.typeName names it." }
					: {}),
			},
		]),
	) as Record<Uppercase<EntryTypeOrOther>, { value: EntryTypeOrOther }>,
});
