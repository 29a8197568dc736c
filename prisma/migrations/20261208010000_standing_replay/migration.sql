-- Standing replays of triage rules (lib/rules/standing-replay.ts): a rule version that carries `replay` opens one
-- batch when it is approved, and the records it approves are appended to it in the transaction that decides them.
-- Nullable columns without defaults: no table rewrite.
ALTER TABLE "replay_batch" ADD COLUMN "rule_id" BIGINT,
ADD COLUMN "rule_version" INTEGER,
ADD COLUMN "canary_count" INTEGER,
ADD COLUMN "canary_max_failure_rate" DOUBLE PRECISION,
ADD COLUMN "canary_passed_at" TIMESTAMPTZ(3),
ADD COLUMN "canary_tripped_at" TIMESTAMPTZ(3);

-- One standing batch per rule version. replay_batch is small (a row per batch), so a plain index is fine.
CREATE UNIQUE INDEX "replay_batch_rule_version_key" ON "replay_batch"("rule_id", "rule_version");

-- Records of a rule that failed again after their replay, per store (appended like the other counts).
ALTER TABLE "rule_match_stat" ADD COLUMN "failed_after_replay" INTEGER NOT NULL DEFAULT 0;

-- Alerts about one triage rule name it: one open event per (alert rule, triage rule).
ALTER TABLE "alert_event" ADD COLUMN "triage_rule_id" BIGINT;

INSERT INTO "alert_rule" ("id", "name", "metric", "threshold", "window_minutes", "enabled")
VALUES
  ('rule-canary', 'A rule''s standing replay failed its canary', 'rule_canary', 0, 60, true),
  ('rule-refailure', 'A rule''s records fail again after their replay', 'rule_refailure', 0, 60, true)
ON CONFLICT ("id") DO NOTHING;

-- The re-failure alert's round reads the window's re-failures of every rule (lib/ops/alerts/rule-alerts.ts): a partial
-- index holds those rows only, not every store's counts. rule_match_stat is not a big table (a row per store batch
-- and rule, kept small by its readers' windows), so a plain CREATE INDEX.
CREATE INDEX "rule_match_stat_refailed_idx" ON "rule_match_stat"("at") WHERE "failed_after_replay" > 0;
