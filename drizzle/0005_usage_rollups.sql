CREATE TABLE "usage_rollups" (
	"session_key" integer NOT NULL,
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
	CONSTRAINT "usage_rollups_pk" PRIMARY KEY("session_key","bucket","entry_type","role","provider","model","author")
);
--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD CONSTRAINT "usage_rollups_session_key_sessions_key_fk" FOREIGN KEY ("session_key") REFERENCES "public"."sessions"("key") ON DELETE restrict ON UPDATE no action;