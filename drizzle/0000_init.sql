CREATE TABLE "entries" (
	"workspace_id" text NOT NULL,
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"id" text NOT NULL,
	"parent_id" text,
	"type" text NOT NULL,
	"timestamp" timestamp(3) with time zone NOT NULL,
	"depth" integer NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "entries_workspace_id_session_id_id_pk" PRIMARY KEY("workspace_id","session_id","id"),
	CONSTRAINT "entries_session_seq" UNIQUE("workspace_id","session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"cwd" text,
	"parent_session_id" text,
	"name" text,
	"leaf_id" text,
	"leaf_depth" integer,
	"last_seq" integer DEFAULT 0 NOT NULL,
	"entry_count" integer DEFAULT 0 NOT NULL,
	"header" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "sessions_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_workspace_id_session_id_sessions_workspace_id_id_fk" FOREIGN KEY ("workspace_id","session_id") REFERENCES "public"."sessions"("workspace_id","id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entries_children" ON "entries" USING btree ("workspace_id","session_id","parent_id");--> statement-breakpoint
CREATE INDEX "entries_by_type" ON "entries" USING btree ("workspace_id","session_id","type","seq");--> statement-breakpoint
CREATE INDEX "entries_label_targets" ON "entries" USING btree ("workspace_id","session_id",("payload"->>'targetId'),"seq") WHERE "entries"."type" = 'label';--> statement-breakpoint
CREATE INDEX "sessions_by_activity" ON "sessions" USING btree ("workspace_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);