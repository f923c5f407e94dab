import { useEffect, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { ComparePanel } from "../components/ComparePanel";
import { EntryPanel } from "../components/EntryPanel";
import { PresenceAvatars } from "../components/PresenceAvatars";
import { TreeView } from "../components/TreeView";
import { graphql } from "../gql";
import { focusByEntry } from "../presence/avatars";
import { usePresence } from "../presence/usePresence";
import { useSessionTree } from "../tree/useSessionTree";

const SessionHeader = graphql(`
	query SessionHeader($sessionId: String!) {
		session(sessionId: $sessionId) {
			sessionId
			name
			cwd
			createdAt
		}
	}
`);

export function SessionPage() {
	const { sessionId = "" } = useParams();
	const [{ data }] = useQuery({ query: SessionHeader, variables: { sessionId } });
	const state = useSessionTree(sessionId);
	// The selected entry is also in the address (`?entry=`), so a search hit or a shared link opens on it.
	// The page's state leads (keyboard moves must not wait for a navigation); the address follows it.
	const [params, setParams] = useSearchParams();
	const [selectedId, setSelectedId] = useState<string | null>(() => params.get("entry"));
	const addressed = params.get("entry");
	useEffect(() => {
		if (selectedId !== null && selectedId !== addressed) setParams({ entry: selectedId }, { replace: true });
	}, [selectedId, addressed, setParams]);
	const [compareId, setCompareId] = useState<string | null>(null);
	const tree = state.status === "ready" ? state.tree : null;
	const loading = state.status === "ready" ? state.loading : null;
	const leafId = tree?.leafId ?? null;
	const hasTree = tree !== null;

	// pi opens /tree on the current leaf.
	useEffect(() => {
		if (hasTree && selectedId === null && leafId !== null) setSelectedId(leafId);
	}, [hasTree, leafId, selectedId]);

	const { presence, error: presenceError } = usePresence(sessionId, selectedId);
	const ownViewerId = presence?.viewerId ?? null;
	const focusedBy = useMemo(
		() => focusByEntry(presence?.viewers ?? [], ownViewerId),
		[presence, ownViewerId],
	);

	const session = data?.session;
	const title = session?.name || sessionId;
	useEffect(() => {
		document.title = `${title} · Session trees`;
	}, [title]);

	if (state.status === "missing") {
		return (
			<section>
				<h1>No session {sessionId}</h1>
				<p>
					<Link to="/">Back to the sessions</Link>
				</p>
			</section>
		);
	}
	return (
		<div className="session-page">
			<header className="page-header">
				<h1>{title}</h1>
				<p className="muted">
					{sessionId}
					{session?.cwd ? ` · ${session.cwd}` : ""}
					{tree ? ` · ${tree.nodes.length} nodes · seq ${tree.lastSeq}` : ""}
				</p>
				<div className="presence-slot">
					{presence ? <PresenceAvatars viewers={presence.viewers} ownViewerId={ownViewerId} /> : null}
					{presenceError ? <p className="muted small">Presence unavailable: {presenceError}</p> : null}
				</div>
			</header>
			{loading ? (
				<p aria-busy="true" data-testid="tree-loading">
					Loading the tree: {loading.loaded.toLocaleString("en-US")} of{" "}
					{loading.total.toLocaleString("en-US")} nodes…
				</p>
			) : null}
			{state.status === "error" ? <p role="alert">{state.message}</p> : null}
			{state.status === "loading" ? <p aria-busy="true">Loading the tree…</p> : null}
			{tree ? (
				<div className="session-columns">
					<section className="panel tree-panel" aria-labelledby="tree-heading">
						<h2 id="tree-heading">Tree</h2>
						<p id="tree-help" className="muted small">
							↑/↓ move, → child, ← parent, c marks the entry to compare with. • marks the active path.
						</p>
						{tree.nodes.length === 0 ? <p>No entries yet.</p> : null}
						<TreeView
							tree={tree}
							selectedId={selectedId}
							compareId={compareId}
							onSelect={setSelectedId}
							onMarkCompare={setCompareId}
							focusedBy={focusedBy}
						/>
					</section>
					<div className="side">
						{selectedId ? (
							<div className="toolbar">
								<button
									type="button"
									onClick={() => setCompareId(selectedId)}
									disabled={compareId === selectedId}
								>
									Compare from this entry (A)
								</button>
							</div>
						) : null}
						{compareId && selectedId && compareId !== selectedId ? (
							<ComparePanel
								sessionId={sessionId}
								tree={tree}
								a={compareId}
								b={selectedId}
								onClear={() => setCompareId(null)}
								onSelect={setSelectedId}
							/>
						) : null}
						{selectedId ? <EntryPanel sessionId={sessionId} entryId={selectedId} /> : null}
					</div>
				</div>
			) : null}
		</div>
	);
}
