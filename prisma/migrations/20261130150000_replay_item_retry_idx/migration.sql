-- Items that failed and wait for their retry, per batch: GET /api/replays/{id} counts them as `failed` on every
-- poll, and only they enter this index (an item is in `retry` between a failed submission and the next one).
CREATE INDEX "replay_item_retry_idx" ON "replay_item"("batch_id") WHERE (status = 'retry'::"ReplayItemStatus");
