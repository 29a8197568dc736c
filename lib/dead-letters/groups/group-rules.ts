import type { FailureGroupView, GroupPatch, GroupSort, GroupStatus, TrendPoint } from "../contract/groups";

// The pure rules of failure groups: what a change does to a group's state, and how the rollup's cells become
// the list's groups. The SQL around them is in read-groups.ts, update-group.ts and reopen-groups.ts.

export const TREND_DAYS = 14;
/** Record statuses still waiting for someone (lib/ops/measures.ts UNRESOLVED). */
const UNRESOLVED = new Set(["pending", "approved", "quarantined"]);

export interface GroupState {
  status: GroupStatus;
  ownerId: string | null;
  resolutionReason: string | null;
  resolutionLink: string | null;
  resolvedAt: Date | null;
  regression: boolean;
}

/**
 * A change asked by a person (PATCH, CLI) applied to a group's state. Any status change clears the regression
 * mark (someone has looked at it); resolving records why and when, leaving "resolved" forgets the resolution.
 * The owner is only changed when the patch names it (null unassigns). Returns null when nothing changes.
 */
export function applyGroupPatch(current: GroupState, patch: Omit<GroupPatch, "note" | "version">, now: Date): GroupState | null {
  const next: GroupState = { ...current };
  if (patch.owner !== undefined) next.ownerId = patch.owner;
  if (patch.status !== undefined && (patch.status !== current.status || patch.status === "resolved")) {
    next.status = patch.status;
    next.regression = false;
    if (patch.status === "resolved") {
      next.resolutionReason = patch.resolution?.reason ?? null;
      next.resolutionLink = patch.resolution?.link ?? null;
      next.resolvedAt = now;
    } else {
      next.resolutionReason = null;
      next.resolutionLink = null;
      next.resolvedAt = null;
    }
  }
  const same = (Object.keys(next) as (keyof GroupState)[]).every((k) =>
    k === "resolvedAt" ? next.resolvedAt?.getTime() === current.resolvedAt?.getTime() : next[k] === current[k],
  );
  return same ? null : next;
}

/** What the audit trail keeps of a state (dates as ISO text). */
export function auditedState(s: GroupState): Record<string, unknown> {
  return {
    status: s.status,
    ownerId: s.ownerId,
    resolution: s.resolutionReason === null ? null : { reason: s.resolutionReason, link: s.resolutionLink },
    resolvedAt: s.resolvedAt?.toISOString() ?? null,
    regression: s.regression,
  };
}

/** UTC calendar days [today - days + 1, today] as YYYY-MM-DD. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** A rollup cell: records of one group with one status observed on one UTC day (dead_letter_stat summed). */
export interface GroupCell {
  id: string;
  source: string;
  reasonGroup: string;
  status: string;
  day: string;
  n: number;
}

/** What failure_group holds about a group (read-groups.ts joins the owner). */
export type GroupRow = Omit<FailureGroupView, "count" | "unresolved" | "trend">;

/**
 * Rollup cells and group rows → the groups that hold records, each with its count, unresolved count and a
 * zero-filled 14-day trend. A group with records but no row (its reason was changed by a failed replay, which
 * does not track arrivals) is open, unowned, with unknown first and last seen.
 */
export function groupsFromCells(cells: readonly GroupCell[], rows: readonly GroupRow[], now: Date): FailureGroupView[] {
  const days = lastDays(now, TREND_DAYS);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const acc = new Map<string, { base: GroupRow; count: number; unresolved: number; byDay: Map<string, number> }>();
  for (const c of cells) {
    let g = acc.get(c.id);
    if (!g) {
      const base = byId.get(c.id) ?? untracked(c);
      g = { base, count: 0, unresolved: 0, byDay: new Map() };
      acc.set(c.id, g);
    }
    g.count += c.n;
    if (UNRESOLVED.has(c.status)) g.unresolved += c.n;
    g.byDay.set(c.day, (g.byDay.get(c.day) ?? 0) + c.n);
  }
  return [...acc.values()]
    .filter((g) => g.count > 0)
    .map(({ base, count, unresolved, byDay }) => ({
      ...base,
      count,
      unresolved,
      trend: days.map((day): TrendPoint => ({ day, count: byDay.get(day) ?? 0 })),
    }));
}

function untracked(c: GroupCell): GroupRow {
  return {
    id: c.id,
    source: c.source,
    reasonGroup: c.reasonGroup,
    status: "open",
    owner: null,
    regression: false,
    regressedAt: null,
    resolution: null,
    firstSeenAt: null,
    lastSeenAt: null,
    version: 0,
  };
}

const time = (t: string | null, missing: number) => (t === null ? missing : Date.parse(t));

/**
 * new: the group that received a record most recently first · size: most records first · age: the group seen
 * first, first. Ties by size, then by id, so the order is stable between refreshes.
 */
export function sortGroups(groups: FailureGroupView[], sort: GroupSort): FailureGroupView[] {
  const tie = (a: FailureGroupView, b: FailureGroupView) => b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const by: Record<GroupSort, (a: FailureGroupView, b: FailureGroupView) => number> = {
    new: (a, b) => time(b.lastSeenAt, -Infinity) - time(a.lastSeenAt, -Infinity) || tie(a, b),
    size: tie,
    age: (a, b) => time(a.firstSeenAt, Infinity) - time(b.firstSeenAt, Infinity) || tie(a, b),
  };
  return [...groups].sort(by[sort]);
}
