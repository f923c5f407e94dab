/**
 * The selected entry, and the context the model would see if the
 * conversation went on from it (`context(fromId:)`: pi's buildSessionContext).
 */
import { useQuery } from "urql";
import { graphql } from "../gql";

const EntryDetail = graphql(`
	query EntryDetail($sessionId: String!, $entryId: String!) {
		session(sessionId: $sessionId) {
			sessionId
			entry(entryId: $entryId) {
				__typename
				entryId
				type
				seq
				depth
				parentId
				timestamp
				author
				label
				raw
				... on MessageEntry {
					role
					provider
					model
					stopReason
					usage {
						totalTokens
						cost {
							total
						}
					}
				}
			}
			context(fromId: $entryId) {
				messages
				thinkingLevel
				activeToolNames
				model {
					provider
					modelId
				}
			}
		}
	}
`);

interface ContentBlock {
	type?: string;
	text?: string;
	thinking?: string;
	name?: string;
	arguments?: unknown;
}

/** The readable text of a pi AgentMessage (text, thinking, tool calls; images named only). */
export function messageText(message: unknown): string {
	const m = message as { content?: unknown; summary?: string; command?: string; output?: string };
	if (typeof m.content === "string") return m.content;
	if (Array.isArray(m.content)) {
		return (m.content as ContentBlock[])
			.map((block) => {
				if (block.type === "text") return block.text ?? "";
				if (block.type === "thinking") return `(thinking) ${block.thinking ?? ""}`;
				if (block.type === "toolCall")
					return `→ ${block.name ?? "tool"}(${JSON.stringify(block.arguments ?? {})})`;
				if (block.type === "image") return "[image]";
				return "";
			})
			.filter(Boolean)
			.join("\n");
	}
	if (typeof m.summary === "string") return m.summary;
	if (typeof m.command === "string") return `$ ${m.command}\n${m.output ?? ""}`;
	return "";
}

function roleOf(message: unknown): string {
	return String((message as { role?: unknown }).role ?? "message");
}

export function EntryPanel({ sessionId, entryId }: { sessionId: string; entryId: string }) {
	const [{ data, fetching, error }] = useQuery({
		query: EntryDetail,
		variables: { sessionId, entryId },
	});
	const entry = data?.session?.entry;
	const context = data?.session?.context;
	return (
		<section className="panel entry-panel" aria-labelledby="entry-heading" aria-busy={fetching}>
			<h2 id="entry-heading">Entry {entryId}</h2>
			{error ? <p role="alert">{error.message}</p> : null}
			{entry ? (
				<>
					<dl className="facts">
						<dt>Type</dt>
						<dd data-testid="entry-type">{entry.type.toLowerCase()}</dd>
						{entry.__typename === "MessageEntry" ? (
							<>
								<dt>Role</dt>
								<dd>{entry.role}</dd>
								{entry.model ? (
									<>
										<dt>Model</dt>
										<dd>
											{entry.provider}/{entry.model}
										</dd>
									</>
								) : null}
								{entry.usage ? (
									<>
										<dt>Tokens</dt>
										<dd>
											{entry.usage.totalTokens.toLocaleString()} (${entry.usage.cost.total.toFixed(4)})
										</dd>
									</>
								) : null}
							</>
						) : null}
						<dt>Seq · depth</dt>
						<dd>
							{entry.seq} · {entry.depth}
						</dd>
						<dt>Time</dt>
						<dd>{new Date(entry.timestamp).toLocaleString()}</dd>
						{entry.author ? (
							<>
								<dt>Author</dt>
								<dd>{entry.author}</dd>
							</>
						) : null}
						{entry.label ? (
							<>
								<dt>Label</dt>
								<dd>{entry.label}</dd>
							</>
						) : null}
					</dl>
					<div className="entry-text" data-testid="entry-text">
						{entry.__typename === "MessageEntry"
							? messageText((entry.raw as { message?: unknown }).message)
							: messageText(entry.raw)}
					</div>
					<details>
						<summary>Raw JSONL line</summary>
						<pre className="raw">{JSON.stringify(entry.raw, null, 2)}</pre>
					</details>
				</>
			) : !fetching && data ? (
				<p>This entry does not exist.</p>
			) : null}
			{context ? (
				<section className="context" aria-labelledby="context-heading" data-testid="context">
					<h3 id="context-heading">
						Context from here: {context.messages.length} message{context.messages.length === 1 ? "" : "s"}
					</h3>
					<p className="context-settings">
						{context.model ? `${context.model.provider}/${context.model.modelId}` : "no model"} · thinking{" "}
						{context.thinkingLevel}
						{context.activeToolNames ? ` · tools: ${context.activeToolNames.join(", ")}` : ""}
					</p>
					<ol className="context-messages">
						{context.messages.map((message, i) => (
							// biome-ignore lint/suspicious/noArrayIndexKey: the context is a fixed list per answer.
							<li key={i} className={`context-message role-${roleOf(message)}`}>
								<span className="context-role">{roleOf(message)}</span>
								<span className="context-text">{messageText(message)}</span>
							</li>
						))}
					</ol>
				</section>
			) : null}
		</section>
	);
}
