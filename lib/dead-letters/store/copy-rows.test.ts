import { describe, expect, it } from "vitest";
import { copyRows } from "./write-records";

const text = (pieces: (string | Uint8Array)[]) =>
  Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p)))).toString("utf8");

describe("copyRows", () => {
  const tail = "2026-12-02T00:00:00.000Z\t2026-12-02T00:00:00.000Z\t2026-12-02T00:00:00.000Z\t\\N";

  it("writes each row with its id in front and the tail behind, in the given order, from bytes and text alike", () => {
    const records = [{ row: new TextEncoder().encode('afc\tsrc-é\t{"a":1}') }, { row: "spatial\tsrc-ü\t{}" }, { row: new Uint8Array(0) }];
    const order = [
      [1, 0],
      [0, 1],
      [2, 2],
    ] as const;
    const pieces = copyRows(order, records, [{ id: "7" }, { id: "8" }, { id: "9" }], tail);
    expect(pieces).toHaveLength(1); // short rows share one buffer
    expect(text(pieces)).toBe(`7\tspatial\tsrc-ü\t{}\t${tail}\n8\tafc\tsrc-é\t{"a":1}\t${tail}\n9\t\t${tail}\n`);
  });

  it("keeps a large row a piece of its own, written as it came, between the runs of short rows", () => {
    const big = new TextEncoder().encode(`spatial\t${"x".repeat(70_000)}`);
    const records = [{ row: "afc\ta" }, { row: big }, { row: "afc\tb" }];
    const order = [
      [0, 0],
      [1, 1],
      [2, 2],
    ] as const;
    const pieces = copyRows(order, records, [{ id: "1" }, { id: "2" }, { id: "3" }], "T");
    expect(pieces.some((p) => p === big)).toBe(true);
    expect(text(pieces)).toBe(`1\tafc\ta\tT\n2\tspatial\t${"x".repeat(70_000)}\tT\n3\tafc\tb\tT\n`);
  });
});
