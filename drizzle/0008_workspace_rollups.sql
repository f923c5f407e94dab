CREATE TABLE "workspace_rollups" (
	"workspace_id" text NOT NULL,
	"bucket" timestamp(3) with time zone NOT NULL,
	"entry_type" text NOT NULL,
	"role" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"author" text NOT NULL,
	"entries" integer NOT NULL,
	"tool_calls" integer NOT NULL,
	"tool_results" integer NOT NULL,
	"tool_errors" integer NOT NULL,
	"input_tokens" double precision NOT NULL,
	"output_tokens" double precision NOT NULL,
	"cache_read_tokens" double precision NOT NULL,
	"cache_write_tokens" double precision NOT NULL,
	"total_tokens" double precision NOT NULL,
	"cost" double precision NOT NULL,
	CONSTRAINT "workspace_rollups_pk" PRIMARY KEY("workspace_id","bucket","entry_type","role","provider","model","author")
);
--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "dirty" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_rollups_dirty" ON "usage_rollups" USING btree ("session_key") WHERE "usage_rollups"."dirty";--> statement-breakpoint
CREATE INDEX "usage_rollups_by_bucket" ON "usage_rollups" USING btree ("bucket");