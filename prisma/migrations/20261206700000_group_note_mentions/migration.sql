-- A failure group's note names users by @handle like a record's note: who it mentioned, resolved when written,
-- so "Mentions of you" lists group notes too.
ALTER TABLE "failure_group_note" ADD COLUMN "mentions" TEXT[] DEFAULT ARRAY[]::TEXT[];

CREATE INDEX "failure_group_note_mentions_idx" ON "failure_group_note" USING GIN ("mentions");
