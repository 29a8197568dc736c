-- Four eyes below a size an admin sets: a batch of at most `replay.single_approver_limit` records may be approved
-- by the supervisor who created it. The setting lives in app_setting (one row per key, changed only through
-- lib/replay/batch/single-approver.ts, audited); a batch approved under it keeps the limit that allowed it, so its
-- view says why one person was enough. Both additions without a rewrite: a new table and a nullable column.

-- CreateTable
CREATE TABLE "app_setting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" TEXT,

    CONSTRAINT "app_setting_pkey" PRIMARY KEY ("key")
);

-- AlterTable
ALTER TABLE "replay_batch" ADD COLUMN "single_approver_limit" INTEGER;
