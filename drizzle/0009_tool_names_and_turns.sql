-- Hand-written (drizzle-kit does not write data changes): rollups written before tool names and
-- assistant turn statistics kept a message's tool calls on its own row and no extremes or turn rows,
-- so they are emptied here, the workspace's folded rows with them (src/store/postgres/fold.ts: with
-- neither, every sum is zero and exact). A server opening the database rebuilds them from the logs,
-- as for a database from before rollups (rebuildRollups of sessions without rollups, resumable);
-- `npm run rollups -- rebuild --missing` does the same without a server.
TRUNCATE "workspace_rollups", "usage_rollups";--> statement-breakpoint
CREATE TABLE "assistant_turns" (
	"session_key" integer NOT NULL,
	"seq" integer NOT NULL,
	"bucket" timestamp(3) with time zone NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"author" text NOT NULL,
	"total_tokens" double precision NOT NULL,
	"cost" double precision NOT NULL,
	"duration_ms" double precision,
	CONSTRAINT "assistant_turns_pk" PRIMARY KEY("session_key","bucket","seq")
);
--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "tool_name" text NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "timed_assistant_turns" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "assistant_turn_duration_ms" double precision NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "min_total_tokens" double precision;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "max_total_tokens" double precision;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "min_cost" double precision;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "max_cost" double precision;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "min_duration_ms" double precision;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "max_duration_ms" double precision;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "tool_name" text NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "timed_assistant_turns" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "assistant_turn_duration_ms" double precision NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "min_total_tokens" double precision;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "max_total_tokens" double precision;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "min_cost" double precision;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "max_cost" double precision;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "min_duration_ms" double precision;--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD COLUMN "max_duration_ms" double precision;--> statement-breakpoint
ALTER TABLE "assistant_turns" ADD CONSTRAINT "assistant_turns_session_key_sessions_key_fk" FOREIGN KEY ("session_key") REFERENCES "public"."sessions"("key") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_by_creation" ON "sessions" USING btree ("workspace_id","created_at");--> statement-breakpoint
ALTER TABLE "usage_rollups" DROP CONSTRAINT "usage_rollups_pk";
--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD CONSTRAINT "usage_rollups_pk" PRIMARY KEY("session_key","bucket","entry_type","role","provider","model","tool_name","author");--> statement-breakpoint
ALTER TABLE "workspace_rollups" DROP CONSTRAINT "workspace_rollups_pk";
--> statement-breakpoint
ALTER TABLE "workspace_rollups" ADD CONSTRAINT "workspace_rollups_pk" PRIMARY KEY("workspace_id","bucket","entry_type","role","provider","model","tool_name","author");