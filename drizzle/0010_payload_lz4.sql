-- Payloads large enough to be compressed (pi's tool results, long answers)
-- are compressed with LZ4 where the server has it: on 50 sessions of pi's
-- real file plus its 1,002-entry session, 2% more bytes than pglz, and that
-- session's payloads read in 4.5-6.3 ms instead of 8.6-11.8 ms (issue 10).
-- Rows already stored keep their compression. A server built without LZ4
-- (PGlite) keeps pglz. Hand-written: drizzle-kit does not express a column's
-- compression.
DO $$
BEGIN
	ALTER TABLE "entries" ALTER COLUMN "payload" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	NULL;
END
$$;
