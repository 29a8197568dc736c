import "server-only";
import type pg from "pg";
import type { AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { failureGroupId } from "./group-id";

// The store step's part in failure groups (lib/dead-letters/store/write-records.ts), inside its transaction:
// a page's arrivals mark their groups as seen, and a resolved group that receives one reopens as a regression.
// Two statements per page whatever its size, keyed by the groups' primary key; most pages touch a handful of
// groups. Both run after the previous batch of the stream has committed and before the audit chain's lock, the
// order PATCH /api/groups/{id} takes them in too (group row, then chain): concurrent batches and analysts wait
// for each other but cannot deadlock.

export interface GroupArrivals {
  /** (id, source, reason group) of each group, once */
  ids: string[];
  sources: string[];
  reasonGroups: string[];
}

/** Collects the distinct groups of a page's records. */
export function arrivalsOf(records: Iterable<{ source: string; reasonGroup: string }>): GroupArrivals {
  const seen = new Set<string>();
  const out: GroupArrivals = { ids: [], sources: [], reasonGroups: [] };
  for (const r of records) {
    const k = `${r.source}\u0000${r.reasonGroup}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.ids.push(failureGroupId(r.source, r.reasonGroup));
    out.sources.push(r.source);
    out.reasonGroups.push(r.reasonGroup);
  }
  return out;
}

/**
 * Reopens the resolved groups among the arrivals (status open, regression mark) and records the arrivals' time
 * on every group, creating the rows of new groups. Returns the audit events of the reopenings, for the caller's
 * chain append. Rows are locked in id order (ORDER BY in both statements), so two pages cannot deadlock.
 */
export async function recordGroupArrivals(
  client: pg.PoolClient,
  arrivals: GroupArrivals,
  ctx: { now: Date; actor: Actor; requestId: string | null },
): Promise<AuditInput[]> {
  if (arrivals.sources.length === 0) return [];
  const reopened = await client.query<{
    id: string;
    source: string;
    reason_group: string;
    resolution_reason: string | null;
    resolved_at: Date | null;
  }>(
    `WITH target AS (SELECT id FROM failure_group WHERE id = ANY($1::text[]) AND status = 'resolved' ORDER BY id FOR UPDATE)
     UPDATE failure_group g SET status = 'open', regression = true, regressed_at = $2, last_seen_at = greatest(g.last_seen_at, $2),
       updated_at = $2, version = g.version + 1
     FROM target WHERE g.id = target.id AND g.status = 'resolved'
     RETURNING g.id, g.source, g.reason_group, g.resolution_reason, g.resolved_at`,
    [arrivals.ids, ctx.now],
  );
  await client.query(
    `INSERT INTO failure_group (id, source, reason_group, first_seen_at, last_seen_at)
     SELECT a.id, a.source, a.reason_group, $4, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS a(id, source, reason_group)
     ORDER BY 1
     ON CONFLICT (id) DO UPDATE SET last_seen_at = greatest(failure_group.last_seen_at, EXCLUDED.last_seen_at)`,
    [arrivals.ids, arrivals.sources, arrivals.reasonGroups, ctx.now],
  );
  return reopened.rows.map((r) => ({
    ...auditActor(ctx.actor, ctx.requestId),
    action: "failure_group.reopened",
    targetType: "failure_group",
    targetId: r.id,
    reason: "new records arrived in a resolved group (regression)",
    before: {
      source: r.source,
      reasonGroup: r.reason_group,
      status: "resolved",
      resolution: r.resolution_reason,
      resolvedAt: r.resolved_at?.toISOString() ?? null,
    },
    after: { source: r.source, reasonGroup: r.reason_group, status: "open", regression: true },
  }));
}
