import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { AppError } from "../errors/app-error";
import type { AuditContext } from "../auth/audit-context";
import { createSource, getSource, readSourceConfig, type SourceAudience } from "./manage-sources";
import { openConnector, type SourceConfig } from "./registry.server";
import { recordSourceFailure } from "./pullers";
import { awaitPull, servePullRequests, submitPull } from "./pull-requests";
import { SourceTurns } from "./source-turns";
import { statusAsksBroker } from "./status-policy";
import type { CreateSourceBody, PullCounts, SourceState, SourceView } from "./source-schemas";

// "Pull now" (the API, the page's button, `redrive source pull`): the same pull the runtimes' pullers run, on
// demand, asked of the runtimes as a row (pull-requests.ts) so it runs under the source's lease wherever that is
// held, and never inside the request handler that asked.

export interface PullNowOptions {
  max?: number;
  actor: Actor;
  requestId: string | null;
  clock?: () => Date;
  /** how long to wait for the answer (default: 60 s for a request, an hour for pullNow) */
  timeoutMs?: number;
}

/** Pull now for a request handler: a runtime (a server's or a worker's) runs it; this waits for its answer. */
export async function requestPull(pool: pg.Pool, name: string, opts: PullNowOptions): Promise<PullCounts> {
  const id = await submitPull(pool, name, opts);
  return awaitPull(pool, name, id, opts.timeoutMs);
}

/**
 * Pull now outside a runtime (`redrive source pull`, tests, benchmarks): the request is served here when the
 * source's lease is free, and by its holder otherwise (a worker pulling it now), whose answer this waits for.
 */
export async function pullNow(pool: pg.Pool, name: string, opts: PullNowOptions): Promise<PullCounts> {
  const id = await submitPull(pool, name, opts);
  const stop = new AbortController();
  const serving = servePullRequests({
    pool,
    holder: `pull-now:${randomUUID().slice(0, 8)}`,
    signal: stop.signal,
    log: () => {},
    turns: new SourceTurns(),
    only: id,
    pollMs: 200,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  try {
    return await awaitPull(pool, name, id, opts.timeoutMs ?? 3_600_000);
  } finally {
    stop.abort();
    await serving;
  }
}

/** Connects, checks what the source needs on the broker, and says what waits (`redrive source test`, the page). */
export async function testSource(pool: pg.Pool, name: string): Promise<{ waiting: number | null }> {
  const config = await readSourceConfig(pool, name);
  let connector;
  try {
    connector = await openConnector(config);
    await connector.provision();
    const waiting = await connector.waiting();
    await pool.query(
      `UPDATE source SET connected = true, waiting = $2, waiting_at = now(), last_error = NULL, failures = 0, failing_since = NULL, next_attempt_at = NULL
       WHERE name = $1`,
      [name, waiting],
    );
    return { waiting };
  } catch (err) {
    const message = await recordSourceFailure(pool, name, err);
    throw new AppError("bad_gateway", `source ${name}: ${message}`, { issues: [] });
  } finally {
    await connector?.close().catch(() => {});
  }
}

/** Removes what the source created on the broker (NATS's advisory stream, Redis's consumer); says how it went. */
export async function removeFromBroker(source: SourceConfig): Promise<{ cleaned: boolean; error?: string }> {
  let connector;
  try {
    connector = await openConnector(source);
    await connector.deprovision();
    return { cleaned: true };
  } catch (err) {
    return { cleaned: false, error: (err as Error).message };
  } finally {
    await connector?.close().catch(() => {});
  }
}

/**
 * The stored state; for an audience that manages sources, `waiting` is asked of the broker now (within
 * STATUS_TIMEOUT_MS, else the last known) unless the source is backing off (status-policy.ts).
 */
export async function sourceStatus(
  pool: pg.Pool,
  name: string,
  now: Date,
  audience: SourceAudience = "reader",
): Promise<SourceState & { name: string; enabled: boolean }> {
  const before = await getSource(pool, name, now, audience);
  if (!statusAsksBroker(audience === "manager", before.state, now)) return { name, enabled: before.enabled, ...before.state };
  await Promise.race([
    testSource(pool, name).catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, STATUS_TIMEOUT_MS).unref()),
  ]);
  // testSource wrote what it found, or why it failed, on the source: read it back either way.
  const after = await getSource(pool, name, now, audience).catch(() => before);
  return { name, enabled: after.enabled, ...after.state };
}

const STATUS_TIMEOUT_MS = 3000;

/**
 * Adds a source and at once prepares the broker for it (NATS starts capturing advisories from this moment), so
 * nothing that dies before the first pull is missed. A broker that cannot be reached now is recorded on the
 * source and retried by the workers; the source is added all the same.
 */
export async function addSource(pool: pg.Pool, body: CreateSourceBody, ctx: AuditContext): Promise<SourceView> {
  const created = await createSource(pool, body, ctx);
  await testSource(pool, created.name).catch(() => undefined);
  return getSource(pool, created.name, ctx.now, "manager");
}
