-- DropIndex
DROP INDEX "replay_item_claim_idx";

-- DropIndex
DROP INDEX "replay_item_entity_idx";

-- DropIndex
DROP INDEX "replay_item_lease_idx";

-- AlterTable
ALTER TABLE "ledger_entry" ALTER COLUMN "kind" DROP NOT NULL;

-- AlterTable
ALTER TABLE "replay_batch" ADD COLUMN     "applied_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cancelled_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "deduped_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "dropped_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "failed_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "poison_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "throttled_at" TIMESTAMPTZ(6),
ADD COLUMN     "window_from" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "replay_item" ADD COLUMN     "lease_losses" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "replay_item_ready_idx" ON "replay_item"("batch_id", "seq") WHERE (status = ANY (ARRAY['pending'::"ReplayItemStatus", 'retry'::"ReplayItemStatus"]));

-- CreateIndex
CREATE INDEX "replay_item_entity_idx" ON "replay_item"("batch_id", "entity_key", "seq") WHERE (status = ANY (ARRAY['pending'::"ReplayItemStatus", 'running'::"ReplayItemStatus", 'retry'::"ReplayItemStatus"]));

-- CreateIndex
CREATE INDEX "replay_item_lease_idx" ON "replay_item"("locked_until") WHERE (status = 'running'::"ReplayItemStatus");

-- CreateIndex
CREATE INDEX "replay_item_submitted_idx" ON "replay_item"("batch_id", "submitted_at") WHERE (submitted_at IS NOT NULL);
