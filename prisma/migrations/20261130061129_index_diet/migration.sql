-- Ingest writes every index of dead_letter for every record, ~4 µs each (bench:ingest): indexes over columns one
-- kind never fills now leave that kind's rows out, and the idempotency key loses its separate index — the unique
-- (kind, idempotency_key) index answers `kind = ANY (both kinds) AND idempotency_key = …` (keyMatch in
-- lib/dead-letters/query/where.ts). Every query on these columns compares with `=`, a range or `&&`, which imply
-- IS NOT NULL, so the partial indexes serve them all.

-- DropIndex
DROP INDEX "dead_letter_device_observed_idx";

-- DropIndex
DROP INDEX "dead_letter_event_id_idx";

-- DropIndex
DROP INDEX "dead_letter_key_idx";

-- DropIndex
DROP INDEX "dead_letter_source_message_idx";

-- CreateIndex
CREATE INDEX "dead_letter_event_id_idx" ON "dead_letter"("event_id") WHERE (event_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "dead_letter_device_observed_idx" ON "dead_letter"("device_id", "observed_at") WHERE (device_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "dead_letter_source_message_idx" ON "dead_letter"("source_message_id") WHERE (source_message_id IS NOT NULL);

-- The viewport GiST: AFC records have no box (SQL-only: Prisma cannot express INCLUDE; see SQL_ONLY_INDEXES).
DROP INDEX "dead_letter_view_idx";
CREATE INDEX "dead_letter_view_idx" ON "dead_letter" USING GIST ("bbox" box_ops)
  INCLUDE ("observed_at", "id", "status", "failure_class", "source", "reason_group") WHERE ("bbox" IS NOT NULL);
