import { describe, expect, it } from "vitest";
import { DIFF_VALUE_BUDGET, payloadChanges, payloadDelta } from "./payload-diff";

function ring(n: number, dx = 0): number[][] {
  return Array.from({ length: n + 1 }, (_, i) => [Number((2.35 + dx + Math.cos((2 * Math.PI * (i % n)) / n)).toFixed(6)), 48.85]);
}

describe("payloadDelta on large payloads", () => {
  it("compares a 250,000-position ring with a shifted copy in linear time, position by position up to the limit", () => {
    const before = { id: "a", geometry: { type: "Polygon", coordinates: [ring(250_000)] } };
    const after = { id: "a", geometry: { type: "Polygon", coordinates: [ring(250_000, 1e-6)] } };
    const t = performance.now();
    const { changes, truncated } = payloadChanges(before, after);
    // jsondiffpatch's LCS over these took minutes; past its cell budget the position diff goes index by index.
    expect(performance.now() - t).toBeLessThan(5_000);
    expect(truncated).toBe(true);
    expect(changes).toHaveLength(200);
    expect(changes[0]).toMatchObject({ path: "/geometry/coordinates/0/0", kind: "changed" });
    // The audit trail's delta is the coarse one: the ring replaced as one value.
    expect(payloadDelta(before, after)).toEqual({ geometry: { coordinates: [before.geometry.coordinates, after.geometry.coordinates] } });
  });

  it("finds no change between equal large payloads, and names added and removed keys", () => {
    const big = { samples: Array.from({ length: DIFF_VALUE_BUDGET + 1 }, (_, i) => i) };
    expect(payloadDelta(big, structuredClone(big))).toBeUndefined();
    const { changes } = payloadChanges({ ...big, gone: 1 }, { ...big, added: true });
    expect(changes).toEqual([
      { path: "/added", kind: "added", after: true },
      { path: "/gone", kind: "removed", before: 1 },
    ]);
  });

  it("compares large payloads by value: key order is not a change (jsonb reorders keys), a deep difference is", () => {
    const samples = Array.from({ length: DIFF_VALUE_BUDGET + 1 }, (_, i) => ({ a: i, b: [i, "x"] }));
    const reordered = samples.map(({ a, b }) => ({ b: [...b], a }));
    expect(payloadDelta({ samples }, { samples: reordered })).toBeUndefined();
    const changed = structuredClone(samples);
    changed[DIFF_VALUE_BUDGET]!.b[1] = "y";
    expect(payloadDelta({ samples }, { samples: changed })).toEqual({ samples: [samples, changed] });
    expect(payloadDelta({ samples }, { samples: samples.slice(1) })).toEqual({ samples: [samples, samples.slice(1)] });
    expect(payloadDelta({ samples: [...samples, null] }, { samples: [...samples, 0] })).toBeDefined();
  });

  it("keeps jsondiffpatch's item-level changes below the budget", () => {
    const { changes } = payloadChanges({ coordinates: [1, 2, 3] }, { coordinates: [1, 3] });
    expect(changes).toEqual([{ path: "/coordinates/1", kind: "removed", before: 2 }]);
  });
});
