import "server-only";
import { redactUrlSecrets } from "../../../masking/url";
import type { TargetInspection } from "../sink-plug.server";
import { inspectPostgisTarget, KEY_TABLE, targetClient, type TargetReport } from "./inspect-postgis-target";
import type { PostgisSinkConfig } from "./postgis-sink-schema";

// `redrive sink check --type postgis`: the PostGIS and GEOS versions in the target database, the table's columns,
// whether Redrive's key table is there (and how many keys it holds), and every problem batch creation would refuse.
// The registry applies the outbound rule before this connects (registry.server.ts inspectSinkTarget).

export type PostgisTargetAnswer = { url: string } & TargetReport;

function formatTargetReport(url: string, table: string, r: TargetReport, flagOf: (path: string) => string): string {
  const lines = [
    `target ${redactUrlSecrets(url)}`,
    `  PostGIS ${r.postgis ?? "not installed"}${r.geos ? ` (GEOS ${r.geos})` : ""}`,
    r.table ? `  table ${r.table.schema}.${r.table.name}: ${r.columns.length} column(s)` : `  table ${table}: not found`,
    ...r.columns.map((c) => `    ${c.name.padEnd(24)} ${c.type}${c.notNull ? " NOT NULL" : ""}`),
    r.keyTable.exists
      ? `  key table ${r.table?.schema ?? "?"}.${KEY_TABLE}: exists${r.keyTable.rows !== null ? `, ${r.keyTable.rows} key(s)` : ""}`
      : `  key table ${KEY_TABLE}: not yet (created on the first page)`,
    ...r.notes.map((n) => `  note: ${flagOf(n.path)}: ${n.message}`),
    r.problems.length === 0 ? "  ok: a batch can write here" : `  ${r.problems.length} problem(s):`,
    ...r.problems.map((p) => `    ${flagOf(p.path)}: ${p.message}`),
  ];
  return lines.join("\n");
}

/** Connects to the target and reads all of it, counting the key table's rows too. */
export async function reportPostgisTarget(config: PostgisSinkConfig): Promise<TargetInspection<PostgisTargetAnswer>> {
  const { type: _type, url, ...target } = config;
  const client = targetClient(url);
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`cannot connect to ${redactUrlSecrets(url)}: ${(err as Error).message}`);
  }
  let report: TargetReport;
  try {
    report = await inspectPostgisTarget(client, target, { countKeys: true });
  } finally {
    await client.end().catch(() => undefined);
  }
  return {
    answer: { url: redactUrlSecrets(url), ...report },
    text: (printed, flagOf) => formatTargetReport(url, target.table, printed, flagOf),
    ok: report.problems.length === 0,
  };
}
