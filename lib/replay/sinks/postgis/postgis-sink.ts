import "server-only";
import type pg from "pg";
import { configKey } from "../../../secrets/config-key";
import { unseal } from "../../../secrets/seal";
import { redactUrlSecrets } from "../../../masking/url";
import { inspectPostgisTarget, KEY_TABLE } from "./inspect-postgis-target";
import type { StoredPostgisSinkConfig } from "./postgis-sink-schema";
import type { RemoteSink, SinkResult, Submission } from "../sink";
import { featureId, keyTableStatement, pageStatement, type PageAnswer, type PageRow, type ResolvedTarget } from "./page-statement";
import { dropTargetPool, targetPool } from "./target-pools";
import { classifyTargetError } from "./target-errors";

// The PostGIS sink: a page of features applied to a team's PostGIS table in one statement (page-statement.ts), its
// keys recorded in a key table there in the same transaction. That key table is what makes a resend harmless: a
// crash after the target's commit and before Redrive's sends the page again, and every key comes back `deduped`.
//
// The engine submits items one by one as their rate slots come due; the submissions of one turn of the event loop
// (a whole page when unpaced, what is due together when paced) go as one statement. A statement per item held an
// unpaced drain to a round trip per feature.

/** No cap from the engine: one statement carries what is due, and the pool bounds the connections. */
export const POSTGIS_CONCURRENCY = 1000;

export function postgisSink(stored: StoredPostgisSinkConfig): RemoteSink {
  let waiting: { sub: Submission; signal: AbortSignal; resolve: (r: SinkResult) => void }[] = [];
  const flush = () => {
    const page = waiting;
    waiting = [];
    // A worker that must stop now (hardStop) does not wait for the target: the page's answer is "retry", and if the
    // statement commits anyway the resend is deduped by the key table. One listener per page, not per item.
    const signal = page[0]?.signal;
    const applied: Promise<SinkResult[]> = applyPage(
      stored,
      page.map((w) => w.sub),
    ).catch((err: unknown) => page.map(() => ({ outcome: "retry", reason: String(err), retryAfterMs: null, slowDown: false })));
    const aborted = new Promise<SinkResult[]>((resolve) => {
      const answer = () =>
        resolve(page.map(() => ({ outcome: "retry", reason: "aborted: the worker is stopping", retryAfterMs: null, slowDown: false })));
      if (signal?.aborted) answer();
      else signal?.addEventListener("abort", answer, { once: true });
      void applied.finally(() => signal?.removeEventListener("abort", answer));
    });
    void Promise.race([applied, aborted]).then((results) => page.forEach((w, i) => w.resolve(results[i] as SinkResult)));
  };
  return {
    mode: "remote",
    ledgerOrigin: "postgis",
    concurrency: POSTGIS_CONCURRENCY,
    submit: (sub, signal) =>
      new Promise((resolve) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ sub, signal, resolve });
      }),
  };
}

/** url + configuration → the target as resolved once (schema, column types, key table created). */
const resolved = new Map<string, Promise<ResolvedTarget>>();

function targetOf(stored: StoredPostgisSinkConfig) {
  const { type: _type, urlSealed: _sealed, ...target } = stored;
  return target;
}

function resolveTarget(pool: pg.Pool, cacheKey: string, stored: StoredPostgisSinkConfig): Promise<ResolvedTarget> {
  const target = targetOf(stored);
  let known = resolved.get(cacheKey);
  if (!known) {
    known = (async () => {
      const client = await pool.connect();
      try {
        let report = await inspectPostgisTarget(client, target);
        if (report.table && !report.keyTable.exists && report.problems.length === 0) {
          await createKeyTable(client, report.table.schema);
          report = await inspectPostgisTarget(client, target);
        }
        const { table, types } = report;
        if (report.problems.length > 0 || !table || !types.id || !types.observedAt) {
          throw new TargetConfigError(report.problems.map((p) => `${p.path}: ${p.message}`).join("; ") || "the target cannot be used");
        }
        return {
          ...target,
          schema: table.schema,
          tableName: table.name,
          keyTable: KEY_TABLE,
          types: { ...types, id: types.id, observedAt: types.observedAt },
        };
      } finally {
        client.release();
      }
    })();
    resolved.set(cacheKey, known);
    // A failure is not kept: the team may fix the table while the batch retries.
    known.catch(() => resolved.delete(cacheKey));
  }
  return known;
}

