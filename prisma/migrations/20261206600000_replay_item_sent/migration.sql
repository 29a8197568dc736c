-- What a replay sent, kept on its item for good: the repair (settings, where they came from, what it did) and,
-- when the repair changed the geometry, the geometry delivered. The record's page, API and exports read it after
-- the replay, whatever the record's own approval fields say by then.
ALTER TABLE "replay_item" ADD COLUMN "sent" JSONB;
