import { describe, expect, it } from "vitest";
import { applyGroupPatch, groupsFromCells, sortGroups, type GroupCell, type GroupState } from "./group-rules";
import { GroupPatchSchema, type FailureGroupView } from "../contract/groups";

const now = new Date("2026-12-02T12:00:00Z");
const open: GroupState = {
  status: "open",
  ownerId: null,
  resolutionReason: null,
  resolutionLink: null,
  resolvedAt: null,
  regression: false,
};

describe("applyGroupPatch", () => {
  it("resolving records why and when; leaving resolved forgets it", () => {
    const resolved = applyGroupPatch(open, { status: "resolved", resolution: { reason: "fixed in 4.2", link: "https://x/4.2" } }, now);
    expect(resolved).toEqual({
      ...open,
      status: "resolved",
      resolutionReason: "fixed in 4.2",
      resolutionLink: "https://x/4.2",
      resolvedAt: now,
    });
    expect(applyGroupPatch(resolved!, { status: "acknowledged" }, now)).toEqual({ ...open, status: "acknowledged" });
  });

  it("any status change clears the regression mark; an owner change alone keeps it", () => {
    const regressed: GroupState = { ...open, regression: true, resolutionReason: "fixed", resolvedAt: now };
    expect(applyGroupPatch(regressed, { status: "acknowledged" }, now)).toMatchObject({ regression: false, resolutionReason: null });
    expect(applyGroupPatch(regressed, { owner: "u-1" }, now)).toMatchObject({ regression: true, ownerId: "u-1" });
  });

  it("returns null when nothing changes (same status, same owner)", () => {
    expect(applyGroupPatch(open, { status: "open" }, now)).toBeNull();
    expect(applyGroupPatch({ ...open, ownerId: "u-1" }, { owner: "u-1" }, now)).toBeNull();
    expect(applyGroupPatch({ ...open, ownerId: "u-1" }, { owner: null }, now)).toEqual(open);
  });
});

describe("GroupPatchSchema", () => {
  const issues = (v: unknown) => {
    const r = GroupPatchSchema.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
  };
  it("resolving needs a reason; a resolution goes with resolved; the link is http(s)", () => {
    expect(issues({ status: "resolved" })).toEqual(["resolution"]);
    expect(issues({ status: "ignored", resolution: { reason: "x" } })).toEqual(["resolution"]);
    expect(issues({ status: "resolved", resolution: { reason: "x", link: "javascript:alert(1)" } })).toEqual(["resolution.link"]);
    expect(issues({ status: "resolved", resolution: { reason: "  " } })).toEqual(["resolution.reason"]);
    expect(issues({ status: "resolved", resolution: { reason: "x", link: "https://example.com/1" } })).toEqual([]);
  });
  it("refuses an empty change and unknown members", () => {
    expect(issues({})).toEqual([""]);
    expect(issues({ version: 3 })).toEqual([""]);
    expect(issues({ stauts: "open" }).length).toBeGreaterThan(0);
  });
});

describe("groupsFromCells and sortGroups", () => {
  const cell = (id: string, status: string, day: string, n: number): GroupCell => ({
    id,
    source: "s",
    reasonGroup: `r-${id}`,
    status,
    day,
    n,
  });
  const row = (id: string, first: string, last: string) => ({
    id,
    source: "s",
    reasonGroup: `r-${id}`,
    status: "open" as const,
    owner: null,
    regression: false,
    regressedAt: null,
    resolution: null,
    firstSeenAt: first,
    lastSeenAt: last,
    version: 1,
  });

  it("sums counts, unresolved and a zero-filled trend; old days count but are not in the trend", () => {
    const [g] = groupsFromCells(
      [cell("a", "pending", "2026-12-02", 2), cell("a", "replayed", "2026-12-01", 3), cell("a", "quarantined", "", 4)],
      [row("a", "2026-10-01T00:00:00Z", "2026-12-02T10:00:00Z")],
      now,
    );
    expect(g).toMatchObject({ id: "a", count: 9, unresolved: 6 });
    expect(g!.trend).toHaveLength(14);
    expect(g!.trend.slice(-2)).toEqual([
      { day: "2026-12-01", count: 3 },
      { day: "2026-12-02", count: 2 },
    ]);
  });

  it("a group with records but no row is open and untracked; groups without records are left out", () => {
    const gs = groupsFromCells([cell("b", "pending", "2026-12-02", 1), cell("c", "pending", "2026-12-02", 0)], [], now);
    expect(gs).toHaveLength(1);
    expect(gs[0]).toMatchObject({ id: "b", status: "open", firstSeenAt: null, lastSeenAt: null });
  });

  it("sorts by latest arrival, size or age, untracked times last", () => {
    const gs = groupsFromCells(
      [
        cell("a", "pending", "2026-12-02", 1),
        cell("b", "pending", "2026-12-02", 5),
        cell("c", "pending", "2026-12-02", 3),
        cell("d", "pending", "2026-12-02", 2),
      ],
      [
        row("a", "2026-11-01T00:00:00Z", "2026-12-02T11:00:00Z"),
        row("b", "2026-11-20T00:00:00Z", "2026-12-01T00:00:00Z"),
        row("c", "2026-10-01T00:00:00Z", "2026-12-02T09:00:00Z"),
      ],
      now,
    );
    const ids = (x: FailureGroupView[]) => x.map((g) => g.id);
    expect(ids(sortGroups(gs, "new"))).toEqual(["a", "c", "b", "d"]);
    expect(ids(sortGroups(gs, "size"))).toEqual(["b", "c", "d", "a"]);
    expect(ids(sortGroups(gs, "age"))).toEqual(["c", "a", "b", "d"]);
  });
});
