import { describe, expect, it } from "vitest";
import { viewQuery } from "./contract/views";
import {
  chooserRows,
  columnsFromParam,
  DEFAULT_COLUMNS,
  LIST_COLUMN_IDS,
  ListColumnsSchema,
  moveColumn,
  readColumns,
  toggleColumn,
} from "./list-columns";

describe("the list's column ids", () => {
  it("accepts known ids in any order and refuses an unknown one or a repeat, naming it", () => {
    expect(ListColumnsSchema.parse(["status", "kind"])).toEqual(["status", "kind"]);
    expect(ListColumnsSchema.parse([])).toEqual([]);
    const unknown = ListColumnsSchema.safeParse(["kind", "payload"]);
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0]?.path).toEqual([1]);
    expect(unknown.error?.issues[0]?.message).toContain('"payload"');
    expect(ListColumnsSchema.safeParse(["kind", "kind"]).success).toBe(false);
    expect(ListColumnsSchema.safeParse(["select"]).success).toBe(false);
  });

  it("reads a stale or edited list leniently: unknown and repeated ids dropped, nothing left is the default", () => {
    expect(readColumns(["reason", "gone", "reason", "kind"])).toEqual(["reason", "kind"]);
    expect(readColumns(["gone"])).toEqual([...DEFAULT_COLUMNS]);
    expect(readColumns(null)).toEqual([...DEFAULT_COLUMNS]);
    expect(columnsFromParam(null)).toBeNull();
    expect(columnsFromParam("status,reason")).toEqual(["status", "reason"]);
  });
});

describe("column chooser edits", () => {
  it("hides a column, and shows it again at its default place among the shown ones", () => {
    const shown = toggleColumn([...DEFAULT_COLUMNS], "source");
    expect(shown).not.toContain("source");
    expect(toggleColumn(shown, "source")).toEqual([...DEFAULT_COLUMNS]);
    // After a reorder the default place is relative: before the first shown column that comes later by default.
    expect(toggleColumn(["reason", "kind"], "status")).toEqual(["reason", "kind", "status"]);
    expect(toggleColumn(["status", "kind"], "source")).toEqual(["source", "status", "kind"]);
  });

  it("keeps the last shown column", () => {
    expect(toggleColumn(["reason"], "reason")).toEqual(["reason"]);
  });

  it("moves a column left or right, and not past an end", () => {
    expect(moveColumn(["kind", "reason", "status"], "status", -1)).toEqual(["kind", "status", "reason"]);
    expect(moveColumn(["kind", "reason", "status"], "kind", 1)).toEqual(["reason", "kind", "status"]);
    expect(moveColumn(["kind", "reason"], "kind", -1)).toEqual(["kind", "reason"]);
    expect(moveColumn(["kind", "reason"], "reason", 1)).toEqual(["kind", "reason"]);
    expect(moveColumn(["kind"], "status", 1)).toEqual(["kind"]);
  });

  it("lists the shown columns in their order, then the hidden ones", () => {
    const rows = chooserRows(["status", "kind"]);
    expect(rows.slice(0, 2)).toEqual([
      { id: "status", shown: true },
      { id: "kind", shown: true },
    ]);
    expect(rows).toHaveLength(LIST_COLUMN_IDS.length);
    expect(rows.slice(2).every((r) => !r.shown)).toBe(true);
  });
});

describe("a view's list URL", () => {
  it("carries its columns only when it has its own", () => {
    expect(viewQuery({ filter: "status=pending", columns: [] })).toBe("status=pending");
    expect(viewQuery({ filter: "status=pending", columns: ["reason", "kind"] })).toBe("status=pending&cols=reason,kind");
    expect(viewQuery({ filter: "", columns: ["reason"] })).toBe("cols=reason");
  });
});
