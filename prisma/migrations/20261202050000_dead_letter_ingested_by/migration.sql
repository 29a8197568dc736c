-- Who sent a record: the user behind the API token or session that POSTed it (a producer's view lists its own
-- records). Null for records pulled from a broker, captured by the system or imported with the CLI (no user).
-- No foreign key: a check per COPY row on ingest's hot path, and a removed user's records keep the id they had.
ALTER TABLE "dead_letter" ADD COLUMN "ingested_by" TEXT;

-- A producer's records, newest observation first, and its counts by status and reason.
CREATE INDEX "dead_letter_ingested_by_idx" ON "dead_letter" ("ingested_by", "observed_at", "id") WHERE "ingested_by" IS NOT NULL;
