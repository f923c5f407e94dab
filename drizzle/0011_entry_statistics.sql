-- No planner statistics for what no plan estimates from: the payload column
-- (queries filter on the key columns; the label-target index keeps its own
-- statistics) and the search index's expression (a search compares it with
-- a subquery's tsquery, which the planner cannot estimate from statistics).
-- Computing that expression for every sampled row was 98% of an ANALYZE:
-- 400 ms for 6,000 entries against 8 ms without it, and the store runs
-- ANALYZE itself every 500 new rows on a small table (postgres/upkeep.ts),
-- so under 16 appending clients it took half a core (issue 10).
-- Hand-written: drizzle-kit does not express per-column statistics targets.
ALTER TABLE "entries" ALTER COLUMN "payload" SET STATISTICS 0;--> statement-breakpoint
ALTER INDEX "entries_search" ALTER COLUMN 1 SET STATISTICS 0;
