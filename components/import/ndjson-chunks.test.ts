import { describe, expect, it } from "vitest";
import { lineEnds, ndjsonRanges, type ByteRange } from "./ndjson-chunks";

async function ranges(text: string, target: number): Promise<ByteRange[]> {
  const out: ByteRange[] = [];
  for await (const r of ndjsonRanges(new Blob([text]), target)) out.push(r);
  return out;
}

describe("ndjsonRanges", () => {
  it("cuts at the first line end at or past the target, never inside a line, and covers the whole file", async () => {
    const text = "aaaa\nbb\ncccccc\nd\n";
    expect(await ranges(text, 5)).toEqual([
      { start: 0, end: 5 },
      { start: 5, end: 15 },
      { start: 15, end: 17 },
    ]);
    expect(await ranges(text, 1000)).toEqual([{ start: 0, end: 17 }]);
    expect(await ranges(text, 1)).toEqual([
      { start: 0, end: 5 },
      { start: 5, end: 8 },
      { start: 8, end: 15 },
      { start: 15, end: 17 },
    ]);
  });

  it("keeps a last line without a line end, and gives nothing for an empty file", async () => {
    expect(await ranges("a\nbbb", 1)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 5 },
    ]);
    expect(await ranges("", 10)).toEqual([]);
  });

  it("finds line ends across the stream's buffers (a file of several chunks)", async () => {
    const line = `${"x".repeat(99)}\n`;
    const text = line.repeat(3000); // 300 kB: more than one buffer of Blob.stream()
    const out = await ranges(text, 64 * 1024);
    expect(out[0]?.start).toBe(0);
    expect(out.at(-1)?.end).toBe(text.length);
    for (const [i, r] of out.entries()) {
      if (i > 0) expect(r.start).toBe(out[i - 1]?.end);
      expect(text[r.end - 1]).toBe("\n");
      if (i < out.length - 1) expect(r.end - r.start).toBeGreaterThanOrEqual(64 * 1024);
      expect(r.end - r.start).toBeLessThan(64 * 1024 + 100);
    }
  });

  it("counts a slice's line ends, blank lines included, so line numbers run on across slices", () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    expect(lineEnds(enc("a\n\n\nb\n"))).toBe(4);
    expect(lineEnds(enc("a\nbbb"))).toBe(1);
    expect(lineEnds(enc(""))).toBe(0);
  });
});
