import type pg from "pg";
import { evaluateAlerts } from "./alerts/evaluate";
import { deliverFired, deliverResolved, type Poster } from "./alerts/webhook";
import { runRetention, type RetentionResult } from "./retention";

// The forensics housekeeping loop, started next to the replay worker: every interval (default a minute) it
// strips payloads past retention and evaluates the alert rules (then delivers their webhooks). Any number of
// processes may run it: retention claims rows with SKIP LOCKED, alert evaluation takes a try-lock. A failing
// round is logged and the next one runs as usual; aborting `signal` ends the loop after the current round.

export interface MaintenanceOptions {
  pool: pg.Pool;
  signal: AbortSignal;
  now?: () => Date;
  intervalMs?: number;
  retentionDays: number;
  webhookUrl?: string | null;
  post?: Poster;
  log?: (msg: string) => void;
}

export interface RoundResult {
  retention: RetentionResult | null;
  fired: number;
  resolved: number;
  delivered: number;
}

/** One round; each step's failure is logged and does not stop the others. */
export async function maintenanceRound(opts: Omit<MaintenanceOptions, "signal">): Promise<RoundResult> {
  const now = (opts.now ?? (() => new Date()))();
  const log = opts.log ?? ((m: string) => console.error(m));
  const result: RoundResult = { retention: null, fired: 0, resolved: 0, delivered: 0 };
  try {
    result.retention = await runRetention(opts.pool, now, opts.retentionDays);
    if (result.retention.stripped > 0) log(`[maintenance] retention: stripped ${result.retention.stripped} payloads`);
  } catch (err) {
    log(`[maintenance] retention failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const evaluation = await evaluateAlerts(opts.pool, now);
    result.fired = evaluation.fired.length;
    result.resolved = evaluation.resolved.length;
    for (const n of evaluation.fired) log(`[maintenance] alert fired: ${n.message}`);
    await deliverResolved(evaluation.resolved, { defaultUrl: opts.webhookUrl ?? null, ...(opts.post ? { post: opts.post } : {}) });
    result.delivered = await deliverFired(opts.pool, now, { defaultUrl: opts.webhookUrl ?? null, ...(opts.post ? { post: opts.post } : {}) });
  } catch (err) {
    log(`[maintenance] alerts failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return result;
}

/** Runs rounds until `signal` aborts; `done` resolves after the last round has finished. */
export function startMaintenance(opts: MaintenanceOptions): { done: Promise<void> } {
  const interval = opts.intervalMs ?? 60_000;
  const done = (async () => {
    while (!opts.signal.aborted) {
      await maintenanceRound(opts);
      await new Promise<void>((resolve) => {
        const onAbort = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          opts.signal.removeEventListener("abort", onAbort);
          resolve();
        }, interval);
        opts.signal.addEventListener("abort", onAbort, { once: true });
      });
    }
  })();
  return { done };
}
