/**
 * Per-request batching: every entry, child list, label and session a query
 * touches is fetched in one store call per session and kind, whatever the
 * page size (no N+1). Loaders live for one request, and a subscription
 * clears them before each event, so they never serve stale state across
 * requests or events.
 */
import DataLoader from "dataloader";
import type { FieldNode } from "graphql";
import type { StoredEntry } from "../session/entry.js";
import type { SessionRecord, SessionStore } from "../store/store.js";

export interface EntryKey {
	sessionId: string;
	entryId: string;
}

const entryKey = (k: EntryKey) => JSON.stringify([k.sessionId, k.entryId]);

/** Group keys by session, call `fetch` once per session, answer in key order. */
function bySession<V>(
	fetch: (sessionId: string, entryIds: string[]) => Promise<Map<string, V>>,
	missing: V,
): (keys: readonly EntryKey[]) => Promise<V[]> {
	return async (keys) => {
		const groups = new Map<string, string[]>();
		for (const k of keys) groups.set(k.sessionId, [...(groups.get(k.sessionId) ?? []), k.entryId]);
		const answers = new Map<string, Map<string, V>>();
		await Promise.all(
			[...groups].map(async ([sessionId, ids]) => {
				answers.set(sessionId, await fetch(sessionId, [...new Set(ids)]));
			}),
		);
		return keys.map((k) => answers.get(k.sessionId)?.get(k.entryId) ?? missing);
	};
}

export interface Loaders {
	session: DataLoader<string, SessionRecord | null>;
	entry: DataLoader<EntryKey, StoredEntry | null, string>;
	children: DataLoader<EntryKey, StoredEntry[], string>;
	label: DataLoader<EntryKey, string | null, string>;
	/** Entries already read (a page, a path) answer later lookups without a query. */
	prime(entries: readonly StoredEntry[]): readonly StoredEntry[];
	/**
	 * Pages of `Session.entries` read together with their session (the
	 * session field looked ahead), by the `entries` field node they answer;
	 * each is taken once, by that field's resolver.
	 */
	readonly pages: Map<FieldNode, { sessionId: string; entries: StoredEntry[] }>;
	/** Forget everything cached, so later loads read the store again (between the events of a subscription). */
	clear(): void;
}

export function createLoaders(store: SessionStore, ws: string): Loaders {
	const session = new DataLoader<string, SessionRecord | null>(async (ids) => {
		const found = await store.getSessions(ws, ids);
		return ids.map((id) => found.get(id) ?? null);
	});
	const entry = new DataLoader<EntryKey, StoredEntry | null, string>(
		bySession<StoredEntry | null>((sid, ids) => store.getEntries(ws, sid, ids), null),
		{ cacheKeyFn: entryKey },
	);
	const children = new DataLoader<EntryKey, StoredEntry[], string>(
		bySession<StoredEntry[]>((sid, ids) => store.children(ws, sid, ids), []),
		{ cacheKeyFn: entryKey },
	);
	const label = new DataLoader<EntryKey, string | null, string>(
		bySession<string | null>(async (sid, ids) => new Map(await store.labels(ws, sid, ids)), null),
		{ cacheKeyFn: entryKey },
	);
	const pages = new Map<FieldNode, { sessionId: string; entries: StoredEntry[] }>();
	return {
		session,
		entry,
		children,
		label,
		pages,
		prime(entries) {
			for (const e of entries) entry.prime({ sessionId: e.sessionId, entryId: e.entry.id }, e);
			return entries;
		},
		clear() {
			for (const loader of [session, entry, children, label]) loader.clearAll();
			pages.clear();
		},
	};
}
