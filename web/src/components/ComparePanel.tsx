/**
 * Two nodes side by side: their common ancestor and the path from it down
 * to each, as `Session.compare` answers (one statement on Postgres). Rows
 * read as the tree draws them when the tree holds the node.
 */
import { useQuery } from "urql";
import { graphql } from "../gql";
import type { CompareEntryFragment } from "../gql/graphql";
import type { SessionTree } from "../tree/tree";
import { describeNode } from "./TreeView";

export const CompareEntry = graphql(`
	fragment CompareEntry on Entry {
		__typename
		entryId
		type
		... on MessageEntry {
			role
			preview(maxLength: 160)
		}
	}
`);

const SessionCompare = graphql(`
	query SessionCompare($sessionId: String!, $a: String!, $b: String!) {
		session(sessionId: $sessionId) {
			sessionId
			compare(a: $a, b: $b) {
				ancestor {
					...CompareEntry
				}
				a {
					...CompareEntry
				}
				b {
					...CompareEntry
				}
			}
		}
	}
`);

export function ComparePanel({
	sessionId,
	tree,
	a,
	b,
	onClear,
	onSelect,
}: {
	sessionId: string;
	tree: SessionTree;
	a: string;
	b: string;
	onClear(): void;
	onSelect(entryId: string): void;
}) {
	// A node's ancestors never change, so an answer stays true while the session grows.
	const [{ data, fetching, error }] = useQuery({
		query: SessionCompare,
		variables: { sessionId, a, b },
		requestPolicy: "cache-first",
	});
	const comparison = data?.session?.compare;
	const describe = (entry: CompareEntryFragment) => {
		const node = tree.nodes[tree.index.get(entry.entryId) ?? -1];
		if (node) return describeNode(node);
		if (entry.__typename === "MessageEntry") return `${entry.role}: ${entry.preview}`;
		return `[${entry.type.toLowerCase().replace(/_/g, " ")}]`;
	};
	const path = (name: string, id: string, entries: readonly CompareEntryFragment[]) => (
		<section className="compare-path" aria-label={`Path to ${name}`} data-testid={`compare-path-${name}`}>
			<h3>
				{name}: {id} ({entries.length} entr{entries.length === 1 ? "y" : "ies"} below the ancestor)
			</h3>
			<ol>
				{entries.map((entry) => (
					<li key={entry.entryId} data-entry-id={entry.entryId}>
						<button type="button" className="link" onClick={() => onSelect(entry.entryId)}>
							{describe(entry)}
						</button>
					</li>
				))}
			</ol>
		</section>
	);
	const ancestor = comparison?.ancestor;
	return (
		<section className="panel compare-panel" aria-labelledby="compare-heading" aria-busy={fetching}>
			<h2 id="compare-heading">Compare</h2>
			{error ? <p role="alert">{error.message}</p> : null}
			{comparison ? (
				<>
					<p data-testid="common-ancestor" data-entry-id={ancestor?.entryId}>
						Common ancestor:{" "}
						{ancestor ? (
							<button type="button" className="link" onClick={() => onSelect(ancestor.entryId)}>
								{ancestor.entryId}: {describe(ancestor)}
							</button>
						) : (
							"none (different roots)"
						)}
					</p>
					<div className="compare-columns">
						{path("A", a, comparison.a)}
						{path("B", b, comparison.b)}
					</div>
				</>
			) : null}
			<button type="button" onClick={onClear}>
				Stop comparing
			</button>
		</section>
	);
}
