import "server-only";
import { batchInScopeSql, paramsOf, type RecordScope } from "../scope/record-scope";
import type pg from "pg";
import { hoursBetween, oldestUnresolved, poisonArrivals } from "./measures";
import { countCells, runningReplays } from "./overview";
import { renderPrometheus, type Family } from "./prometheus";
import { configuredMaskRules } from "../masking/config";
import { maskAnswer } from "../masking/answer";

// GET /api/metrics: the DLQ and the replay engine for Prometheus. Every number is read from a rollup, a
// counter column or an index-only range, so a frequent scrape stays cheap however many records there are.

type Db = pg.Pool | pg.PoolClient;

/**
 * `scope`: the scraping token's owner's records. A token of a user in teams is given their teams' numbers only (the
 * labels name no other team's source); replay totals count the batches of their records, the alert gauge their teams'
 * rules (labelled `team`), and the poison counter, kept per kind only, is left out for them.
 */
export async function prometheusMetrics(db: Db, scope: RecordScope, now: Date): Promise<string> {
  const batchValues: unknown[] = [];
  const batchScope = batchInScopeSql(scope, paramsOf(batchValues));
  const [cells, oldest, poisonHour, replays, outcomes, batches, firing, poisoned] = await Promise.all([
    countCells(db, scope),
    oldestUnresolved(db, scope),
    poisonArrivals(db, scope, new Date(now.getTime() - 3_600_000), now),
    runningReplays(db, scope, now),
    db.query<Record<"applied" | "deduped" | "dropped" | "poison" | "failed" | "cancelled", string>>(
      `SELECT coalesce(sum(applied_count), 0)::text AS applied, coalesce(sum(deduped_count), 0)::text AS deduped,
         coalesce(sum(dropped_count), 0)::text AS dropped, coalesce(sum(poison_count), 0)::text AS poison,
         coalesce(sum(failed_count), 0)::text AS failed, coalesce(sum(cancelled_count), 0)::text AS cancelled
       FROM replay_batch b WHERE ${batchScope}`,
      batchValues,
    ),
    db.query<{ status: string; n: number }>(
      `SELECT status::text AS status, count(*)::int AS n FROM replay_batch b WHERE ${batchScope} GROUP BY 1`,
      batchValues,
    ),
    db.query<{ rule_id: string; team: string | null; n: number }>(
      `SELECT r.id AS rule_id, t.name AS team, count(e.id)::int AS n
       FROM alert_rule r LEFT JOIN team t ON t.id = r.team_id LEFT JOIN alert_event e ON e.rule_id = r.id AND e.resolved_at IS NULL
       WHERE ${scope.all ? "TRUE" : "r.team_id = ANY($1::bigint[])"} GROUP BY 1, 2`,
      scope.all ? [] : [scope.teamIds],
    ),
    db.query<{ kind: string; n: string }>(
      `SELECT kind::text AS kind, sum(n)::text AS n FROM poison_stat WHERE ${scope.all ? "TRUE" : "FALSE"} GROUP BY 1 ORDER BY 1`,
    ),
  ]);
  const byCell = new Map<string, { kind: string; status: string; failure_class: string; n: number }>();
  const arrivals = new Map<string, number>();
  for (const c of cells) {
    const key = `${c.kind}|${c.status}|${c.failureClass}`;
    const cur = byCell.get(key) ?? { kind: c.kind, status: c.status, failure_class: c.failureClass, n: 0 };
    cur.n += c.n;
    byCell.set(key, cur);
    arrivals.set(c.kind, (arrivals.get(c.kind) ?? 0) + c.n);
  }
  const o = outcomes.rows[0];
  const families: Family[] = [
    {
      name: "redrive_dead_letters",
      help: "Dead letters by kind, status and failure class.",
      type: "gauge",
      samples: [...byCell.values()].map((c) => ({
        labels: { kind: c.kind, status: c.status, failure_class: c.failure_class },
        value: c.n,
      })),
    },
    {
      name: "redrive_dead_letters_arrived_total",
      help: "Dead letters ever stored, by kind (records are never deleted).",
      type: "counter",
      samples: [...arrivals].map(([kind, n]) => ({ labels: { kind }, value: n })),
    },
    {
      name: "redrive_dead_letters_poisoned_total",
      help: "Dead letters that became poison, by kind: at capture, or later (retries exhausted, an edit, the replay giving up).",
      type: "counter",
      samples: poisoned.rows.map((r) => ({ labels: { kind: r.kind }, value: Number(r.n) })),
    },
    {
      name: "redrive_poison_arrivals_last_hour",
      help: "Poison records first seen in the last hour.",
      type: "gauge",
      samples: [{ value: poisonHour }],
    },
    {
      name: "redrive_oldest_unresolved_age_seconds",
      help: "Age of the oldest pending, approved or quarantined record (0 when none).",
      type: "gauge",
      samples: [{ value: oldest ? Math.round(hoursBetween(oldest.firstSeenAt, now) * 3600) : 0 }],
    },
    {
      name: "redrive_replay_items_total",
      help: "Replay item outcomes over all batches.",
      type: "counter",
      samples: o ? (Object.entries(o) as [string, string][]).map(([outcome, n]) => ({ labels: { outcome }, value: Number(n) })) : [],
    },
    {
      name: "redrive_replay_batches",
      help: "Replay batches by status.",
      type: "gauge",
      samples: batches.rows.map((b) => ({ labels: { status: b.status }, value: b.n })),
    },
    {
      name: "redrive_replay_achieved_rate",
      help: "Submissions per second over the last 10 s, per active batch.",
      type: "gauge",
      samples: replays.map((r) => ({ labels: { batch: r.id, status: r.status }, value: r.achievedPerSecond })),
    },
    {
      name: "redrive_replay_target_rate",
      help: "Configured submissions per second, per active batch.",
      type: "gauge",
      samples: replays.map((r) => ({ labels: { batch: r.id, status: r.status }, value: r.ratePerSecond })),
    },
    {
      name: "redrive_alert_firing",
      help: "1 while the alert rule is breached (fired and not resolved).",
      type: "gauge",
      // A company-wide rule fires on every team's records: a token of a user in teams is told of its teams' rules only.
      samples: firing.rows.map((f) => ({
        labels: { rule: f.rule_id, ...(f.team === null ? {} : { team: f.team }) },
        value: f.n > 0 ? 1 : 0,
      })),
    },
  ];
  // Label values go through the same last pass as every other answer: none holds producer data today, and a
  // label added tomorrow (a source, a reason) must not be the one place a card number leaves in clear.
  return renderPrometheus(maskAnswer(families, configuredMaskRules()));
}
