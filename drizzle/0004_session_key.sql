-- Entry rows carry their session's compact key (sessions.key, an identity)
-- instead of the workspace and session ids (issue 10, storage: two texts in
-- the row and in every index). Written by hand from drizzle-kit's draft so
-- that existing entries keep their session: the key is filled in before the
-- id columns go. Entries are append-only (0001): the trigger that refuses
-- UPDATE is off for this one fill, inside the migration's transaction.
-- Dropped columns keep their bytes in rows written before this migration
-- until the table is rewritten (VACUUM FULL entries, when convenient).
ALTER TABLE "sessions" ADD COLUMN "key" integer NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "sessions_key_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1);--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_key" UNIQUE("key");--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "session_key" integer;--> statement-breakpoint
ALTER TABLE "entries" DISABLE TRIGGER "entries_append_only";--> statement-breakpoint
UPDATE "entries" SET "session_key" = "sessions"."key" FROM "sessions"
	WHERE "sessions"."workspace_id" = "entries"."workspace_id" AND "sessions"."id" = "entries"."session_id";--> statement-breakpoint
ALTER TABLE "entries" ENABLE TRIGGER "entries_append_only";--> statement-breakpoint
ALTER TABLE "entries" ALTER COLUMN "session_key" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" DROP CONSTRAINT "entries_session_seq";--> statement-breakpoint
ALTER TABLE "entries" DROP CONSTRAINT "entries_workspace_id_session_id_sessions_workspace_id_id_fk";--> statement-breakpoint
ALTER TABLE "entries" DROP CONSTRAINT "entries_workspace_id_session_id_id_pk";--> statement-breakpoint
DROP INDEX "entries_children";--> statement-breakpoint
DROP INDEX "entries_by_type";--> statement-breakpoint
DROP INDEX "entries_label_targets";--> statement-breakpoint
ALTER TABLE "entries" DROP COLUMN "workspace_id";--> statement-breakpoint
ALTER TABLE "entries" DROP COLUMN "session_id";--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_session_key_id_pk" PRIMARY KEY("session_key","id");--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_session_seq" UNIQUE("session_key","seq");--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_session_key_sessions_key_fk" FOREIGN KEY ("session_key") REFERENCES "public"."sessions"("key") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entries_children" ON "entries" USING btree ("session_key","parent_id");--> statement-breakpoint
CREATE INDEX "entries_by_type" ON "entries" USING btree ("session_key","type");--> statement-breakpoint
CREATE INDEX "entries_label_targets" ON "entries" USING btree ("session_key",("payload"->>'targetId'),"seq") WHERE "entries"."type" = 'label';
