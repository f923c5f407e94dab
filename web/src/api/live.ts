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

const SEEN_CURSORS = 1_000;

/**
 * Calls `onEvent` for each event of `sessionActivity` while mounted, each
 * once across reconnects: the subscription is (re)sent with `afterCursor`
 * the last event's cursor (read when the payload is serialised, as the
 * session page resumes by seq), so the server replays what was committed
 * while the connection was down and nothing twice. A cursor already seen is
 * dropped, should a resubscribe race an event in flight.
 *
 * Without `start`, the first subscribe has no cursor: activity from now on.
 * With it, the feed waits for `start.after` (a list's `activityCursor`) and
 * begins there, so nothing committed between the list's read and the
 * subscription is missed; a later value (the list read again) changes nothing.
 */
export function useActivityFeed<T extends { sessionActivity: { cursor: string } }>(
	document: TypedDocumentNode<T, { afterCursor?: string | null }>,
	onEvent: (data: T) => void,
	start?: { after: string | undefined },
): string | undefined {
	const [error, setError] = useState<string>();
	const handler = useRef(onEvent);
	handler.current = onEvent;
	/** Where the next subscribe resumes: the start, then the last event's cursor. */
	const resume = useRef<string | null | undefined>(start ? undefined : null);
	if (resume.current === undefined && start?.after !== undefined) resume.current = start.after;
	const ready = resume.current !== undefined;
	useEffect(() => {
		if (!ready) return;
		const seen = new Set<string>();
		return subscribeLive(document, () => ({ afterCursor: resume.current ?? null }), {
			next: (data) => {
				const at = data.sessionActivity.cursor;
				if (seen.has(at)) return;
				seen.add(at);
				// Only recent cursors can come again (an event in flight at a resubscribe): keep a few.
				if (seen.size > SEEN_CURSORS) seen.delete(seen.values().next().value as string);
				resume.current = at;
				handler.current(data);
			},
			error: (message) => setError(message),
		});
	}, [document, ready]);
	return error;
}
