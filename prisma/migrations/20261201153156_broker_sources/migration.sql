-- AlterTable
ALTER TABLE "dead_letter" ADD COLUMN     "origin" JSONB,
ADD COLUMN     "origin_message_id" TEXT,
ADD COLUMN     "origin_source" TEXT;

-- CreateTable
CREATE TABLE "source" (
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "url_sealed" TEXT NOT NULL,
    "kind" "DeadLetterKind" NOT NULL,
    "options" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "connected" BOOLEAN,
    "waiting" INTEGER,
    "waiting_at" TIMESTAMPTZ(3),
    "last_pull_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "pulled_total" BIGINT NOT NULL DEFAULT 0,
    "created_total" BIGINT NOT NULL DEFAULT 0,
    "duplicates_total" BIGINT NOT NULL DEFAULT 0,
    "unreadable_total" BIGINT NOT NULL DEFAULT 0,
    "pulled_day" DATE,
    "pulled_today" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "source_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "source_message" (
    "source" TEXT NOT NULL,
    "position" TEXT NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "pulled_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "source_message_pkey" PRIMARY KEY ("source","position")
);

-- CreateIndex
CREATE INDEX "source_message_position_idx" ON "source_message"("position");

-- CreateIndex
CREATE INDEX "source_message_dead_letter_idx" ON "source_message"("dead_letter_id");

-- CreateIndex
CREATE INDEX "dead_letter_origin_source_idx" ON "dead_letter"("origin_source", "observed_at", "id") WHERE (origin_source IS NOT NULL);

-- CreateIndex
CREATE INDEX "dead_letter_origin_message_idx" ON "dead_letter"("origin_message_id") WHERE (origin_message_id IS NOT NULL);

-- The alert for a source that cannot be reached (lib/ops/alerts): sources failing for longer than the window.
INSERT INTO "alert_rule" ("id", "name", "metric", "threshold", "window_minutes", "enabled")
VALUES ('source-down', 'A broker source cannot be reached', 'source_down', 0, 5, true)
ON CONFLICT ("id") DO NOTHING;
