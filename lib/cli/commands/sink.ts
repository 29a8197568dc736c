// `redrive sink check --type postgis --url … --table …`: connects to a replay sink's target and says what it found,
// before anyone builds a batch on it. For PostGIS: the PostGIS and GEOS versions in that database, the table's
// columns, whether Redrive's key table is there (and how many keys it holds), and every problem batch creation
// would refuse. Exit 0 when the target can take a batch, 1 when it cannot, 2 for a usage error.
import "server-only";
import type { Command } from "commander";
import { redactUrlSecrets } from "../../masking/url";
import { postgisTargetRefusal } from "../../replay/sinks/postgis/check-postgis-target";
import { inspectPostgisTarget, KEY_TABLE, targetClient, type TargetReport } from "../../replay/sinks/postgis/inspect-postgis-target";
import { PostgisSinkSchema, postgisSinkBody } from "../../replay/sinks/postgis/postgis-sink-schema";
import { SINKS } from "../../replay/sinks/registry";
import type { AnySinkConfigPlug } from "../../replay/sinks/sink-plug";
import { CliUsageError, optionsError } from "../context";
import { printAnswer } from "../output";
import { postgisTargetOptions, type PostgisFlags } from "../postgis-options";

interface CheckOptions extends PostgisFlags {
  type: string;
  json?: boolean;
}

/** The flag each field of the report's problems comes from. */
const FLAG_OF: Record<string, string> = {
  "sink.url": "--url",
  "sink.table": "--table",
  "sink.idColumn": "--id-column",
  "sink.geometryColumn": "--geometry-column",
  "sink.observedAtColumn": "--observed-at-column",
  "sink.propertiesColumn": "--properties-column",
  "sink.srid": "--srid",
};

export function formatTargetReport(url: string, table: string, r: TargetReport): string {
  const lines = [
    `target ${redactUrlSecrets(url)}`,
    `  PostGIS ${r.postgis ?? "not installed"}${r.geos ? ` (GEOS ${r.geos})` : ""}`,
    r.table ? `  table ${r.table.schema}.${r.table.name}: ${r.columns.length} column(s)` : `  table ${table}: not found`,
    ...r.columns.map((c) => `    ${c.name.padEnd(24)} ${c.type}${c.notNull ? " NOT NULL" : ""}`),
    r.keyTable.exists
      ? `  key table ${r.table?.schema ?? "?"}.${KEY_TABLE}: exists${r.keyTable.rows !== null ? `, ${r.keyTable.rows} key(s)` : ""}`
      : `  key table ${KEY_TABLE}: not yet (created on the first page)`,
    ...r.notes.map((n) => `  note: ${FLAG_OF[n.path] ?? n.path}: ${n.message}`),
    r.problems.length === 0 ? "  ok: a batch can write here" : `  ${r.problems.length} problem(s):`,
    ...r.problems.map((p) => `    ${FLAG_OF[p.path] ?? p.path}: ${p.message}`),
  ];
  return lines.join("\n");
}

export function registerSinkCommands(program: Command): void {
  const sink = program.command("sink").description("replay sinks: check a target before building a batch on it");
  const check = sink
    .command("check")
    .description("connect to a sink's target and say what is there (PostGIS: version, columns, key table, problems)")
    .requiredOption("--type <type>", "the sink type: postgis")
    .option("--url <url>", "postgresql://user:password@host:port/database");
  postgisTargetOptions(check)
    .option("--json", "print the report as JSON")
    .action(async (o: CheckOptions) => {
      const checkable: readonly AnySinkConfigPlug[] = SINKS.filter((p) => p.checkCommand);
      if (!checkable.some((p) => p.type === o.type))
        throw new CliUsageError(`--type: ${o.type} has no check; only ${checkable.map((p) => p.type).join(", ")} does`);
      if (o.srid !== undefined && !/^\d+$/.test(o.srid))
        throw new CliUsageError(`--srid: expected a number, got ${JSON.stringify(o.srid)}`);
      const parsed = PostgisSinkSchema.safeParse(postgisSinkBody({ ...o }, o.srid === undefined ? undefined : Number(o.srid)));
      if (!parsed.success) throw optionsError(parsed.error.issues);
      const { type: _type, url, ...target } = parsed.data;
      const refused = await postgisTargetRefusal(url);
      if (refused) throw new CliUsageError(`--url: ${refused}`);
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
      const answer = { url: redactUrlSecrets(url), ...report };
      printAnswer(answer, { json: o.json, text: (a) => `${formatTargetReport(url, target.table, a)}\n` });
      if (report.problems.length > 0) process.exitCode = 1;
    });
}
