-- failure_attempt is keyed by (record, attempt number), which was already unique: the surrogate id, its index and
-- its sequence call per row are gone (ingest writes one attempt per record).

-- DropIndex
DROP INDEX "failure_attempt_dead_letter_id_attempt_key";

-- AlterTable
ALTER TABLE "failure_attempt" DROP CONSTRAINT "failure_attempt_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "failure_attempt_pkey" PRIMARY KEY ("dead_letter_id", "attempt");
