-- Observation times to the microsecond, as producers send them (Python's isoformat() writes microseconds) and
-- as PostgreSQL's timestamptz holds them: at milliseconds, two readings of one entity 0.4 ms apart tied, so the
-- newer could not replace the older in entity_state, and the stored time no longer matched the producer's.
-- Raising a timestamptz's precision does not rewrite the table (PostgreSQL 12+: the stored values are already
-- microseconds; only the rounding on input changes), but PostgreSQL rebuilds the partial indexes that involve
-- the column (dead_letter_view_idx, dead_letter_device_observed_idx: ~0.8 s per 200k rows) and forgets the
-- column's statistics, which the ANALYZE at the end gives back (without them a one-day range was estimated at
-- 1,000 rows against 70,000, and autovacuum would not notice: no row changed).

-- AlterTable
ALTER TABLE "dead_letter" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "entity_state" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "ledger_entry" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "replay_item" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- Statistics for the altered columns (see above).
ANALYZE "dead_letter" ("observed_at");
ANALYZE "entity_state" ("observed_at");
ANALYZE "ledger_entry" ("observed_at");
ANALYZE "replay_item" ("observed_at");
