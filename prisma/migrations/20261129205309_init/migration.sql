-- CreateEnum
CREATE TYPE "DeadLetterKind" AS ENUM ('spatial', 'afc');

-- CreateEnum
CREATE TYPE "FailureClass" AS ENUM ('transient', 'transient_schema', 'poison');

-- CreateEnum
CREATE TYPE "DeadLetterStatus" AS ENUM ('pending', 'approved', 'quarantined', 'replayed', 'purged');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('analyst', 'supervisor', 'auditor', 'admin', 'producer');

-- CreateEnum
CREATE TYPE "ReplayBatchStatus" AS ENUM ('draft', 'approved', 'running', 'paused', 'completed', 'cancelled', 'failed');

-- CreateEnum
CREATE TYPE "ReplayItemStatus" AS ENUM ('pending', 'running', 'retry', 'applied', 'deduped', 'dropped', 'poison', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "dead_letter" (
    "id" BIGSERIAL NOT NULL,
    "kind" "DeadLetterKind" NOT NULL,
    "source" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "entity_key" TEXT,
    "event_id" TEXT,
    "device_id" TEXT,
    "source_message_id" TEXT,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "raw_envelope" TEXT,
    "payload" JSONB,
    "first_failure_reason" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "reason_group" TEXT NOT NULL,
    "failure_class" "FailureClass" NOT NULL,
    "class_reason" TEXT,
    "status" "DeadLetterStatus" NOT NULL DEFAULT 'pending',
    "replay_count" INTEGER NOT NULL DEFAULT 0,
    "failure_count" INTEGER NOT NULL DEFAULT 1,
    "version" INTEGER NOT NULL DEFAULT 1,
    "analysis" JSONB,
    "repaired_geometry" JSONB,
    "bbox" box,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_failed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dead_letter_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "failure_attempt" (
    "id" BIGSERIAL NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "batch_id" BIGINT,

    CONSTRAINT "failure_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_event" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "actor_role" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "diff" JSONB,
    "reason" TEXT,
    "request_id" TEXT,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "email_verified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "role" "Role" NOT NULL DEFAULT 'analyst',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "ip_address" TEXT,
    "user_agent" TEXT,
    "user_id" TEXT NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "access_token" TEXT,
    "refresh_token" TEXT,
    "id_token" TEXT,
    "access_token_expires_at" TIMESTAMPTZ(3),
    "refresh_token_expires_at" TIMESTAMPTZ(3),
    "scope" TEXT,
    "password" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verification" (
    "id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_token" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "replay_batch" (
    "id" BIGSERIAL NOT NULL,
    "status" "ReplayBatchStatus" NOT NULL DEFAULT 'draft',
    "created_by_id" TEXT NOT NULL,
    "approved_by_id" TEXT,
    "sink" JSONB NOT NULL,
    "selection" JSONB NOT NULL,
    "rate_per_second" DOUBLE PRECISION NOT NULL,
    "page_size" INTEGER NOT NULL DEFAULT 100,
    "max_replays" INTEGER NOT NULL DEFAULT 3,
    "repair_method" TEXT NOT NULL DEFAULT 'linework',
    "repair_policy" TEXT NOT NULL DEFAULT 'accept',
    "max_attempts" INTEGER NOT NULL DEFAULT 5,
    "failure_threshold" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "total" INTEGER NOT NULL DEFAULT 0,
    "status_reason" TEXT,
    "tat" TIMESTAMPTZ(6),
    "throttle" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "approved_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "replay_batch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "replay_item" (
    "id" BIGSERIAL NOT NULL,
    "batch_id" BIGINT NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" "DeadLetterKind" NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "entity_key" TEXT,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "snapshot" JSONB NOT NULL,
    "status" "ReplayItemStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "submitted_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "replay_item_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entry" (
    "idempotency_key" TEXT NOT NULL,
    "kind" "DeadLetterKind" NOT NULL,
    "entity_key" TEXT,
    "observed_at" TIMESTAMPTZ(3),
    "applied_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "batch_id" BIGINT,
    "item_id" BIGINT,
    "dead_letter_id" BIGINT,
    "origin" TEXT NOT NULL DEFAULT 'replay',

    CONSTRAINT "ledger_entry_pkey" PRIMARY KEY ("idempotency_key")
);

-- CreateTable
CREATE TABLE "entity_state" (
    "kind" "DeadLetterKind" NOT NULL,
    "entity_key" TEXT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "entity_state_pkey" PRIMARY KEY ("kind","entity_key")
);

-- CreateTable
CREATE TABLE "worker" (
    "id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "worker_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "source_config" (
    "source" TEXT NOT NULL,
    "repair_method" TEXT NOT NULL DEFAULT 'linework',
    "repair_policy" TEXT NOT NULL DEFAULT 'accept',
    "entity_property" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "source_config_pkey" PRIMARY KEY ("source")
);

-- CreateTable
CREATE TABLE "alert_rule" (
    "id" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "window_minutes" INTEGER NOT NULL DEFAULT 60,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "webhook_url" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_event" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" TEXT NOT NULL,
    "fired_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "value" DOUBLE PRECISION NOT NULL,
    "message" TEXT NOT NULL,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dead_letter_observed_idx" ON "dead_letter"("observed_at", "id");

-- CreateIndex
CREATE INDEX "dead_letter_status_observed_idx" ON "dead_letter"("status", "observed_at", "id");

-- CreateIndex
CREATE INDEX "dead_letter_kind_observed_idx" ON "dead_letter"("kind", "observed_at", "id");

-- CreateIndex
CREATE INDEX "dead_letter_class_observed_idx" ON "dead_letter"("failure_class", "observed_at", "id");

-- CreateIndex
CREATE INDEX "dead_letter_source_observed_idx" ON "dead_letter"("source", "observed_at", "id");

-- CreateIndex
CREATE INDEX "dead_letter_reason_group_observed_idx" ON "dead_letter"("reason_group", "observed_at", "id");

-- CreateIndex
CREATE INDEX "dead_letter_key_idx" ON "dead_letter"("idempotency_key");

-- CreateIndex
CREATE INDEX "dead_letter_event_id_idx" ON "dead_letter"("event_id");

-- CreateIndex
CREATE INDEX "dead_letter_device_observed_idx" ON "dead_letter"("device_id", "observed_at");

-- CreateIndex
CREATE INDEX "dead_letter_source_message_idx" ON "dead_letter"("source_message_id");

-- CreateIndex
CREATE INDEX "dead_letter_entity_observed_idx" ON "dead_letter"("entity_key", "observed_at");

-- CreateIndex
CREATE INDEX "dead_letter_bbox_idx" ON "dead_letter" USING GIST ("bbox" box_ops);

-- CreateIndex
CREATE UNIQUE INDEX "dead_letter_kind_key_key" ON "dead_letter"("kind", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "failure_attempt_dead_letter_id_attempt_key" ON "failure_attempt"("dead_letter_id", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "audit_event_hash_key" ON "audit_event"("hash");

-- CreateIndex
CREATE INDEX "audit_event_target_idx" ON "audit_event"("target_type", "target_id", "id");

-- CreateIndex
CREATE INDEX "audit_event_actor_idx" ON "audit_event"("actor_id", "id");

-- CreateIndex
CREATE INDEX "audit_event_action_idx" ON "audit_event"("action", "at");

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_key" ON "session"("token");

-- CreateIndex
CREATE INDEX "session_user_id_idx" ON "session"("user_id");

-- CreateIndex
CREATE INDEX "account_user_id_idx" ON "account"("user_id");

-- CreateIndex
CREATE INDEX "verification_identifier_idx" ON "verification"("identifier");

-- CreateIndex
CREATE UNIQUE INDEX "api_token_token_hash_key" ON "api_token"("token_hash");

-- CreateIndex
CREATE INDEX "api_token_user_id_idx" ON "api_token"("user_id");

-- CreateIndex
CREATE INDEX "replay_batch_status_idx" ON "replay_batch"("status", "id");

-- CreateIndex
CREATE INDEX "replay_item_claim_idx" ON "replay_item"("batch_id", "status", "seq");

-- CreateIndex
CREATE INDEX "replay_item_entity_idx" ON "replay_item"("batch_id", "entity_key", "seq");

-- CreateIndex
CREATE INDEX "replay_item_lease_idx" ON "replay_item"("locked_until");

-- CreateIndex
CREATE INDEX "replay_item_dead_letter_idx" ON "replay_item"("dead_letter_id");

-- CreateIndex
CREATE UNIQUE INDEX "replay_item_batch_id_seq_key" ON "replay_item"("batch_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "replay_item_batch_id_dead_letter_id_key" ON "replay_item"("batch_id", "dead_letter_id");

-- CreateIndex
CREATE INDEX "ledger_entry_batch_idx" ON "ledger_entry"("batch_id");

-- CreateIndex
CREATE INDEX "alert_event_rule_idx" ON "alert_event"("rule_id", "fired_at");

-- AddForeignKey
ALTER TABLE "failure_attempt" ADD CONSTRAINT "failure_attempt_dead_letter_id_fkey" FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letter"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account" ADD CONSTRAINT "account_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_token" ADD CONSTRAINT "api_token_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "replay_item" ADD CONSTRAINT "replay_item_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "replay_batch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "replay_item" ADD CONSTRAINT "replay_item_dead_letter_id_fkey" FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letter"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_event" ADD CONSTRAINT "alert_event_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rule"("id") ON DELETE CASCADE ON UPDATE CASCADE;
