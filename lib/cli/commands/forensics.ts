// `redrive lookup <q>`, `redrive export --format …`, `redrive maintenance`: the forensics API for operators.
// Results go to stdout (export: the file itself, so `redrive export --format ndjson > dlq.ndjson`); progress and
// summaries to stderr. Card data is masked unless --unmask names (--as) a user allowed to see it; that export
// is audited under their name.
import { countOf, plural } from "../../vocabulary/plural";
import { UNSCOPED } from "../../scope/record-scope";
import type { Command } from "commander";
import { can, isRole } from "../../auth/permissions";
import { findUserByEmail } from "../../auth/users";
import type { Actor } from "../../audit/actor";
import { getEnv } from "../../env";
import { auditedExport } from "../../forensics/export/audited";
import { assertExportable } from "../../forensics/export/stream";
import { lookup } from "../../forensics/lookup";
import { maintenanceRound, resumedJobsSettled, startMaintenance } from "../../ops/maintenance";
import { ExportQuerySchema, LookupQuerySchema } from "../../forensics/forensics-schemas";
import { configuredMaskRules } from "../../masking/config";
import { CliUsageError, connectCli, optionsError, osAccount } from "../context";
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
        const result = await lookup(db.pool, UNSCOPED, query, configuredMaskRules(), { unmaskRights: true }); // the operator's own database, company-wide
        if (o.json) {
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          return;
        }
        for (const r of result.records) {
          process.stdout.write(
            `${r.id}\t${r.kind}\t${r.status}\t${r.observedAt}\t${r.idempotencyKey ?? "-"}\t${r.matchedOn.join(",")}\t${r.reason}\n`,
          );
        }
        for (const l of result.ledger) {
          process.stdout.write(`ledger\t${l.idempotencyKey}\tapplied ${l.appliedAt}\tbatch ${l.batchId ?? "-"}\t${l.origin}\n`);
        }
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
    .option("--as <email>", "the user this export is done (and audited) as")
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
        let actor: Actor = { id: null, email: `cli:${osAccount()}`, role: "operator" };
        if (typeof o.as === "string" || o.unmask) {
          if (typeof o.as !== "string")
            throw new CliUsageError("--unmask needs --as <email>: a user with dead_letters:unmask, audited as the reader");
          const user = await findUserByEmail(db.pool, o.as);
          if (!user || user.disabled || !isRole(user.role)) throw new CliUsageError(`--as: no active user with e-mail ${o.as}`);
          if (o.unmask && !can(user.role, "dead_letters:unmask"))
            throw new Error(`--as: ${o.as} (${user.role}) lacks permission dead_letters:unmask`); // a refusal: exit 1
          actor = { id: user.id, email: user.email, role: user.role };
        }
        await assertExportable(db.pool, UNSCOPED, format, filter);
        const started = performance.now();
        const { stream, stats, audited } = auditedExport(
          db.pool,
          { format, filter, scope: UNSCOPED, mask: o.unmask ? null : configuredMaskRules(), order, excel },
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
