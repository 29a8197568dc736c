import { describe, expect, it } from "vitest";
import { chunkRecords, CHUNK } from "./seed-chunks";

const texts = (seed: number, count: number, chunks: number[]) => [...chunkRecords(seed, count, chunks, [])].map((r) => r.text);

describe("demo records", () => {
  it("are the same for the same seed and count", () => {
    expect(texts(42, 300, [0])).toEqual(texts(42, 300, [0]));
    expect(texts(42, 300, [0])).not.toEqual(texts(43, 300, [0]));
  });

  it("do not depend on which worker generates which chunk", () => {
    const count = CHUNK + 50;
    const together = [...chunkRecords(7, count, [0, 1], [])];
    const apart = [...chunkRecords(7, count, [1], []), ...chunkRecords(7, count, [0], [])].sort((a, b) => a.index - b.index);
    expect(apart).toEqual(together);
  });

  it("cover every failure kind the demo promises", () => {
    const all = texts(42, 3000, [0]).join("\n");
    for (const needle of [
      "Polygn",
      "EPSG:3857",
      '"geometry":null',
      "battery_pct",
      "card_pan",
      "Hole lies outside shell",
      "Nested shells",
      "503",
    ]) {
      expect(all).toContain(needle);
    }
    expect(texts(42, 3000, [0]).some((t) => t.includes('"kind":"afc"') && !t.includes("event_id"))).toBe(true);
  });
});
