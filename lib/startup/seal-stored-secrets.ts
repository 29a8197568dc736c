import "server-only";
import type pg from "pg";
import { sealPlainWebhooks } from "../ops/alerts/alert-rules";
import { sealPlainSinks } from "../replay/sinks/http/sealed-http-sink";

/**
 * Seals configuration secrets written in clear by a Redrive that did not seal them yet (HTTP sinks of replay
 * batches, alert webhook URLs). Readers take both forms, so this only shortens how long a clear copy stays in
 * the database; a failure (no key in production) is a warning, not a refusal to start.
 */
export async function sealStoredSecrets(pool: pg.Pool, log: (msg: string) => void): Promise<void> {
  try {
    const sinks = await sealPlainSinks(pool);
    const webhooks = await sealPlainWebhooks(pool);
    if (sinks + webhooks > 0) log(`sealed stored secrets: ${sinks} replay sink(s), ${webhooks} alert webhook(s)`);
  } catch (err) {
    log(`warning: stored sink and webhook secrets left in clear: ${err instanceof Error ? err.message : String(err)}`);
  }
}
