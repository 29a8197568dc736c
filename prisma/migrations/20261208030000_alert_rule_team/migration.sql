-- Alert rules per team (lib/ops/alerts): a team's rule is evaluated over that team's records and seen, with its
-- values and events, by its members; a rule with no team is company-wide (an unscoped admin's or supervisor's).
-- alert_rule holds a handful of rows: the plain index and the validated foreign key cost nothing.
ALTER TABLE "alert_rule" ADD COLUMN "team_id" BIGINT;
ALTER TABLE "alert_rule" ADD CONSTRAINT "alert_rule_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "alert_rule_team_idx" ON "alert_rule"("team_id");
