-- Two more indexes ingest no longer writes: (entity_key, observed_at) answered no query (replay orders entities
-- through replay_item), and retention's queue holds only replayed/purged records, which is all retention asks for
-- (lib/ops/retention.ts), so records arriving or under triage are never in it.

-- DropIndex
DROP INDEX "dead_letter_entity_observed_idx";

-- DropIndex
DROP INDEX "dead_letter_retention_idx";

-- CreateIndex
CREATE INDEX "dead_letter_retention_idx" ON "dead_letter"("status", "updated_at", "id") WHERE ((status = ANY (ARRAY['replayed'::"DeadLetterStatus", 'purged'::"DeadLetterStatus"])) AND ((payload IS NOT NULL) OR (raw_envelope IS NOT NULL)));
