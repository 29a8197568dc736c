import type { ItemStatus } from "../batch/batch-schemas";

// The ordering rules, stated once in code the tests can read; the claim SQL (lib/replay/engine/claim-items.ts) implements
// the same rules and an integration test holds the two together.
//  1. A batch replays oldest observation first: seq follows (observed_at, id).
//  2. For one entity, a newer observation is never submitted before an older one is finished — across all
//     workers. An item is claimable only when no earlier item of its entity is still unfinished.
//  3. The entity state keeps the newest observation (last write wins by observed_at), so a stale replay —
//     from this batch or any other — never rolls an entity back.

export const UNFINISHED_ITEM_STATUSES: readonly ItemStatus[] = ["pending", "running", "retry"];

export interface OrderedRecord {
  id: string;
  observedAt: Date;
}

/** Rule 1: oldest observation first; ties by id (numeric, as the bigint column sorts). */
export function compareReplayOrder(a: OrderedRecord, b: OrderedRecord): number {
  const t = a.observedAt.getTime() - b.observedAt.getTime();
  if (t !== 0) return t;
  const byLength = a.id.length - b.id.length;
  return byLength !== 0 ? byLength : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface QueueItem {
  seq: number;
  entityKey: string | null;
  status: ItemStatus;
  /** epoch ms before which a retry may not run */
  runAt: number;
}

/** Rule 2: the seqs a claim of `limit` items takes at `now`, in claim order. */
export function claimableSeqs(items: readonly QueueItem[], now: number, limit: number): number[] {
  const sorted = [...items].sort((a, b) => a.seq - b.seq);
  const blocked = new Set<string>();
  const out: number[] = [];
  for (const item of sorted) {
    const unfinished = UNFINISHED_ITEM_STATUSES.includes(item.status);
    const key = item.entityKey;
    const ready = (item.status === "pending" || item.status === "retry") && item.runAt <= now;
    if (ready && (key === null || !blocked.has(key)) && out.length < limit) out.push(item.seq);
    // Whatever this item's fate in this claim, a later item of its entity waits while it is unfinished.
    if (unfinished && key !== null) blocked.add(key);
  }
  return out;
}

/** Rule 3: whether an observation may replace the stored entity state. */
export function isNewer(candidate: Date, stored: Date | null): boolean {
  return stored === null || candidate.getTime() > stored.getTime();
}
