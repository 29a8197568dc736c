-- CreateEnum
CREATE TYPE "FailureGroupStatus" AS ENUM ('open', 'acknowledged', 'resolved', 'ignored');

-- CreateTable
CREATE TABLE "failure_group" (
    "id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "reason_group" TEXT NOT NULL,
    "status" "FailureGroupStatus" NOT NULL DEFAULT 'open',
    "owner_id" TEXT,
    "resolution_reason" TEXT,
    "resolution_link" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "regression" BOOLEAN NOT NULL DEFAULT false,
    "regressed_at" TIMESTAMPTZ(3),
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "failure_group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "failure_group_note" (
    "id" BIGSERIAL NOT NULL,
    "group_id" TEXT NOT NULL,
    "author_id" TEXT,
    "author_email" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "failure_group_note_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "failure_group_source_reason_group_key" ON "failure_group"("source", "reason_group");

-- CreateIndex
CREATE INDEX "failure_group_note_group_id_id_idx" ON "failure_group_note"("group_id", "id");

-- AddForeignKey
ALTER TABLE "failure_group_note" ADD CONSTRAINT "failure_group_note_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "failure_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Below: SQL the schema engine does not model (a function), outside the drift check.

-- A group's id: the first 12 bytes of SHA-256 over source and reason group, base64url (16 characters). Stable
-- (the same pair always gives the same id, with or without a row), URL-safe, and computable from the rollup for
-- groups that have no row yet. The separator (U+001F) keeps ("a b", "c") and ("a", "b c") apart.
CREATE FUNCTION failure_group_id(source text, reason_group text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT rtrim(translate(encode(substring(sha256(convert_to(source || chr(31) || reason_group, 'UTF8')) FROM 1 FOR 12), 'base64'), '+/', '-_'), '=')
$$;

-- Groups that exist before this migration, seen when their records were stored.
INSERT INTO "failure_group" ("id", "source", "reason_group", "first_seen_at", "last_seen_at")
SELECT failure_group_id(source, reason_group), source, reason_group, min(created_at), max(created_at)
FROM "dead_letter" GROUP BY source, reason_group;
