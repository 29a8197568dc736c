-- A dry run of a rule whose standing replay goes back to origin counts, among its approvals, those that cannot go
-- back ({noBrokerSource, refusedDestination}); null for every other job (lib/dead-letters/rules/rule-jobs.ts).
ALTER TABLE "rule_job" ADD COLUMN IF NOT EXISTS "not_replayable_to_origin" JSONB;
