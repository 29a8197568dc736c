-- A pulled message is known by its position AND its body's SHA-256: a position that comes back with another body
-- (a re-created stream or topic, a reused producer id) is another dead letter, stored, never acknowledged away.
-- Rows written before this column existed keep '' ("body not recorded"), which matches any body as before.
ALTER TABLE "source_message" ADD COLUMN "body_hash" TEXT NOT NULL DEFAULT '';
ALTER TABLE "source_message" ALTER COLUMN "body_hash" DROP DEFAULT;
ALTER TABLE "source_message" DROP CONSTRAINT "source_message_pkey";
ALTER TABLE "source_message" ADD CONSTRAINT "source_message_pkey" PRIMARY KEY ("source", "position", "body_hash");

-- Positions now end in the message instance ("ORDERS:3@2026-12-06T17:00:00.123456789Z"): an investigator pastes
-- the part the broker's tools show, found by prefix. text_pattern_ops serves LIKE 'prefix%' under any collation,
-- and equality as before.
DROP INDEX "source_message_position_idx";
CREATE INDEX "source_message_position_idx" ON "source_message"("position" text_pattern_ops);
