-- AlterTable
ALTER TABLE "rule_job" ADD COLUMN     "heartbeat_at" TIMESTAMPTZ(3),
ADD COLUMN     "locked_by" TEXT;
