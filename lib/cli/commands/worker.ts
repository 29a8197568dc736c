// `redrive worker`: a runtime (lib/runtime: replay lanes, the sources' pullers, Pull now requests, housekeeping),
// on this machine or others, against the same PostgreSQL.
// `redrive ledger import`: settled keys from an external ledger, so a replay dedupes them without sending.
import { createReadStream } from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { getEnv } from "../../env";
import { productionSecretsRefusal, WORKER_SECRETS } from "../../secrets/production-secrets";
import { importLedger } from "../../replay/ledger/import-ledger";
import { startRuntime } from "../../runtime/runtime";
import { CliUsageError, connectCli, inputFile, optionsError, osAccount } from "../context";
import { readLines } from "../lines";
import { printAnswer } from "../output";

const WorkerOptions = z.object({
  concurrency: z.coerce.number().int().min(1).max(64),
  leaseMs: z.coerce.number().int().min(500).max(3_600_000),
  backoffBaseMs: z.coerce.number().int().min(1).max(600_000),
  backoffMaxMs: z.coerce.number().int().min(1).max(3_600_000),
});

export function registerWorkerCommands(program: Command): void {
  program
    .command("worker")
    .description("run a replay worker until SIGTERM/SIGINT (finishes the pages it holds, then exits)")
    .option("--concurrency <n>", "pages processed at once", "2")
    .option("--lease-ms <ms>", "how long claimed items stay this worker's without a heartbeat", "30000")
    .option("--backoff-base-ms <ms>", "first retry delay after a failed submission (doubles per attempt, jittered)", "1000")
    .option("--backoff-max-ms <ms>", "longest retry delay", "300000")
    .option("--no-pull", "do not also drain the enabled broker sources (redrive source list); Pull now requests are still answered")
    .option("--no-maintenance", "do not also run the housekeeping loop (retention, alert rules and their webhooks, stalled bulk jobs)")
    .action(async (raw: Record<string, unknown>) => {
      const parsed = WorkerOptions.safeParse(raw);
      if (!parsed.success) throw optionsError(parsed.error.issues);
      const { concurrency, leaseMs, backoffBaseMs, backoffMaxMs } = parsed.data;
      // A production worker generates no key: without them its first audited step or sealed source would fail.
      const missingSecrets = productionSecretsRefusal(getEnv(), WORKER_SECRETS);
      if (missingSecrets) throw new CliUsageError(`${missingSecrets}; not starting`);
      // Workers never migrate: on other machines they must not change the schema under the app.
      const { db, close } = await connectCli({ migrate: false });
      try {
        await db.pool.query("SELECT lease_losses FROM replay_item LIMIT 0");
      } catch {
        await close();
        throw new CliUsageError("the database schema is older than this worker: run `redrive db migrate` first");
      }
      const stop = new AbortController();
      process.once("SIGTERM", () => stop.abort());
      process.once("SIGINT", () => stop.abort());
      const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);
      const env = getEnv();
      const runtime = startRuntime({
        db,
        signal: stop.signal,
        log,
        leaseMs,
        replay: { concurrency, leaseMs, backoff: { baseMs: backoffBaseMs, maxMs: Math.max(backoffBaseMs, backoffMaxMs) } },
        pullers: raw.pull !== false,
        // Housekeeping runs beside every worker (it is safe in any number of processes: retention claims rows with
        // SKIP LOCKED, alert evaluation takes a try-lock), so a deployment of workers alone still fires alerts.
        maintenance:
          raw.maintenance === false
            ? false
            : { retentionDays: env.REDRIVE_RETENTION_DAYS, webhookUrl: env.REDRIVE_ALERT_WEBHOOK_URL ?? null },
      });
      await runtime.done;
      await close();
    });

  const ledger = program.command("ledger").description("the ledger of settled idempotency keys");
  ledger
    .command("import")
    .argument("<file>", 'NDJSON lines {"idempotency_key", "kind"?, "applied_at"?}, or - for stdin')
    .description("load keys an external system already settled: replays count them as deduped without sending")
    .action(async (file: string) => {
      if (file !== "-") await inputFile(file);
      const input = file === "-" ? process.stdin : createReadStream(file);
      const { db, close } = await connectCli();
      try {
        const result = await importLedger(db.pool, readLines(input).lines, {
          actor: { id: null, email: `cli:${osAccount()}`, role: "operator" },
          now: new Date(),
          source: file === "-" ? "stdin" : file,
        });
        for (const bad of result.invalid) process.stderr.write(`line ${bad.line}: ${bad.message}\n`);
        printAnswer(
          { imported: result.imported, alreadyKnown: result.alreadyKnown, invalid: result.invalid.length },
          { json: true, compact: true },
        );
        if (result.invalid.length > 0) process.exitCode = 1;
      } finally {
        await close();
      }
    });
}
