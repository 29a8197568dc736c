-- A failure that changed nothing on its record: the record's key sent again, before any replay, by a sender other
-- than the one that stored it (another producer, a broker pull or the CLI for a producer's record). Who sent it,
-- for the analysts ("the same key was also sent by …"); null for every failure that counts. Such failures spend
-- no retry budget (lib/dead-letters/store/repeat-failure.ts decideKnownKey).
ALTER TABLE "failure_attempt" ADD COLUMN "also_sent_by" TEXT;
