import "server-only";
import type pg from "pg";
import { redactSecrets, secretsOf } from "../../masking/url";
import { outboundFetch, refusedBy } from "../../net/outbound-guard";
import { openSecret } from "../../secrets/stored-secret";
import type { AlertNotice } from "./evaluate";

// Delivering alerts to a webhook: POST JSON, 2xx = delivered. A firing notice is retried by each evaluation
// round (once a minute) until delivered or MAX_ATTEMPTS are spent; each attempt is claimed with a conditional
// UPDATE first, so two processes never post the same notice. Resolution notices are sent once, best effort:
// the next firing says more than a lost "resolved".

export const MAX_ATTEMPTS = 10;
export const TIMEOUT_MS = 5_000;

export type Poster = (url: string, body: unknown) => Promise<{ ok: boolean; status: number }>;

export const fetchPoster: Poster = async (url, body) => {
  const res = await outboundFetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "redrive-alerts" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: "error",
  });
  await res.body?.cancel();
  return { ok: res.ok, status: res.status };
};

export function webhookBody(type: "alert.fired" | "alert.resolved", n: AlertNotice) {
  return {
    type,
    alert: {
      id: n.eventId,
      ruleId: n.ruleId,
      team: n.team,
      name: n.name,
      metric: n.metric,
      threshold: n.threshold,
      value: n.value,
      message: n.message,
      firedAt: n.firedAt,
      resolvedAt: n.resolvedAt,
    },
  };
}

interface PendingRow {
  id: string;
  rule_id: string;
  team: string | null;
  name: string;
  metric: AlertNotice["metric"];
  threshold: number;
  value: number;
  message: string;
  fired_at: Date;
  delivery_attempts: number;
  url: string | null;
}

/** Posts every undelivered firing notice of a still-open alert; returns how many were delivered. */
export async function deliverFired(pool: pg.Pool, now: Date, opts: { defaultUrl?: string | null; post?: Poster } = {}): Promise<number> {
  const post = opts.post ?? fetchPoster;
  const { rows } = await pool.query<PendingRow>(
    `SELECT e.id::text AS id, e.rule_id, t.name AS team, r.name, r.metric, r.threshold, e.value, e.message, e.fired_at, e.delivery_attempts,
       r.webhook_url AS url
     FROM alert_event e JOIN alert_rule r ON r.id = e.rule_id LEFT JOIN team t ON t.id = r.team_id
     WHERE e.delivered_at IS NULL AND e.resolved_at IS NULL AND e.delivery_attempts < $1
     ORDER BY e.id`,
    [MAX_ATTEMPTS],
  );
  let delivered = 0;
  for (const r of rows) {
    const stored = r.url ?? opts.defaultUrl ?? null;
    if (!stored) continue;
    const claim = await pool.query(
      "UPDATE alert_event SET delivery_attempts = delivery_attempts + 1 WHERE id = $1 AND delivered_at IS NULL AND delivery_attempts = $2",
      [r.id, r.delivery_attempts],
    );
    if (claim.rowCount !== 1) continue;
    const notice: AlertNotice = {
      eventId: r.id,
      ruleId: r.rule_id,
      team: r.team,
      name: r.name,
      metric: r.metric,
      threshold: r.threshold,
      value: r.value,
      message: r.message,
      firedAt: r.fired_at.toISOString(),
      resolvedAt: null,
      webhookUrl: stored,
    };
    let error: string | null = null;
    let url: string | null = null;
    try {
      url = openSecret(stored);
      const res = await post(url, webhookBody("alert.fired", notice));
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (err) {
      error = refusedBy(err)?.message ?? (err instanceof Error ? err.message : String(err));
    }
    // Shown on the alerts page to every reader: the webhook's credentials (a chat webhook's is its path) leave it.
    if (error) error = redactSecrets(error, url ? secretsOf(url, {}, { path: true }) : []);
    await pool.query("UPDATE alert_event SET delivered_at = $2, delivery_error = $3 WHERE id = $1", [r.id, error ? null : now, error]);
    if (!error) delivered++;
  }
  return delivered;
}

/** Resolution notices, one try each. */
export async function deliverResolved(notices: AlertNotice[], opts: { defaultUrl?: string | null; post?: Poster } = {}): Promise<number> {
  const post = opts.post ?? fetchPoster;
  const answers = await Promise.all(
    notices.map(async (n) => {
      const stored = n.webhookUrl ?? opts.defaultUrl;
      return stored
        ? Promise.resolve()
            .then(() => post(openSecret(stored), webhookBody("alert.resolved", n)))
            .then(
              (r) => r.ok,
              () => false,
            )
        : false;
    }),
  );
  return answers.filter(Boolean).length;
}
