-- Entries stay append-only. The one exception is deleting a whole session
-- (deleteSession, design/tree-rules.md#deleting-a-session):
-- its transaction names the session's key in session_tree.deleting_session
-- (set_config(..., true): for that transaction only), and only that
-- session's rows may then be deleted. UPDATE and TRUNCATE stay refused.
CREATE OR REPLACE FUNCTION entries_reject_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		IF OLD.session_key::text = current_setting('session_tree.deleting_session', true) THEN
			RETURN OLD;
		END IF;
	END IF;
	RAISE EXCEPTION 'entries are append-only: % on entries is not allowed', TG_OP
		USING ERRCODE = 'restrict_violation';
END;
$$;
