import { describe, expect, it } from "vitest";
import { mapInParallel } from "./parallel";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("mapInParallel", () => {
  it("keeps the items' order and never runs more than the limit", async () => {
    let running = 0;
    let most = 0;
    const out = await mapInParallel([5, 4, 3, 2, 1, 0], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 40, 30, 20, 10, 0]);
    expect(most).toBe(2);
  });
  it("handles no items", async () => {
    expect(await mapInParallel([], 4, async () => 1)).toEqual([]);
  });
  it("rejects with the first failure and starts nothing after it", async () => {
    const started: number[] = [];
    await expect(
      mapInParallel([1, 2, 3, 4, 5], 1, async (n) => {
        started.push(n);
        await tick();
        if (n === 2) throw new Error("boom");
        return n;
      }),
    ).rejects.toThrow("boom");
    expect(started).toEqual([1, 2]);
  });
});
