/**
 * Subscription events executed and encoded once per distinct selection, not
 * once per subscriber. A session's feed pushes the same entry object to every
 * stream of that session that is caught up (events/live.ts `SessionFeed.pull`,
 * queued as is by `EntryStream.push`), and the activity fan-out pushes the
 * same event object to every stream of a workspace (events/activity.ts), so N
 * subscribers sending the same operation would otherwise run N identical
 * executions of the same event and N identical `JSON.stringify` calls.
 *
 * The plugin replaces the operation's subscribe function (envelop's
 * `setSubscribeFn`): the source stream is still created per subscriber, by the
 * field's own `subscribe` (so `afterSeq`, replay, buffers, backpressure and
 * exactly-once stay per subscriber); only the execution of each event is
 * shared. An event's result is remembered per payload object (a WeakMap: it
 * lives as long as some stream still holds the entry) and per selection key:
 *
 * - the operation (its printed document and operation name);
 * - the coerced values of the variables used below the root field, and in
 *   its directives (coerced: defaults applied, an omitted variable told apart
 *   from an explicit null): the root field's own arguments (`sessionId`,
 *   `afterSeq`) only choose the source stream, so subscribers resuming from
 *   different seqs still share. Invariant this relies on: a subscription
 *   field's `resolve` does not read its arguments (true of every field in
 *   graphql/types/events.ts);
 * - `contextKey(context)`: whatever of the caller the result may depend on
 *   (workspace and scopes); `undefined` opts the operation out.
 *
 * A payload the stream made itself (a catch-up or gap read from the store, a
 * failure item) is a new object per stream, so it is never shared: a
 * subscriber resuming with `afterSeq` executes its catch-up on its own and
 * shares from its first live push on. A result with errors, or one
 * `shareable` refuses (its subscriber's result budget ran out), is not
 * reused: the other subscribers execute on their own. A shared result is the
 * one executed first: a subscriber that lags behind gets what the fields
 * resolved to when the event was first delivered, not when it reads it.
 *
 * The shared result carries a non-enumerable `stringify` that encodes it once:
 * Yoga's SSE and JSON encoders call `result.stringify` when present
 * (graphql-yoga result-processor/stringify.js), so the N subscribers of a
 * selection send one string. graphql-ws encodes its own message per
 * subscriber (it wraps the result with the subscription id), so there only
 * the execution is shared. Plugins after this one wrap each subscriber's
 * stream; they must replace a result rather than change it (all of this
 * app's do: app/result-limit.ts, Yoga's error masking).
 */
import {
	createSourceEventStream,
	type DocumentNode,
	type ExecutionArgs,
	type ExecutionResult,
	execute,
	getVariableValues,
	Kind,
	type OperationDefinitionNode,
	print,
	visit,
} from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";

export interface SharedResultsOptions {
	/** What of the context a result may depend on; `undefined`: this operation shares nothing. */
	contextKey(context: unknown): string | undefined;
	/**
	 * Asked of the executing subscriber's context right after an execution:
	 * false keeps that result to itself (e.g. its result budget ran out, so the
	 * data is cut short and the app replaces it with an error for it alone).
	 */
	shareable?(context: unknown): boolean;
}

/** Counters for tests and benchmarks: executions run, results handed out again, encodings made. */
export interface SharedResultsStats {
	executions: number;
	reused: number;
	encodings: number;
}

interface DocumentShape {
	text: string;
	/** Variables a result may depend on: all but those used only in the root field's arguments. */
	variables: string[];
}

/** Per parsed document, per operation name ("" for the only operation). */
const shapes = new WeakMap<DocumentNode, Map<string, DocumentShape>>();

