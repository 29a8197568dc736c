-- Pull now as a request any runtime can take (lib/sources/pull-requests.ts): the asker waits for its answer.
CREATE TABLE "source_pull_request" (
    "id" BIGSERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "max" INTEGER,
    "actor" JSONB NOT NULL,
    "request_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'waiting',
    "claimed_by" TEXT,
    "claimed_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "pulled" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "duplicates" INTEGER NOT NULL DEFAULT 0,
    "unreadable" INTEGER NOT NULL DEFAULT 0,
    "failed_again" INTEGER NOT NULL DEFAULT 0,
    "result" JSONB,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "source_pull_request_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "source_pull_request_status_id_idx" ON "source_pull_request"("status", "id");
