-- What a failure after replay needs of an archived record (lib/dead-letters/store/write-records.ts): a replayed
-- record whose key arrives again leaves the archive for triage, decided as a live record would be. Its first reason
-- and class reason, the re-sends that changed nothing (they spend no retry budget), the rule version that decided it
-- (a re-failure counts against that rule) and the batch that replayed it last. Nullable, no default: no rewrite;
-- records archived before this migration have none of them (write-records.ts says what stands in).
ALTER TABLE "dead_letter_archive" ADD COLUMN IF NOT EXISTS "first_failure_reason" TEXT;
ALTER TABLE "dead_letter_archive" ADD COLUMN IF NOT EXISTS "class_reason" TEXT;
ALTER TABLE "dead_letter_archive" ADD COLUMN IF NOT EXISTS "noted_failures" INTEGER;
ALTER TABLE "dead_letter_archive" ADD COLUMN IF NOT EXISTS "decided_by_rule_id" BIGINT;
ALTER TABLE "dead_letter_archive" ADD COLUMN IF NOT EXISTS "decided_by_rule_version" INTEGER;
ALTER TABLE "dead_letter_archive" ADD COLUMN IF NOT EXISTS "last_replay_batch_id" BIGINT;
