/**
 * Limits on the shape of an operation, checked before anything executes, on
 * every transport (HTTP, SSE and graphql-ws all parse and validate through
 * Yoga's envelop): tokens (bounds parse time and nesting), depth, aliases,
 * directives (graphql-armor), and an estimated cost (Pothos' complexity
 * rule: list fields cost their page size times their selection; `jsonl`,
 * `context`, `branch` and `tips` carry their own, higher costs). Over a limit
 * the operation fails with LIMIT_EXCEEDED, `extensions.limit` naming it.
 */
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { createComplexityRule } from "@pothos/plugin-complexity";
import {
	type DocumentNode,
	GraphQLError,
	type GraphQLSchema,
	TypeInfo,
	type ValidationContext,
	validate,
	visit,
	visitWithTypeInfo,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import type { ServerLimits } from "../config.js";

export type OperationLimit = "tokens" | "depth" | "aliases" | "directives" | "cost";

export function limitExceeded(limit: string, message: string): GraphQLError {
	return new GraphQLError(message, { extensions: { code: "LIMIT_EXCEEDED", limit } });
}

/** armor reports "Syntax Error: Query depth limit of 12 exceeded, found 13."; we say which limit and how to set it. */
function armorRejection(limit: OperationLimit, variable: string) {
	return (context: ValidationContext | null, error: GraphQLError) => {
		const coded = limitExceeded(
			limit,
			`${error.message.replace(/^Syntax Error: /, "")} (${limit} limit; the server's ${variable})`,
		);
		if (context) context.reportError(coded);
		else throw coded;
	};
}

interface RequestParams {
	params?: { variables?: Record<string, unknown>; operationName?: string };
}

/** Variables longer than this as JSON are not worth a cache entry: checked each time. */
const MAX_CACHED_VARIABLES = 1024;
/** Distinct variable sets remembered per document; past this the document's entries start over. */
const MAX_CACHED_PER_DOCUMENT = 64;

/**
 * The variables a document's cost can depend on: those in the arguments of
 * fields whose complexity is a function of their arguments (page sizes);
 * every other field costs a constant (Pothos' rule reads nothing else).
 * An append's message, a `jsonl` to import, are none of them.
 */
function costVariables(schema: GraphQLSchema, document: DocumentNode): ReadonlySet<string> {
	const names = new Set<string>();
	const typeInfo = new TypeInfo(schema);
	visit(
		document,
		visitWithTypeInfo(typeInfo, {
			Field(node) {
				if (typeof typeInfo.getFieldDef()?.extensions?.complexity !== "function") return;
				for (const argument of node.arguments ?? [])
					visit(argument, { Variable: (variable) => void names.add(variable.name.value) });
			},
		}),
	);
	return names;
}

/**
 * The cost check's verdicts per document (Yoga parses each distinct query
 * text once and hands out the same DocumentNode after) and per values of the
 * variables it depends on (`costVariables`): a cost depends on nothing else.
 * A document that is no longer cached is forgotten with it.
 */
function costCache() {
	const documents = new WeakMap<
		DocumentNode,
		{ variables: ReadonlySet<string>; verdicts: Map<string, readonly GraphQLError[]> }
	>();
	const known = (schema: GraphQLSchema, document: DocumentNode) => {
		let entry = documents.get(document);
		if (!entry) {
			entry = { variables: costVariables(schema, document), verdicts: new Map() };
			documents.set(document, entry);
		}
		return entry;
	};
	return {
		key(
			schema: GraphQLSchema,
			document: DocumentNode,
			operationName: string | undefined,
			variables: Record<string, unknown>,
		): string | undefined {
			const values: unknown[] = [];
			for (const name of known(schema, document).variables) values.push(variables[name]);
			const key = `${operationName ?? ""}\n${JSON.stringify(values)}`;
			return key.length <= MAX_CACHED_VARIABLES ? key : undefined;
		},
		get: (schema: GraphQLSchema, document: DocumentNode, key: string) =>
			known(schema, document).verdicts.get(key),
		set(schema: GraphQLSchema, document: DocumentNode, key: string, errors: readonly GraphQLError[]) {
			const entry = known(schema, document);
			if (entry.verdicts.size >= MAX_CACHED_PER_DOCUMENT) entry.verdicts.clear();
			entry.verdicts.set(key, errors);
		},
	};
}

/**
 * `suggestions: false` (production) also drops "Did you mean …?" from
 * validation errors, so the schema cannot be mapped by guessing.
 */
export function useOperationLimits(limits: ServerLimits, options: { suggestions: boolean }): Plugin[] {
	const armor = (limit: OperationLimit, variable: string) => ({
		propagateOnRejection: false,
		onReject: [armorRejection(limit, variable)],
	});
	const costs = costCache();
	return [
		EnvelopArmorPlugin({
			// The token limit throws from the parser: nothing of a 20,000-brace query is built.
			maxTokens: { n: limits.tokens, ...armor("tokens", "MAX_TOKENS"), propagateOnRejection: true },
			// Fragments count by where they are spread, not as a level of their own.
			maxDepth: { n: limits.depth, ...armor("depth", "MAX_QUERY_DEPTH"), flattenFragments: true },
			maxAliases: { n: limits.aliases, ...armor("aliases", "MAX_ALIASES") },
			maxDirectives: { n: limits.directives, ...armor("directives", "MAX_DIRECTIVES") },
			// Cost is Pothos' rule below, which knows page sizes; armor's counts fields only.
			costLimit: { enabled: false },
			blockFieldSuggestion: { enabled: !options.suggestions },
		}),
		{
			// After the document passed validation: the cost of an invalid one means nothing (and the
			// rule's own "Unknown field" would stand in front of graphql's clearer message).
			onValidate:
				({ params, context }) =>
				({ valid, setResult }) => {
					if (!valid) return;
					const { params: request } = context as RequestParams;
					const variables = request?.variables ?? {};
					const key = costs.key(params.schema, params.documentAST, request?.operationName, variables);
					const known = key === undefined ? undefined : costs.get(params.schema, params.documentAST, key);
					if (known) {
						if (known.length > 0) setResult([...known]);
						return;
					}
					const rule = createComplexityRule({
						context,
						variableValues: variables,
						...(request?.operationName ? { operationName: request.operationName } : {}),
						validate: (state, report) => {
							if (state.complexity > limits.cost) {
								report(
									limitExceeded(
										"cost",
										`Operation cost ${state.complexity} exceeds the limit of ${limits.cost} (cost limit; the server's MAX_QUERY_COST): ask for smaller pages or fewer expensive fields (jsonl, context, branch, children)`,
									),
								);
							}
						},
					});
					const errors = validate(params.schema, params.documentAST, [rule]);
					if (key !== undefined) costs.set(params.schema, params.documentAST, key, errors);
					if (errors.length > 0) setResult([...errors]);
				},
		},
	];
}
