-- CreateEnum
CREATE TYPE "RuleStatus" AS ENUM ('draft', 'active', 'disabled');

-- AlterTable
ALTER TABLE "dead_letter" ADD COLUMN     "decided_by_rule_id" BIGINT,
ADD COLUMN     "decided_by_rule_version" INTEGER;

-- CreateTable
CREATE TABLE "rule" (
    "id" BIGSERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "status" "RuleStatus" NOT NULL DEFAULT 'draft',
    "latest_version" INTEGER NOT NULL DEFAULT 1,
    "active_version" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rule_version" (
    "rule_id" BIGINT NOT NULL,
    "version" INTEGER NOT NULL,
    "match" JSONB NOT NULL,
    "action" JSONB NOT NULL,
    "replay" JSONB,
    "drafted_by_id" TEXT,
    "drafted_by_email" TEXT,
    "drafted_at" TIMESTAMPTZ(3) NOT NULL,
    "approved_by_id" TEXT,
    "approved_by_email" TEXT,
    "approved_at" TIMESTAMPTZ(3),

    CONSTRAINT "rule_version_pkey" PRIMARY KEY ("rule_id","version")
);

-- CreateTable
CREATE TABLE "rule_job" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" BIGINT NOT NULL,
    "version" INTEGER,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "match" JSONB NOT NULL,
    "action" JSONB NOT NULL,
    "ceiling" BIGINT NOT NULL,
    "cursor" BIGINT NOT NULL DEFAULT 0,
    "total" INTEGER NOT NULL DEFAULT 0,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "decided" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "skipped_reasons" JSONB NOT NULL DEFAULT '{}',
    "samples" JSONB NOT NULL DEFAULT '{"decided": [], "skipped": []}',
    "area_changes" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "actor_role" TEXT,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "rule_job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rule_match_stat" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" BIGINT NOT NULL,
    "version" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "matched" INTEGER NOT NULL,
    "decided" INTEGER NOT NULL,

    CONSTRAINT "rule_match_stat_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "rule_name_key" ON "rule"("name");

-- CreateIndex
CREATE INDEX "rule_status_idx" ON "rule"("status");

-- CreateIndex
CREATE INDEX "rule_job_rule_idx" ON "rule_job"("rule_id", "id");

-- CreateIndex
CREATE INDEX "rule_match_stat_rule_idx" ON "rule_match_stat"("rule_id", "at");

-- AddForeignKey
ALTER TABLE "rule_version" ADD CONSTRAINT "rule_version_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "rule"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A rule version is what its approver saw: its match, action and replay never change, and its approval is
-- given once (lib/rules/rules.ts). DELETE is refused too: decisions name the version they were made by.
CREATE FUNCTION rule_version_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'rule_version rows are kept: DELETE refused' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW.rule_id <> OLD.rule_id OR NEW.version <> OLD.version OR NEW.match <> OLD.match OR NEW.action <> OLD.action
     OR NEW.replay IS DISTINCT FROM OLD.replay OR NEW.drafted_by_id IS DISTINCT FROM OLD.drafted_by_id
     OR NEW.drafted_at <> OLD.drafted_at OR OLD.approved_at IS NOT NULL THEN
    RAISE EXCEPTION 'rule_version % of rule % is immutable once drafted (approval is given once)', OLD.version, OLD.rule_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER rule_version_immutable BEFORE UPDATE OR DELETE ON "rule_version"
  FOR EACH ROW EXECUTE FUNCTION rule_version_immutable();
