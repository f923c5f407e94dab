import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { useEffect, useRef, useState } from "react";
import { subscribeLive } from "./client";

export interface LiveState<T> {
	data: T | undefined;
	error: string | undefined;
}

/**
 * The latest result of a subscription whose every event is a whole answer
 * (metricsUpdated): nothing to resume, a resubscribe just sends the current
 * result again. `key` restarts it (e.g. when its variables change).
 */
export function useLatest<T, V extends Record<string, unknown>>(
	document: TypedDocumentNode<T, V>,
	variables: V,
	key: string,
): LiveState<T> {
	const [state, setState] = useState<LiveState<T>>({ data: undefined, error: undefined });
	const vars = useRef(variables);
	vars.current = variables;
	// biome-ignore lint/correctness/useExhaustiveDependencies: `key` names the variables; the ref holds them.
	useEffect(() => {
		return subscribeLive(document, () => vars.current, {
			next: (data) => setState({ data, error: undefined }),
			error: (message) => setState((s) => ({ ...s, error: message })),
		});
	}, [document, key]);
	return state;
}

/** Calls `onEvent` for each event of a feed subscription (sessionActivity) while mounted. */
export function useFeed<T, V extends Record<string, unknown>>(
	document: TypedDocumentNode<T, V>,
	variables: V,
	onEvent: (data: T) => void,
): string | undefined {
	const [error, setError] = useState<string>();
	const handler = useRef(onEvent);
	handler.current = onEvent;
	const vars = useRef(variables);
	vars.current = variables;
	useEffect(() => {
		return subscribeLive(document, () => vars.current, {
			next: (data) => handler.current(data),
			error: (message) => setError(message),
		});
	}, [document]);
	return error;
}
