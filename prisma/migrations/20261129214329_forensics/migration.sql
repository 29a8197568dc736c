-- AlterTable
ALTER TABLE "alert_event" ADD COLUMN     "delivery_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "delivery_error" TEXT;

-- AlterTable
ALTER TABLE "alert_rule" ADD COLUMN     "last_evaluated_at" TIMESTAMPTZ(3),
ADD COLUMN     "last_value" DOUBLE PRECISION,
ADD COLUMN     "name" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "dead_letter_first_seen_idx" ON "dead_letter"("first_seen_at", "failure_class");

-- CreateIndex
CREATE INDEX "dead_letter_status_first_seen_idx" ON "dead_letter"("status", "first_seen_at");

-- CreateIndex
CREATE INDEX "dead_letter_retention_idx" ON "dead_letter"("status", "updated_at", "id") WHERE ((payload IS NOT NULL) OR (raw_envelope IS NOT NULL));

-- Default alert rules (lib/ops/alerts): shipped here so every database has them, editable on /alerts by
-- supervisors. Thresholds are starting points: a burst of 100 poison records in an hour is a producer bug, not
-- noise; 10,000 unresolved records is weeks of triage; 72 hours is three working days before month-end close.
INSERT INTO "alert_rule" ("id", "name", "metric", "threshold", "window_minutes", "enabled")
VALUES
  ('poison-growth', 'Poison records arriving fast', 'poison_growth', 100, 60, true),
  ('dlq-size', 'Too many unresolved dead letters', 'dlq_size', 10000, 60, true),
  ('oldest-age', 'Oldest unresolved dead letter too old', 'oldest_age', 72, 60, true)
ON CONFLICT ("id") DO NOTHING;
