-- Entries are append-only: the log is the source of truth and a cache of
-- "session X up to seq N" must stay valid forever. Written by hand because
-- drizzle-kit does not generate triggers.
CREATE FUNCTION entries_reject_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'entries are append-only: % on entries is not allowed', TG_OP
		USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER entries_append_only
	BEFORE UPDATE OR DELETE ON entries
	FOR EACH ROW EXECUTE FUNCTION entries_reject_change();
--> statement-breakpoint
CREATE TRIGGER entries_no_truncate
	BEFORE TRUNCATE ON entries
	FOR EACH STATEMENT EXECUTE FUNCTION entries_reject_change();
