// `redrive lookup <q>`, `redrive export --format …`, `redrive maintenance`: the forensics API for operators.
// Results go to stdout (export: the file itself, so `redrive export --format ndjson > dlq.ndjson`); progress and
// summaries to stderr. Company-wide, unless --as names a user: their teams then bound what is found (read-as.ts).
// Card data is masked unless --unmask names (--as) a user allowed to see it; that export is audited under their name.
import { countOf, plural } from "../../vocabulary/plural";
import type { Command } from "commander";
import { can } from "../../auth/permissions";
import type { Actor } from "../../audit/actor";
import { getEnv } from "../../env";
import { auditedExport } from "../../forensics/export/audited";
import { assertExportable } from "../../forensics/export/stream";
import { lookup } from "../../forensics/lookup";
import { maintenanceRound, resumedJobsSettled, startMaintenance } from "../../ops/maintenance";
import { ExportQuerySchema, LookupQuerySchema } from "../../forensics/forensics-schemas";
import { configuredMaskRules } from "../../masking/config";
import { CliUsageError, connectCli, optionsError, osAccount } from "../context";
import { READ_AS_HELP, readingAs } from "../read-as";
import { printAnswer, printLines } from "../output";
import { commaList, recordFilterOf, recordFilterOptions, type RecordFilterFlags } from "../record-filter-options";

const say = (msg: string) => process.stderr.write(`${msg}\n`);

function parseOrExit<T>(
  schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  raw: unknown,
): T {
  const r = schema.safeParse(JSON.parse(JSON.stringify(raw)));
  if (r.success) return r.data;
  throw optionsError(r.error.issues, { q: "[q]" }); // lookup's search term is its argument
}

interface ExportFlags extends RecordFilterFlags {
  format?: string;
  status?: string[];
  order?: string;
  excel?: boolean;
  unmask?: boolean;
  as?: string;
}

async function writeOut(chunk: Uint8Array): Promise<void> {
  if (!process.stdout.write(chunk)) await new Promise<void>((resolve) => process.stdout.once("drain", () => resolve()));
}

