import { describe, expect, it } from "vitest";
import { TtlCache } from "./view-counts";

describe("TtlCache", () => {
  it("serves a value until it is ttl old, then computes again", async () => {
    const cache = new TtlCache<number>(1000);
    let calls = 0;
    const count = () => Promise.resolve(++calls);
    expect(await cache.get("a", 0, count)).toBe(1);
    expect(await cache.get("a", 999, count)).toBe(1);
    expect(await cache.get("b", 999, count)).toBe(2);
    expect(await cache.get("a", 1000, count)).toBe(3);
  });
  it("shares a count still running and forgets one that failed", async () => {
    const cache = new TtlCache<number>(1000);
    let calls = 0;
    const slow = () => new Promise<number>((r) => setTimeout(() => r(++calls), 5));
    const [x, y] = await Promise.all([cache.get("a", 0, slow), cache.get("a", 1, slow)]);
    expect([x, y, calls]).toEqual([1, 1, 1]);
    await expect(cache.get("f", 0, () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(await cache.get("f", 1, () => Promise.resolve(7))).toBe(7);
  });
});
