CREATE TABLE "activity_log" (
	"session_key" integer NOT NULL,
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"from_seq" integer NOT NULL,
	"to_seq" integer NOT NULL,
	"created" boolean NOT NULL,
	CONSTRAINT "activity_log_pk" PRIMARY KEY("session_key","to_seq")
);
--> statement-breakpoint
ALTER TABLE "activity_log" ADD CONSTRAINT "activity_log_session_key_sessions_key_fk" FOREIGN KEY ("session_key") REFERENCES "public"."sessions"("key") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_log_order" ON "activity_log" USING btree ("xid","session_key","to_seq");