function operationOf(
	document: DocumentNode,
	name: string | null | undefined,
): OperationDefinitionNode | undefined {
	const operations = document.definitions.filter(
		(d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
	);
	return name
		? operations.find((o) => o.name?.value === name)
		: operations.length === 1
			? operations[0]
			: undefined;
}

function variablesIn(node: Parameters<typeof visit>[0], into: Set<string>): void {
	visit(node, {
		Variable(variable) {
			into.add(variable.name.value);
		},
	});
}

/**
 * The document's printed text and the variables the chosen operation's result
 * may depend on, computed once per parsed document and operation: two
 * operations of one document may use a variable in different places.
 */
function shapeOf(document: DocumentNode, operationName: string | null | undefined): DocumentShape {
	let byOperation = shapes.get(document);
	if (!byOperation) {
		byOperation = new Map();
		shapes.set(document, byOperation);
	}
	const cached = byOperation.get(operationName ?? "");
	if (cached) return cached;
	const used = new Set<string>();
	const operation = operationOf(document, operationName);
	for (const definition of document.definitions) {
		if (definition.kind === Kind.FRAGMENT_DEFINITION) variablesIn(definition, used);
	}
	for (const selection of operation?.selectionSet.selections ?? []) {
		if (selection.kind !== Kind.FIELD) {
			variablesIn(selection, used);
			continue;
		}
		// Everything of the root field but its arguments.
		for (const directive of selection.directives ?? []) variablesIn(directive, used);
		if (selection.selectionSet) variablesIn(selection.selectionSet, used);
	}
	for (const directive of operation?.directives ?? []) variablesIn(directive, used);
	const shape = { text: print(document), variables: [...used].sort() };
	byOperation.set(operationName ?? "", shape);
	return shape;
}

/** `coerced`: the operation's variables as graphql-js coerced them (an omitted one without default is absent). */
function selectionKey(args: ExecutionArgs, coerced: Record<string, unknown>, context: string): string {
	const shape = shapeOf(args.document, args.operationName);
	return JSON.stringify([
		shape.text,
		args.operationName ?? null,
		shape.variables.map((name) => (name in coerced ? [coerced[name]] : [])),
		context,
	]);
}

/** Encodes `result` once, for every subscriber that is sent this very object. */
function withCachedStringify(result: ExecutionResult, stats: SharedResultsStats): ExecutionResult {
	let text: string | undefined;
	Object.defineProperty(result, "stringify", {
		value: (value: unknown) => {
			if (value !== result) return JSON.stringify(value);
			if (text === undefined) {
				stats.encodings += 1;
				text = JSON.stringify(value);
			}
			return text;
		},
		enumerable: false,
	});
	return result;
}

/** `source`'s events mapped through `map`; `return()` and `throw()` reach the source at once. */
function mapEvents<T>(
	source: AsyncIterator<unknown>,
	map: (payload: unknown) => Promise<T>,
): AsyncIterableIterator<T> {
	const iterator: AsyncIterableIterator<T> = {
		async next() {
			const item = await source.next();
			if (item.done) return { done: true, value: undefined };
			return { done: false, value: await map(item.value) };
		},
		async return() {
			await source.return?.();
			return { done: true, value: undefined };
		},
		async throw(error) {
			if (source.throw) await source.throw(error);
			throw error;
		},
		[Symbol.asyncIterator]: () => iterator,
	};
	return iterator;
}

export function useSharedEventResults(
	options: SharedResultsOptions,
	stats: SharedResultsStats = { executions: 0, reused: 0, encodings: 0 },
): Plugin {
	// Per payload and selection: the shared result, or undefined when the one execution kept it to itself.
	const results = new WeakMap<object, Map<string, Promise<ExecutionResult | undefined>>>();

	const run = (args: ExecutionArgs, payload: unknown): Promise<ExecutionResult> => {
		stats.executions += 1;
		return Promise.resolve(execute({ ...args, rootValue: payload }) as ExecutionResult);
	};

	const shared = async (args: ExecutionArgs, key: string, payload: unknown): Promise<ExecutionResult> => {
		if (payload === null || typeof payload !== "object") return run(args, payload);
		let byKey = results.get(payload);
		if (!byKey) {
			byKey = new Map();
			results.set(payload, byKey);
		}
		const known = byKey.get(key);
		if (known) {
			const result = await known;
			if (result) {
				stats.reused += 1;
				return result;
			}
			return run(args, payload);
		}
		const own = run(args, payload);
		// Asked right after this subscriber's execution, before anything else runs on its context.
		const mine = own.then(
			(result) =>
				!result.errors && (options.shareable?.(args.contextValue) ?? true)
					? withCachedStringify(result, stats)
					: undefined,
			() => undefined,
		);
		byKey.set(key, mine);
		if (!(await mine)) byKey.delete(key);
		return own;
	};

	return {
		onSubscribe: ({ args, subscribeFn, setSubscribeFn }) => {
			const context = options.contextKey(args.contextValue);
			if (context === undefined) return;
			setSubscribeFn(async (subscribeArgs) => {
				// Variables that do not coerce are reported by Yoga's own executor, as without this
				// plugin (BAD_USER_INPUT, HTTP 400); no resolver has run yet.
				const operation = operationOf(subscribeArgs.document, subscribeArgs.operationName);
				const coerced =
					operation &&
					getVariableValues(
						subscribeArgs.schema,
						operation.variableDefinitions ?? [],
						subscribeArgs.variableValues ?? {},
					);
				if (!coerced || coerced.errors) return subscribeFn(subscribeArgs);
				const source = await createSourceEventStream(subscribeArgs);
				if (!isAsyncIterable(source)) return source;
				const key = selectionKey(subscribeArgs, coerced.coerced, context);
				return mapEvents((source as AsyncIterable<unknown>)[Symbol.asyncIterator](), (payload) =>
					shared(subscribeArgs, key, payload),
				);
			});
		},
	};
}
