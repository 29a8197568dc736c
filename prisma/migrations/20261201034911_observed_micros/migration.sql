-- Observation times to the microsecond, as producers send them (Python's isoformat() writes microseconds) and
-- as PostgreSQL's timestamptz holds them: at milliseconds, two readings of one entity 0.4 ms apart tied, so the
-- newer could not replace the older in entity_state, and the stored time no longer matched the producer's.
-- Raising a timestamptz's precision does not rewrite the table (PostgreSQL 12+: the stored values are already
-- microseconds; only the rounding on input changes).

-- AlterTable
ALTER TABLE "dead_letter" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "entity_state" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "ledger_entry" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "replay_item" ALTER COLUMN "observed_at" SET DATA TYPE TIMESTAMPTZ(6);
