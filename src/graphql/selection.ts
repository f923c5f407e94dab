/**
 * Looking ahead at a field's selection, so a resolver reads only what the
 * query asks for: entries without their payload (or timestamp) when no field
 * selected reads them, and a session together with its page of entries when
 * that page is what the query asks of it. Anything this does not recognise
 * (fragments, directives, a field it does not know) reads everything, as if
 * there were no look-ahead: the answer is the same either way, only dearer.
 */
import {
	type FieldNode,
	type GraphQLObjectType,
	type GraphQLResolveInfo,
	getArgumentValues,
	Kind,
	type SelectionSetNode,
} from "graphql";
import type { EntryOmissions } from "../store/store.js";

/**
 * Entry fields answered from the placement columns alone (seq, id, parent,
 * type, depth, author; `timestamp` apart), or by loaders that read on their
 * own (`label`, `parent`, `children`, `session`): none needs the payload.
 */
const WITHOUT_PAYLOAD = new Set([
	"__typename",
	"entryId",
	"seq",
	"type",
	"parentId",
	"depth",
	"author",
	"timestamp",
	"label",
	"parent",
	"children",
	"session",
]);

/** Plain fields only: a fragment or a directive (@skip, @include) ends the look-ahead. */
function plainFields(set: SelectionSetNode | undefined): FieldNode[] | undefined {
	if (!set) return undefined;
	const fields: FieldNode[] = [];
	for (const selection of set.selections) {
		if (selection.kind !== Kind.FIELD || (selection.directives?.length ?? 0) > 0) return undefined;
		fields.push(selection);
	}
	return fields;
}

/** What the entries selected by `sets` (selection sets on Entry) may go without. */
export function entryOmissions(sets: ReadonlyArray<SelectionSetNode | undefined>): EntryOmissions {
	let payload = true;
	let timestamp = true;
	for (const set of sets) {
		const fields = plainFields(set);
		if (!fields) return {};
		for (const field of fields) {
			if (!WITHOUT_PAYLOAD.has(field.name.value)) payload = false;
			if (field.name.value === "timestamp") timestamp = false;
		}
	}
	return { ...(payload ? { payload } : {}), ...(timestamp && payload ? { timestamp } : {}) };
}

/** Omissions for a field that returns entries (a list of Entry): its own selection. */
export function omissionsOfEntries(info: GraphQLResolveInfo): EntryOmissions {
	return entryOmissions(info.fieldNodes.map((node) => node.selectionSet));
}

/** Omissions for a field that returns an entry connection: the selections of `edges { node }`. */
export function omissionsOfConnection(nodes: readonly FieldNode[]): EntryOmissions {
	const sets: Array<SelectionSetNode | undefined> = [];
	for (const node of nodes) {
		const fields = plainFields(node.selectionSet);
		if (!fields) return {};
		for (const field of fields) {
			if (field.name.value !== "edges") continue;
			const edgeFields = plainFields(field.selectionSet);
			if (!edgeFields) return {};
			for (const edgeField of edgeFields)
				if (edgeField.name.value === "node") sets.push(edgeField.selectionSet);
		}
	}
	return entryOmissions(sets);
}

/**
 * Whether the field's selection may hold `name`: false only when it is
 * plain and does not (a fragment or a directive may, so they answer true).
 */
export function maySelect(info: GraphQLResolveInfo, name: string): boolean {
	return info.fieldNodes.some((node) => {
		const fields = plainFields(node.selectionSet);
		return !fields || fields.some((field) => field.name.value === name);
	});
}

export interface ChildField {
	node: FieldNode;
	args: Record<string, unknown>;
}

/**
 * The one selection of `name` on the object this field returns (of type
 * `type`), with its arguments; undefined unless the selection is plain and
 * holds exactly one such field.
 */
export function soleChildField(
	info: GraphQLResolveInfo,
	type: GraphQLObjectType,
	name: string,
): ChildField | undefined {
	if (info.fieldNodes.length !== 1) return undefined;
	const fields = plainFields(info.fieldNodes[0]?.selectionSet);
	const matching = fields?.filter((field) => field.name.value === name) ?? [];
	const node = matching[0];
	const definition = type.getFields()[name];
	if (matching.length !== 1 || !node || !definition) return undefined;
	try {
		return { node, args: getArgumentValues(definition, node, info.variableValues) };
	} catch {
		// Arguments that do not coerce fail on the field itself, where they are read as usual.
		return undefined;
	}
}
