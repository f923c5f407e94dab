-- Hand-written (drizzle-kit does not write data changes): usage totals now count what pi's session
-- stats count (tool results' usage, compactions' and branch summaries' usage, `usage` entries), their
-- tokens are the four parts' sum, an assistant turn's usage is grouped by the model that answered
-- (`responseModel`) and its duration is pi's own `durationMs` where it has one. The rollups and turn
-- rows written before are emptied, the workspace's folded rows with them (src/store/postgres/fold.ts:
-- with neither, every sum is zero and exact). A server opening the database rebuilds them from the
-- logs (rebuildRollups of sessions without rollups, resumable); `npm run rollups -- rebuild --missing`
-- does the same without a server.
TRUNCATE "workspace_rollups", "usage_rollups", "assistant_turns";
