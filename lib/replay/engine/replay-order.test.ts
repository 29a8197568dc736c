import { describe, expect, it } from "vitest";
import { claimableSeqs, compareReplayOrder, isNewer, type QueueItem } from "./replay-order";

const t = (s: number) => new Date(s * 1000);

describe("replay order", () => {
  it("is oldest observation first, ties by numeric id", () => {
    const records = [
      { id: "1", observedAt: t(100) },
      { id: "2", observedAt: t(250) },
      { id: "3", observedAt: t(150) },
      { id: "10", observedAt: t(150) },
    ];
    expect([...records].sort(compareReplayOrder).map((r) => r.id)).toEqual(["1", "3", "10", "2"]);
  });
});

describe("claimable items", () => {
  const item = (seq: number, entityKey: string | null, status: QueueItem["status"] = "pending", runAt = 0): QueueItem => ({
    seq,
    entityKey,
    status,
    runAt,
  });

  it("takes at most one item per entity, the oldest", () => {
    const items = [item(1, "a"), item(2, "a"), item(3, "b"), item(4, null), item(5, null)];
    expect(claimableSeqs(items, 0, 10)).toEqual([1, 3, 4, 5]);
  });

  it("skips an item while an earlier one of its entity is running or waiting to retry", () => {
    expect(claimableSeqs([item(1, "a", "running"), item(2, "a"), item(3, "b")], 0, 10)).toEqual([3]);
    expect(claimableSeqs([item(1, "a", "retry", 5000), item(2, "a")], 0, 10)).toEqual([]);
  });

  it("releases the next item once the earlier ones are finished, whatever their outcome", () => {
    const done = (["applied", "deduped", "dropped", "poison", "failed", "cancelled"] as const).map((s, i) => item(i + 1, "a", s));
    expect(claimableSeqs([...done, item(7, "a")], 0, 10)).toEqual([7]);
  });

  it("waits for a retry's run_at", () => {
    expect(claimableSeqs([item(1, "a", "retry", 5000)], 4999, 10)).toEqual([]);
    expect(claimableSeqs([item(1, "a", "retry", 5000)], 5000, 10)).toEqual([1]);
  });

  it("respects the limit, in seq order", () => {
    expect(claimableSeqs([item(3, "c"), item(1, "a"), item(2, "b")], 0, 2)).toEqual([1, 2]);
  });
});

describe("last write wins", () => {
  it("replaces only with a strictly newer observation", () => {
    expect(isNewer(t(200), null)).toBe(true);
    expect(isNewer(t(200), t(100))).toBe(true);
    expect(isNewer(t(100), t(200))).toBe(false);
    expect(isNewer(t(100), t(100))).toBe(false);
  });
});
