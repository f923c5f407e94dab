-- Who wrote each entry: the subject of the writer's token, beside the pi payload
-- (never in it, so exports stay what pi writes). Rows stored before this
-- column were written without authentication: null. Adding a nullable
-- column rewrites no row, so the append-only triggers do not fire.
ALTER TABLE "entries" ADD COLUMN "author" text;
