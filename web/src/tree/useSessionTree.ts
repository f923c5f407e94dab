/**
 * A session's tree kept current: loaded a page at a time (adapter.ts), each
 * page shown as it arrives, then every event of `sessionEvents` after the
 * loaded seq applied in order. The resume
 * position is the last applied seq, read when the subscription is (re)sent,
 * so a reconnect neither repeats nor skips an event; a replayed event is
 * dropped by seq, and a skipped one (which would be a bug) reloads the tree.
 */
import { useEffect, useRef, useState } from "react";
import { useClient } from "urql";
import { subscribeLive } from "../api/client";
import { graphql } from "../gql";
import { changeOf, loadTree, SessionNotFoundError } from "./adapter";
import { applyChange, type SessionTree, type TreeChange } from "./tree";

const SessionEvents = graphql(`
	subscription SessionTreeEvents($sessionId: String!, $afterSeq: Int) {
		sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) {
			__typename
			... on EntryAppended {
				seq
				leafId
				entry {
					...TreeEntryFields
				}
			}
			... on LeafMoved {
				seq
				leafId
			}
			... on SessionDeleted {
				sessionId
			}
		}
	}
`);

export type TreeState =
	| { status: "loading" }
	| { status: "missing" }
	| { status: "error"; message: string }
	/** `loading`: later pages of a large tree are still coming (no live events are applied until they are in). */
	| { status: "ready"; tree: SessionTree; loading: { loaded: number; total: number } | null };

export function useSessionTree(sessionId: string): TreeState {
	const client = useClient();
	const [state, setState] = useState<TreeState>({ status: "loading" });
	const treeRef = useRef<SessionTree | null>(null);

	useEffect(() => {
		let cancelled = false;
		let unsubscribe: (() => void) | undefined;
		// A reload (after a gap) supersedes a load still paging.
		let generation = 0;
		treeRef.current = null;
		setState({ status: "loading" });

		const start = async () => {
			unsubscribe?.();
			unsubscribe = undefined;
			const run = ++generation;
			let tree: SessionTree | undefined;
			try {
				for await (const page of loadTree(client, sessionId)) {
					if (cancelled || run !== generation) return;
					tree = page.tree;
					treeRef.current = tree;
					const loading = page.complete ? null : { loaded: page.loaded, total: page.total };
					setState({ status: "ready", tree, loading });
				}
			} catch (error) {
				if (cancelled || run !== generation) return;
				if (error instanceof SessionNotFoundError) setState({ status: "missing" });
				else setState({ status: "error", message: String((error as Error).message ?? error) });
				return;
			}
			if (cancelled || run !== generation || !tree) return;
			const loaded = tree;
			unsubscribe = subscribeLive(
				SessionEvents,
				// Read at every (re)subscribe: the position is what this page has applied, not what it had at first.
				() => ({ sessionId, afterSeq: treeRef.current?.lastSeq ?? loaded.lastSeq }),
				{
					next: (data) => {
						const current = treeRef.current;
						if (!current || cancelled) return;
						const event = data.sessionEvents;
						// The session was deleted: its stream ends, and the page shows it is gone.
						if (event.__typename === "SessionDeleted") {
							cancelled = true;
							unsubscribe?.();
							setState({ status: "missing" });
							return;
						}
						const change: TreeChange =
							event.__typename === "EntryAppended"
								? changeOf(event.entry, event.seq, event.leafId ?? null)
								: { seq: event.seq, leafId: event.leafId ?? null };
						const result = applyChange(current, change);
						if (result.kind === "applied") {
							treeRef.current = result.tree;
							setState({ status: "ready", tree: result.tree, loading: null });
						} else if (result.kind === "gap") {
							console.error(`sessionEvents skipped from seq ${result.expected} to ${result.got}; reloading`);
							void start();
						}
					},
					error: (message) => {
						if (!cancelled) setState({ status: "error", message });
					},
				},
			);
		};
		void start();
		return () => {
			cancelled = true;
			unsubscribe?.();
		};
	}, [client, sessionId]);

	return state;
}
