import "server-only";
import { AppError } from "../../../errors/app-error";
import { outboundHostRefusal } from "../../../net/outbound";
import { getEnv } from "../../../env";
import { configKey } from "../../../secrets/config-key";
import { seal } from "../../../secrets/seal";
import { postgisUrlRefusal, unreachableMessage } from "./postgis-connection";
import { inspectPostgisTarget, targetClient, type TargetReport } from "./inspect-postgis-target";
import type { PostgisSinkConfig, StoredPostgisSinkConfig } from "./postgis-sink-schema";

// Before a PostGIS batch is created: may Redrive call that host (REDRIVE_OUTBOUND_HOSTS, then the outbound rule on
// every host the URL names — answered before any connection), does the database answer, and can the configuration
// work there (PostGIS, the table, the columns, their types, the rights to write)? A batch that would fail every item
// after approval is refused now, 422 naming the field. Only a target that answered gets the details: one that could
// not be reached is "could not reach the target", whatever the server said, so the 422 cannot be used to learn which
// databases, ports or users exist behind an address.

/** The URL with PostgreSQL's port written out, so an allow-list entry "db.example.com:5432" matches a URL without one. */
export function withPostgresPort(url: string): string {
  const u = new URL(url);
  if (u.port === "") u.port = "5432";
  return u.toString();
}

/** Why the sink's URL may not be connected to (the outbound rule, every host it names), or null: before any connection. */
export async function postgisTargetRefusal(url: string): Promise<string | null> {
  return outboundHostRefusal(withPostgresPort(url), getEnv().REDRIVE_OUTBOUND_HOSTS) ?? (await postgisUrlRefusal(url));
}

/** The whole check: the outbound rule (postgisTargetRefusal), then the database (checkPostgisDatabase). */
export async function checkPostgisTarget(sink: PostgisSinkConfig, path = "sink"): Promise<TargetReport> {
  const why = await postgisTargetRefusal(sink.url);
  if (why) throw new AppError("validation_failed", `${path}.url: ${why}`, { issues: [{ path: `${path}.url`, message: why }] });
  return checkPostgisDatabase(sink, path);
}

/** Connects to a target the outbound rule allows and inspects it; 422 naming the field of each problem. */
export async function checkPostgisDatabase(sink: PostgisSinkConfig, path = "sink"): Promise<TargetReport> {
  const { type: _type, url, ...target } = sink;
  const client = targetClient(url);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    const message = unreachableMessage(err);
    throw new AppError("validation_failed", `${path}.url: ${message}`, { issues: [{ path: `${path}.url`, message }] });
  }
  try {
    const report = await inspectPostgisTarget(client, target);
    if (report.problems.length > 0) {
      throw new AppError("validation_failed", report.problems.map((p) => `${p.path}: ${p.message}`).join("; "), {
        issues: report.problems.map((p) => ({ path: p.path.replace(/^sink/, path), message: p.message })),
      });
    }
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What replay_batch.sink keeps: the URL sealed with the configuration key, as a source's URL is. */
export function storedPostgisSink(sink: PostgisSinkConfig): StoredPostgisSinkConfig {
  const { url, ...rest } = sink;
  return { ...rest, urlSealed: seal(url, configKey()) };
}
