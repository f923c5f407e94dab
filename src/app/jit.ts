/**
 * Operations run compiled (graphql-jit through envelop): a document is
 * compiled once into a function that resolves and completes its selection
 * without graphql-js' generic per-field walk (on a page of 100 entries, or a
 * 2,000-entry branch, that walk is most of the execution). Resolvers, Pothos'
 * scope checks (they wrap the resolvers) and every other plugin hook run as
 * before; parsing, validation and the cost check come first, as they do for
 * graphql-js, and errors keep their codes and paths.
 *
 * Compiling is not free, and it grows with the product of the possible types
 * along a path: graphql-jit writes the sub-selection of an abstract field
 * (Entry has 11 object types) once per type, so `children { parent {
 * children { entryId } } }` takes seconds to compile, where graphql-js runs
 * it in milliseconds. So a document is compiled only when
 * - it is hot: it has run `hotRuns` times (clients repeat their documents; a
 *   one-off, or a stream of distinct documents, never pays for a compile);
 * - its compiled size, estimated by `compiledSize`, is at most `maxSize`
 *   (a few milliseconds of compiling, once);
 * - it holds one operation, a query or a mutation: the plugin caches by
 *   document alone, so a document with two operations would run the first
 *   one compiled for the other's requests too; subscriptions are not
 *   compiled (their per-event execution keeps graphql-js' semantics, which
 *   the live-event wrappers rely on);
 * - its variables coerce (graphql-jit coerces them too, but reports a
 *   failure in other words and with another HTTP status than graphql-js).
 * Anything else runs on graphql-js, with the same result.
 */
import { useGraphQlJit } from "@envelop/graphql-jit";
import {
	type DocumentNode,
	type ExecutionArgs,
	type FragmentDefinitionNode,
	type GraphQLNamedType,
	type GraphQLSchema,
	getNamedType,
	getVariableValues,
	isAbstractType,
	isInterfaceType,
	isObjectType,
	Kind,
	type OperationDefinitionNode,
	OperationTypeNode,
	type SelectionSetNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "../logger.js";

export interface CompileOptions {
	/** Runs of a document on graphql-js before it is compiled (0: from its first run). */
	hotRuns: number;
	/** Estimated compiled size (`compiledSize`) above which a document stays on graphql-js. */
	maxSize: number;
}

/**
 * Measured on this schema: the page query (size 59) compiles in 8–17 ms,
 * a branch or an append (13) in 2–3 ms, `entry { children { … } }` (134) in
 * 17–40 ms, `children { parent { … } }` (1,465) in 300 ms.
 */
export const DEFAULT_COMPILE: CompileOptions = { hotRuns: 3, maxSize: 150 };

/**
 * An upper bound of the code graphql-jit writes for `set` on `type`: one unit
 * per field, times the possible types of an abstract field for its
 * sub-selection. Fragments count in full wherever they are spread. Stops
 * counting once past `limit` (the document is then too big, however much).
 */
export function compiledSize(schema: GraphQLSchema, document: DocumentNode, limit: number): number {
	const fragments = new Map<string, FragmentDefinitionNode>();
	for (const d of document.definitions)
		if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
	const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
	if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return 0;
	const root = schema.getRootType(operation.operation);
	if (!root) return 0;
	const weigh = (set: SelectionSetNode, type: GraphQLNamedType | undefined, budget: number): number => {
		let size = 0;
		for (const selection of set.selections) {
			if (size > budget) return size;
			if (selection.kind === Kind.FIELD) {
				size += 1;
				if (!selection.selectionSet) continue;
				const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : undefined;
				const field = fields?.[selection.name.value];
				const named = field ? getNamedType(field.type) : undefined;
				const variants = named && isAbstractType(named) ? schema.getPossibleTypes(named).length : 1;
				size += variants * weigh(selection.selectionSet, named, (budget - size) / variants);
			} else {
				const condition =
					selection.kind === Kind.INLINE_FRAGMENT
						? selection.typeCondition
						: fragments.get(selection.name.value)?.typeCondition;
				const inner =
					selection.kind === Kind.INLINE_FRAGMENT
						? selection.selectionSet
						: fragments.get(selection.name.value)?.selectionSet;
				if (!inner) continue;
				size += weigh(inner, condition ? schema.getType(condition.name.value) : type, budget - size);
			}
		}
		return size;
	};
	return weigh(operation.selectionSet, root, limit);
}

interface Verdict {
	runs: number;
	compile: boolean;
	operation: OperationDefinitionNode | undefined;
}

/**
 * A document graphql-jit cannot compile (none is known that passes
 * validation) would answer with the compiler's errors from then on: logged,
 * so that it is seen.
 */
export function useCompiledExecution(
	logger: Logger,
	{ hotRuns, maxSize }: CompileOptions = DEFAULT_COMPILE,
): Plugin {
	const verdicts = new WeakMap<DocumentNode, Verdict>();
	const enableIf = ({ document, schema, variableValues }: ExecutionArgs) => {
		let verdict = verdicts.get(document);
		if (!verdict) {
			const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
			const operation = operations.length === 1 ? operations[0] : undefined;
			const compile =
				operation !== undefined &&
				operation.operation !== OperationTypeNode.SUBSCRIPTION &&
				compiledSize(schema, document, maxSize) <= maxSize;
			verdict = { runs: 0, compile, operation };
			verdicts.set(document, verdict);
		}
		if (!verdict.compile || !verdict.operation) return false;
		verdict.runs += 1;
		if (verdict.runs <= hotRuns) return false;
		// Variables that do not coerce are refused by graphql-js, in its words (and with its HTTP
		// status): graphql-jit words them differently.
		const coerced = getVariableValues(
			schema,
			verdict.operation.variableDefinitions ?? [],
			variableValues ?? {},
			{
				maxErrors: 1,
			},
		);
		return coerced.errors === undefined;
	};
	const onError = (result: { errors?: readonly unknown[] }) =>
		logger.error("graphql-jit could not compile an operation", { errors: String(result.errors) });
	// Plugin<{}> is every envelop plugin's type; Yoga's context is a superset of it.
	return useGraphQlJit({}, { enableIf, onError }) as unknown as Plugin;
}
