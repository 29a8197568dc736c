-- Teams scope which records a user sees and changes (lib/auth/record-scope.ts); a user in no team sees all.
CREATE TABLE "team" (
    "id" BIGSERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "team_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "team_name_key" ON "team"("name");

CREATE TABLE "team_member" (
    "team_id" BIGINT NOT NULL,
    "user_id" TEXT NOT NULL,
    CONSTRAINT "team_member_pkey" PRIMARY KEY ("team_id","user_id")
);
CREATE INDEX "team_member_user_idx" ON "team_member"("user_id");
ALTER TABLE "team_member" ADD CONSTRAINT "team_member_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "team_member" ADD CONSTRAINT "team_member_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "team_source" (
    "id" BIGSERIAL NOT NULL,
    "team_id" BIGINT NOT NULL,
    "source" TEXT,
    "origin" TEXT,
    CONSTRAINT "team_source_pkey" PRIMARY KEY ("id"),
    -- a `*` only at the end: the prefix is served by the list's (source, observed_at, id) index as a range
    CONSTRAINT "team_source_names_check" CHECK (("source" IS NOT NULL OR "origin" IS NOT NULL) AND ("source" IS NULL OR "source" !~ '\*.'))
);
CREATE INDEX "team_source_team_idx" ON "team_source"("team_id");
ALTER TABLE "team_source" ADD CONSTRAINT "team_source_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