/** Two workers creating it at once: one wins, the other's CREATE … IF NOT EXISTS can still collide in the catalog. */
async function createKeyTable(client: pg.PoolClient, schema: string): Promise<void> {
  try {
    await client.query(keyTableStatement(schema, KEY_TABLE));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "23505" && code !== "42P07") throw err;
  }
}

export class TargetConfigError extends Error {
  override name = "TargetConfigError";
}

async function applyPage(stored: StoredPostgisSinkConfig, subs: Submission[]): Promise<SinkResult[]> {
  const results: (SinkResult | undefined)[] = subs.map(() => undefined);
  let url: string;
  try {
    url = unseal(stored.urlSealed, configKey());
  } catch (err) {
    return subs.map(() => ({ outcome: "failed", reason: `the sink's URL cannot be read: ${(err as Error).message}` }));
  }
  const where = `PostGIS ${redactUrlSecrets(url)} ${stored.table}`;
  const rows: PageRow[] = [];
  subs.forEach((sub, ord) => {
    const payload = sub.payload;
    const fid = featureId(payload, stored.idProperty);
    const geometry = typeof payload === "object" && payload !== null && !Array.isArray(payload) ? payload.geometry : undefined;
    if (sub.kind !== "spatial" || geometry === undefined || geometry === null) {
      results[ord] = { outcome: "failed", reason: "the PostGIS sink takes spatial features only", permanent: true };
    } else if (fid === null) {
      results[ord] = {
        outcome: "failed",
        reason: `the feature has no id${stored.idProperty ? ` and no property ${JSON.stringify(stored.idProperty)}` : " (set the sink's idProperty to take it from a property)"}`,
        permanent: true,
      };
    } else {
      const props = typeof payload === "object" && payload !== null && !Array.isArray(payload) ? (payload.properties ?? null) : null;
      rows.push({ ord, key: sub.idempotencyKey, fid, observed: sub.observedAt, props, geom: JSON.stringify(geometry) });
    }
  });
  if (rows.length === 0) return results as SinkResult[];

  const cacheKey = JSON.stringify([url, targetOf(stored)]);
  let answers: PageAnswer[];
  try {
    const pool = targetPool(url);
    const target = await resolveTarget(pool, cacheKey, stored);
    const res = await pool.query<PageAnswer>(pageStatement(target), [
      JSON.stringify(rows),
      stored.srid,
      `${target.schema}.${target.tableName}`,
    ]);
    answers = res.rows;
  } catch (err) {
    const failure =
      err instanceof TargetConfigError
        ? ({ outcome: "failed", reason: `${where}: ${err.message}` } as const)
        : classifyTargetError(err, where);
    if (failure.outcome === "retry") await dropTargetPool(url);
    for (const r of rows) results[r.ord] = failure;
    // The table may have changed under us (column dropped, type altered): look again next time.
    resolved.delete(cacheKey);
    return results as SinkResult[];
  }
  const byOrd = new Map(answers.map((a) => [a.ord, a]));
  for (const r of rows) {
    const a = byOrd.get(r.ord);
    results[r.ord] = !a
      ? { outcome: "retry", reason: `${where}: no answer for this feature`, retryAfterMs: null, slowDown: false }
      : !a.valid
        ? { outcome: "failed", reason: `PostGIS finds the geometry invalid: ${a.reason ?? "no reason given"}`, permanent: true }
        : { outcome: a.fresh ? "applied" : "deduped" };
  }
  return results as SinkResult[];
}
