// `redrive audit verify [--since-checkpoint F]` and `redrive audit checkpoint [--out F]`: the chain checked from its
// first event, and its head written down outside the database. Results a script keeps (the verdict and the head,
// a checkpoint) go to stdout; progress and notes to stderr.
import "server-only";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { keyAuditChain } from "../../audit/append";
import { parseCheckpoint, signCheckpoint, type Checkpoint } from "../../audit/checkpoint";
import { configuredAuditKeys } from "../../audit/configured-keys";
import { verifyAuditTrail, type VerifyResult } from "../../audit/verify";
import type { Db } from "../../db/client";
import { inTransaction } from "../../db/transaction";
import { CliUsageError, connectCli, optionsError } from "../context";

const VerifyOptions = z.object({ sinceCheckpoint: z.string().min(1, "a file name is required").optional() }).strict();
const CheckpointOptions = z.object({ out: z.string().min(1, "a file name is required").optional() }).strict();

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw optionsError(r.error.issues);
}

const say = (msg: string) => process.stderr.write(`${msg}\n`);

async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const { db, close } = await connectCli();
  try {
    return await fn(db);
  } finally {
    await close();
  }
}

/** The checkpoint file, read and checked before connecting: a file that is not one is a usage error. */
async function readCheckpoint(file: string): Promise<Checkpoint> {
  const text = await readFile(file, "utf8").catch((e: NodeJS.ErrnoException) => {
    throw new CliUsageError(
      `--since-checkpoint: ${file}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.message}`,
    );
  });
  const parsed = parseCheckpoint(text);
  if (!parsed.ok) throw new CliUsageError(`--since-checkpoint: ${file} is not an audit checkpoint: ${parsed.problem}`);
  return parsed.checkpoint;
}

/** `--out`'s directory must exist and the name must not be a directory: said before the chain is walked. */
async function checkOut(file: string): Promise<void> {
  const dir = await stat(dirname(file)).catch(() => null);
  if (!dir?.isDirectory()) throw new CliUsageError(`--out: ${dirname(file)}: no such directory`);
  const existing = await stat(file).catch(() => null);
  if (existing?.isDirectory()) throw new CliUsageError(`--out: ${file} is a directory`);
}

function verifyWithProgress(db: Db, checkpoint?: Checkpoint): Promise<VerifyResult> {
  let lastReport = Date.now();
  return verifyAuditTrail(db.pool, {
    checkpoint,
    onProgress: (n) => {
      if (Date.now() - lastReport < 2000) return;
      lastReport = Date.now();
      say(`verified ${n.toLocaleString("en")} events…`);
    },
  });
}

function reportBroken(result: Extract<VerifyResult, { ok: false }>): void {
  process.stdout.write(`broken at event ${result.broken.id}: ${result.broken.problem}\n`);
  say(`${result.verified} events before it verified`);
  process.exitCode = 1;
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command("audit").description("the append-only audit trail");

  audit
    .command("verify")
    .description(
      "re-check the audit trail's chain (hashes and MACs) from the first event and print its head; exit 1 at the first broken link, or when it no longer extends --since-checkpoint",
    )
    .option("--since-checkpoint <file>", "a checkpoint from `redrive audit checkpoint`: the chain must still contain it")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parse(VerifyOptions, raw);
      const checkpoint = opts.sinceCheckpoint === undefined ? undefined : await readCheckpoint(opts.sinceCheckpoint);
      await withDb(async (db) => {
        const result = await verifyWithProgress(db, checkpoint);
        if (!result.ok) return reportBroken(result);
        process.stdout.write(`ok: ${result.verified} events verified\n`);
        process.stdout.write(`head: sequence ${result.head.sequence} hash ${result.head.hash}\n`);
        if (checkpoint)
          process.stdout.write(`extends checkpoint: sequence ${checkpoint.sequence} hash ${checkpoint.hash} (${checkpoint.at})\n`);
        for (const note of result.notes) say(`note: ${note}`);
      });
    });

  audit
    .command("checkpoint")
    .description(
      "verify the chain, then write its head signed with the audit key (JSON) to --out or stdout; keep checkpoints off the database host",
    )
    .option("--out <file>", "write the checkpoint to this file (replaced whole) instead of stdout")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parse(CheckpointOptions, raw);
      if (opts.out !== undefined) await checkOut(opts.out);
      const keys = configuredAuditKeys();
      await withDb(async (db) => {
        // A head left unkeyed (events from before keys) or under a retired key gets its key event first, so what
        // is signed is a head the current key vouches for.
        await inTransaction(db.pool, (c) => keyAuditChain(c, new Date(), keys));
        const result = await verifyWithProgress(db);
        if (!result.ok) return reportBroken(result);
        const checkpoint = signCheckpoint(result.head, keys.current, new Date());
        const text = `${JSON.stringify(checkpoint, null, 2)}\n`;
        if (opts.out === undefined) {
          process.stdout.write(text);
        } else {
          // Written beside it and renamed: a reader (or a crash) never sees half a checkpoint.
          const tmp = join(dirname(opts.out), `.${basename(opts.out)}.${process.pid}.tmp`);
          await writeFile(tmp, text, { mode: 0o644 });
          await rename(tmp, opts.out);
        }
        say(
          `checkpoint: sequence ${checkpoint.sequence} hash ${checkpoint.hash} (${result.verified} events verified)${opts.out === undefined ? "" : ` written to ${opts.out}`}`,
        );
      });
    });
}
