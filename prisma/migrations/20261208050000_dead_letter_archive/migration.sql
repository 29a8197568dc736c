-- redrive:no-transaction
-- The archive of settled records (lib/ops/archive.ts): what lookup, the timeline and dedup still need of a record
-- that left dead_letter past the archive horizon. Its timeline stays in the audit trail; the ids that find it there
-- (the capture events its failures pointed at, the replay batches that held it) are kept here, since
-- failure_attempt and replay_item rows leave with the record.
CREATE TABLE IF NOT EXISTS "dead_letter_archive" (
    "id" BIGINT NOT NULL,
    "kind" "DeadLetterKind" NOT NULL,
    "source" TEXT NOT NULL,
    "origin_source" TEXT,
    "origin_message_id" TEXT,
    "idempotency_key" TEXT,
    "entity_key" TEXT,
    "event_id" TEXT,
    "device_id" TEXT,
    "source_message_id" TEXT,
    "ingested_by" TEXT,
    "observed_at" TIMESTAMPTZ(6) NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "settled_at" TIMESTAMPTZ(3) NOT NULL,
    "archived_at" TIMESTAMPTZ(3) NOT NULL,
    "status" "DeadLetterStatus" NOT NULL,
    "failure_class" "FailureClass" NOT NULL,
    "reason" TEXT NOT NULL,
    "reason_group" TEXT NOT NULL,
    "failure_count" INTEGER NOT NULL,
    "replay_count" INTEGER NOT NULL,
    "capture_event_ids" BIGINT[] NOT NULL DEFAULT '{}',
    "replay_batch_ids" BIGINT[] NOT NULL DEFAULT '{}',
    "aliases" JSONB,

    CONSTRAINT "dead_letter_archive_pkey" PRIMARY KEY ("id")
);

-- Dedup stays exact across both tables: ingest checks a key it stored against this index (write-records.ts).
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_kind_key_key" ON "dead_letter_archive"("kind", "idempotency_key");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_event_id_idx" ON "dead_letter_archive"("event_id") WHERE "event_id" IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_device_observed_idx" ON "dead_letter_archive"("device_id", "observed_at") WHERE "device_id" IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_source_message_idx" ON "dead_letter_archive"("source_message_id") WHERE "source_message_id" IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_feature_idx" ON "dead_letter_archive"("entity_key") WHERE "kind" = 'spatial'::"DeadLetterKind";
-- A replay batch is shown to a scoped reader only when every record it held is theirs, archived ones included
-- (lib/scope/record-scope.ts batchInScopeSql): their replay_item rows are gone, their batch ids are here.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_replay_batches_idx" ON "dead_letter_archive" USING GIN ("replay_batch_ids");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_archive_origin_message_idx" ON "dead_letter_archive"("origin_message_id") WHERE "origin_message_id" IS NOT NULL;

-- The archive's queue: settled records by the time they settled (updated_at: both statuses are final). Partial,
-- so ingest and triage, which never write a settled row, do not maintain it.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "dead_letter_settled_idx" ON "dead_letter"("updated_at", "id") WHERE "status" = ANY (ARRAY['replayed'::"DeadLetterStatus", 'purged'::"DeadLetterStatus"]);