export function registerForensicsCommands(program: Command): void {
  program
    .command("lookup")
    .argument("[q]", "idempotency key, event hash (≥ 8 hex characters), event_id, device_id or source message id")
    .description("find records by any identifier and/or place, and settled ledger keys")
    .option("--bbox <minLon,minLat,maxLon,maxLat>", "records whose geometry overlaps this box")
    .option("--near <lon,lat>", "records within --radius-km of this point")
    .option("--radius-km <km>", "radius for --near", "1")
    .option("--from <time>", "observed at or after (RFC 3339)")
    .option("--to <time>", "observed at or before (RFC 3339)")
    .option("--limit <n>", "at most this many records", "50")
    .option("--as <email>", READ_AS_HELP)
    .option("--json", "print the result as JSON")
    .action(async (q: string | undefined, o: Record<string, string | boolean | undefined>) => {
      const query = parseOrExit(LookupQuerySchema, {
        q,
        bbox: o.bbox,
        near: o.near,
        radiusKm: o.radiusKm,
        from: o.from,
        to: o.to,
        limit: o.limit,
      });
      const { db, close } = await connectCli();
      try {
        const { scope, user } = await readingAs(db, typeof o.as === "string" ? o.as : undefined);
        // The operator reads their own database; --as reads with that user's rights, as the API would answer them.
        const unmaskRights = user === null || can(user.role, "dead_letters:unmask");
        const result = await lookup(db.pool, scope, query, configuredMaskRules(), { unmaskRights });
        if (o.json) {
          printAnswer(result, { json: true });
          return;
        }
        printLines(
          result.records,
          (r) => `${r.id}\t${r.kind}\t${r.status}\t${r.observedAt}\t${r.idempotencyKey ?? "-"}\t${r.matchedOn.join(",")}\t${r.reason}`,
        );
        printLines(result.ledger, (l) => `ledger\t${l.idempotencyKey}\tapplied ${l.appliedAt}\tbatch ${l.batchId ?? "-"}\t${l.origin}`);
        say(
          `${countOf(result.records.length, "record")}, ${countOf(result.ledger.length, "ledger entry", "ledger entries")}${result.truncated ? " (more match: narrow the query)" : ""}`,
        );
        if (result.records.length === 0 && result.ledger.length === 0) process.exitCode = 1;
      } finally {
        await close();
      }
    });

  const exportCommand = program
    .command("export")
    .description("stream the records matching a filter to stdout as NDJSON (re-importable), CSV or GeoJSON")
    .option("--format <format>", "ndjson | csv | geojson", "ndjson")
    .option("--status <statuses>", "pending,approved,quarantined,replayed,purged", commaList);
  recordFilterOptions(exportCommand)
    .option("--order <order>", "desc (newest observation first, as the list) | asc", "desc")
    .option("--excel", "CSV for Excel: starts with a UTF-8 byte-order mark")
    .option("--unmask", "card data in clear (needs --as a user with dead_letters:unmask)")
    .option("--as <email>", "the user this export is done (and audited) as: their teams bound it (default: company-wide)")
    .action(async (o: ExportFlags) => {
      const query = parseOrExit(ExportQuerySchema, {
        ...recordFilterOf(o),
        format: o.format,
        status: o.status,
        order: o.order,
        excel: o.excel === true,
      });
      const { format, unmask: _unmask, order, excel, ...filter } = query;
      const { db, close } = await connectCli();
      try {
        if (o.unmask && typeof o.as !== "string")
          throw new CliUsageError("--unmask needs --as <email>: a user with dead_letters:unmask, audited as the reader");
        const { scope, user } = await readingAs(db, o.as);
        if (o.unmask && user && !can(user.role, "dead_letters:unmask"))
          throw new Error(`--as: ${o.as} (${user.role}) lacks permission dead_letters:unmask`); // a refusal: exit 1
        const actor: Actor = user ?? { id: null, email: `cli:${osAccount()}`, role: "operator" };
        await assertExportable(db.pool, scope, format, filter);
        const started = performance.now();
        const { stream, stats, audited } = auditedExport(
          db.pool,
          { format, filter, scope, mask: o.unmask ? null : configuredMaskRules(), order, excel },
          { actor, requestId: `export-${Date.now()}`, now: new Date() },
        );
        const reader = stream.getReader();
        let lastLog = started;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await writeOut(value);
          if (process.stderr.isTTY && performance.now() - lastLog > 1000) {
            lastLog = performance.now();
            process.stderr.write(`\rexported ${countOf(stats.records, "record")}, ${(stats.bytes / 1e6).toFixed(1)} MB`);
          }
        }
        await audited;
        const secs = (performance.now() - started) / 1000;
        say(
          `${process.stderr.isTTY ? "\n" : ""}exported ${stats.records} ${plural(stats.records, "record")} (${stats.skipped} without an envelope skipped), ` +
            `${stats.bytes} bytes in ${secs.toFixed(1)} s (${Math.round(stats.records / Math.max(secs, 1e-3))}/s)`,
        );
      } finally {
        await close();
      }
    });

  program
    .command("maintenance")
    .description("retention, alert evaluation and resuming orphaned bulk jobs: one round (--once) or every minute until SIGTERM/SIGINT")
    .option("--once", "run one round and exit")
    .action(async (o: { once?: boolean }) => {
      const env = getEnv();
      const { db, close } = await connectCli({ migrate: false });
      const opts = {
        pool: db.pool,
        retentionDays: env.REDRIVE_RETENTION_DAYS,
        webhookUrl: env.REDRIVE_ALERT_WEBHOOK_URL ?? null,
        log: say,
      };
      try {
        if (o.once) {
          say(JSON.stringify(await maintenanceRound(opts)));
          await resumedJobsSettled(); // a resumed bulk job finishes before the connection closes
          return;
        }
        const stop = new AbortController();
        process.once("SIGTERM", () => stop.abort());
        process.once("SIGINT", () => stop.abort());
        await startMaintenance({ ...opts, signal: stop.signal }).done;
      } finally {
        await close();
      }
    });
}
