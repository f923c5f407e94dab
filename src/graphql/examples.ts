/**
 * The operations GraphiQL opens with; docs/api.md shows the same ones. A test
 * runs them against a real server, so they stay correct.
 */
export const GRAPHIQL_EXAMPLE = `# A session tree is an append-only log; the leaf pointer says which branch
# is active. Run the operations one by one (the ▶ menu lists them).

mutation CreateSession {
  createSession(input: { sessionId: "demo", name: "Demo", cwd: "/tmp/demo" }) {
    sessionId
    name
  }
}

mutation AppendUser {
  appendEntry(input: { sessionId: "demo", entryId: "u1", entry: { message: { role: "user", content: "Hello!", timestamp: 1767225600000 } } }) {
    entry { entryId seq parentId }
    session { leafId lastSeq }
  }
}

mutation AppendAssistant {
  appendEntry(input: { sessionId: "demo", entryId: "a1", entry: { message: { role: "assistant", content: [{ type: "text", text: "Hi! How can I help?" }], provider: "anthropic", model: "claude-sonnet-4-5", timestamp: 1767225601000 } } }) {
    entry { entryId seq parentId }
  }
}

mutation GoBackWithSummary {
  moveLeaf(input: { sessionId: "demo", targetId: "u1", summary: { summary: "Greeted; nothing done yet." } }) {
    leafEntry { entryId targetId }
    summaryEntry { entryId parentId summary }
    session { leafId }
  }
}

query BranchAndContext {
  session(sessionId: "demo") {
    leafId
    branch { entryId type depth ... on MessageEntry { role } }
    context { messages thinkingLevel model { provider modelId } }
    tips { entryId }
  }
}

query Export {
  session(sessionId: "demo") { jsonl }
}
`;
