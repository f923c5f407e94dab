-- Narrower secondary indexes (issue 10, storage): entries_children without the
-- workspace column, entries_by_type without seq so that btree deduplication
-- keeps one key per (session, type). Rebuilding them locks writes to entries
-- for the time of the build (a migration runs in one transaction, so not
-- CONCURRENTLY): seconds per million entries.
DROP INDEX "entries_children";--> statement-breakpoint
DROP INDEX "entries_by_type";--> statement-breakpoint
CREATE INDEX "entries_children" ON "entries" USING btree ("session_id","parent_id");--> statement-breakpoint
CREATE INDEX "entries_by_type" ON "entries" USING btree ("workspace_id","session_id","type");