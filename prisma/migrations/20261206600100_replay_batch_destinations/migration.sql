-- A batch back to origin keeps, from its creation, every distinct destination its records go to with their counts,
-- so the supervisor who approves it sees where the messages will be published.
ALTER TABLE "replay_batch" ADD COLUMN "destinations" JSONB;
