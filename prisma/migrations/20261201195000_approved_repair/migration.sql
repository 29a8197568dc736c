-- An approval pins the repair the analyst reviewed: method, policy and the digest of the geometry it delivers
-- (ApprovedRepairSchema, lib/vocabulary/record.ts). Batches replay each record with its pin; a batch's own
-- repair setting replaces a pin only when the supervisor confirmed it (repair_override, audited at creation).
-- Both are additions without a rewrite: a nullable column and a constant default (PostgreSQL 11+).

-- AlterTable
ALTER TABLE "dead_letter" ADD COLUMN "approved_repair" JSONB;

-- AlterTable
ALTER TABLE "replay_batch" ADD COLUMN "repair_override" BOOLEAN NOT NULL DEFAULT false;
