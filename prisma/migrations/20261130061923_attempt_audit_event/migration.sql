-- Ingest audits one event per stored batch (listing its records) instead of one per record; each failure attempt
-- points at the event that recorded it, which is how a record's timeline finds its entry (lib/forensics/timeline.ts).
ALTER TABLE "failure_attempt" ADD COLUMN     "audit_event_id" BIGINT;
