import { describe, expect, it } from "vitest";
import { rowsAsBytes, type Normalized } from "./normalize";
import type { PreparedRecord } from "../store/prepare-row";

const record = (row: string) => ({ row }) as unknown as PreparedRecord;

describe("rowsAsBytes", () => {
  it("encodes short rows into one shared buffer and a large row into its own, each row's bytes exactly", () => {
    const big = `spatial\t${"é".repeat(70_000)}`;
    const results: Normalized[] = [
      { index: 0, ok: true, record: record('afc\tsrc\t{"fare":275}') },
      { index: 1, ok: false, errors: [{ path: "kind", message: "bad" }] },
      { index: 2, ok: true, record: record(big) },
      { index: 3, ok: true, record: record("spatial\t𝔘nicode ü\t\\N") },
    ];
    const moved = rowsAsBytes(results);
    expect(moved).toHaveLength(2);
    const rows = results.flatMap((r) => (r.ok ? [r.record.row] : []));
    for (const row of rows) expect(row).toBeInstanceOf(Uint8Array);
    const decoded = rows.map((r) => new TextDecoder().decode(r as Uint8Array));
    expect(decoded).toEqual(['afc\tsrc\t{"fare":275}', big, "spatial\t𝔘nicode ü\t\\N"]);
    const [short, , other] = rows as Uint8Array[];
    expect(short?.buffer).toBe(other?.buffer); // shared, and only as large as the bytes written
    expect(short?.buffer.byteLength).toBe(Buffer.byteLength('afc\tsrc\t{"fare":275}') + Buffer.byteLength("spatial\t𝔘nicode ü\t\\N"));
  });

  it("moves nothing when no row is storable", () => {
    expect(rowsAsBytes([{ index: 0, ok: false, errors: [] }])).toEqual([]);
  });
});
