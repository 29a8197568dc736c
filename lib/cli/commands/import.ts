import { createReadStream } from "node:fs";
import { SingleBar, Presets } from "cli-progress";
import type { Command } from "commander";
import { NormalizePool, defaultIngestThreads } from "../../dead-letters/ingest/normalize-pool";
import { envelopeAnswer } from "../../dead-letters/ingest/arrival-outcome";
import { ingest } from "../../dead-letters/ingest/ingest";
import { importSummary } from "../../dead-letters/ingest/import-summary";
import { CliUsageError, connectCli, inputFile, osAccount } from "../context";
import { printAnswer } from "../output";

/** Counts bytes as they stream past, for the progress bar. */
async function* counted(stream: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) {
    onBytes(chunk.length);
    yield chunk;
  }
}

/** Files above this size start the normalizer threads before connecting (smaller ones may never need them). */
const WARM_THREADS_ABOVE_BYTES = 256 * 1024;

export function registerImportCommands(program: Command): void {
  program
    .command("import")
    .argument("<file>", "NDJSON file of envelopes (spatial or AFC), or - for stdin")
    .description("ingest dead letters from NDJSON, exactly as POST /api/dead-letters does")
    .option("--results", "print every record's result as NDJSON on stdout (default: only rejected ones)")
    .option("--batch-size <n>", "records per transaction", "500")
    .option("--threads <n>", "worker threads normalizing records, 0 for none (default: REDRIVE_INGEST_THREADS, else one per core)")
    .action(async (file: string, opts: { results?: boolean; batchSize: string; threads?: string }) => {
      const batchSize = Number(opts.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
        throw new CliUsageError("--batch-size must be an integer from 1 to 10000");
      const threads = opts.threads === undefined ? defaultIngestThreads() : Number(opts.threads);
      if (!Number.isInteger(threads) || threads < 0 || threads > 64) throw new CliUsageError("--threads must be an integer from 0 to 64");
      let total: number | null = null;
      if (file !== "-") {
        total = (await inputFile(file)).size;
      }
      const normalizer = NormalizePool.create(threads);
      // A thread takes a second or more to load the normalizer and GEOS: start them while the database connects.
      if (total === null || total > WARM_THREADS_ABOVE_BYTES) normalizer?.warm();
      const { db, close } = await connectCli().catch(async (err: unknown) => {
        await normalizer?.close();
        throw err;
      });
      const input = file === "-" ? process.stdin : createReadStream(file);
      // A progress bar only on a terminal, so piped stderr stays clean for logs.
      const bar = process.stderr.isTTY
        ? new SingleBar(
            {
              format: total ? "importing {bar} {percentage}% | {records} records | {rate}/s" : "importing {records} records | {rate}/s",
              hideCursor: true,
            },
            Presets.shades_classic,
          )
        : null;
      const started = performance.now();
      const counts = { created: 0, duplicate: 0, rejected: 0 };
      let bytes = 0;
      bar?.start(total ?? 1, 0, { records: 0, rate: 0 });
      try {
        const actor = { id: null, email: `cli:${osAccount()}`, role: "operator" };
        const body = counted(input, (n) => (bytes += n));
        const outcomes = await ingest(
          { via: "envelopes", body, format: "ndjson" },
          { pool: db.pool, actor, requestId: `import-${Date.now()}`, batchSize, threads: normalizer },
        );
        for await (const results of outcomes) {
          for (const outcome of results) {
            const r = envelopeAnswer(outcome);
            counts[r.status]++;
            if (opts.results || r.status === "rejected") printAnswer(r, { json: true, compact: true });
          }
          const done = counts.created + counts.duplicate + counts.rejected;
          bar?.update(total ? bytes : 1, { records: done, rate: Math.round(done / ((performance.now() - started) / 1000)) });
        }
      } finally {
        bar?.stop();
        await Promise.all([close(), normalizer?.close()]);
      }
      process.stderr.write(`${importSummary(counts, (performance.now() - started) / 1000)}\n`);
      if (counts.rejected > 0) process.exitCode = 1;
    });
}
