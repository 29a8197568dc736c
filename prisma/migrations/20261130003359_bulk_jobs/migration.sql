-- CreateEnum
CREATE TYPE "BulkJobStatus" AS ENUM ('running', 'completed', 'cancelled', 'failed');

-- CreateTable
CREATE TABLE "bulk_job" (
    "id" BIGSERIAL NOT NULL,
    "status" "BulkJobStatus" NOT NULL DEFAULT 'running',
    "action" TEXT NOT NULL,
    "reason" TEXT,
    "filter" JSONB NOT NULL,
    "matched" INTEGER NOT NULL,
    "ceiling" BIGINT NOT NULL,
    "cursor" BIGINT NOT NULL DEFAULT 0,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "skipped_reasons" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "actor_id" TEXT,
    "actor_email" TEXT NOT NULL,
    "actor_role" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "locked_by" TEXT,
    "heartbeat_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "bulk_job_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bulk_job_status_heartbeat_idx" ON "bulk_job"("status", "heartbeat_at");
