-- Full-text search (issue 12): the searchable text of an entry, as
-- src/session/search-text.ts#searchTextOf defines it, and a GIN index over
-- its text search vector in the 'simple' configuration. Hand-written:
-- drizzle-kit does not generate functions or expression indexes over them.
-- The functions keep the search path they were created with: maintenance
-- (ANALYZE, index builds) runs index expressions with a restricted search
-- path from PostgreSQL 17 on, where an unqualified call would not resolve.
CREATE OR REPLACE FUNCTION entry_content_text(content jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
	SELECT CASE jsonb_typeof(content)
		WHEN 'string' THEN content #>> '{}'
		WHEN 'array' THEN (
			SELECT string_agg(item->>'text', ' ' ORDER BY position)
			FROM jsonb_array_elements(content) WITH ORDINALITY AS items(item, position)
			WHERE jsonb_typeof(item) = 'object' AND item->>'type' = 'text' AND jsonb_typeof(item->'text') = 'string'
		)
	END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION entry_search_text(entry_type text, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
	SELECT CASE entry_type
		WHEN 'message' THEN CASE
			WHEN payload->'message'->>'role' = 'bashExecution' THEN
				CASE WHEN jsonb_typeof(payload->'message'->'command') = 'string' THEN payload->'message'->>'command' END
			WHEN payload->'message'->>'role' = 'toolResult' THEN NULL
			ELSE entry_content_text(payload->'message'->'content')
		END
		WHEN 'branch_summary' THEN CASE WHEN jsonb_typeof(payload->'summary') = 'string' THEN payload->>'summary' END
		WHEN 'compaction' THEN CASE WHEN jsonb_typeof(payload->'summary') = 'string' THEN payload->>'summary' END
		WHEN 'label' THEN nullif(payload->>'label', '')
		WHEN 'custom_message' THEN entry_content_text(payload->'content')
		WHEN 'session_info' THEN nullif(payload->>'name', '')
	END
$$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "entries_search" ON "entries"
	USING gin (to_tsvector('simple'::regconfig, coalesce(entry_search_text("type", "payload"), '')));
