-- The chain's hashes become HMACs under a key the database never holds (lib/audit/keys.ts): each event names
-- the key that made its hash, and the head names the key of the last event, so the next append knows whether
-- it must record a rotation first. NULL: an event hashed with plain SHA-256 before the chain was keyed.
ALTER TABLE "audit_event" ADD COLUMN "key_id" TEXT;

ALTER TABLE "audit_head" ADD COLUMN "key_id" TEXT;
