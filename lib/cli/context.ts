import "server-only";
import { stat } from "node:fs/promises";
import { userInfo } from "node:os";
import type { Db } from "../db/client";
import { AppError } from "../errors/app-error";

/** Connects a CLI command to the same database the app uses (DATABASE_URL or the embedded server). */
export async function connectCli(opts: { migrate?: boolean } = {}): Promise<{ db: Db; close(): Promise<void> }> {
  // Loaded here, not at the top: commands without a database (afc hash, geometry repair) skip Prisma and pg.
  const { bootstrap } = await import("../startup/bootstrap");
  const { db, stop } = await bootstrap({ log: (m) => process.stderr.write(`${m}\n`), migrate: opts.migrate ?? true });
  return { db, close: stop };
}

/** A failure the user caused: printed without a stack trace, exit status 2. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

/**
 * Runs a command's work on the app's database, closing it after. An AppError the domain answers with becomes the
 * CLI's: a bad value (400, 422) is a usage error (exit 2); a refusal the command ran into — not found, four eyes,
 * a record or batch in the wrong state (403, 404, 409) — is a problem it found (exit 1), as the README says.
 */
export async function withCliDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const { db, close } = await connectCli();
  try {
    return await fn(db);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      const issues = err.issues.length > 1 ? `\n${err.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}` : "";
      if (err.status === 400 || err.status === 422) throw new CliUsageError(`${err.message}${issues}`);
      throw new Error(`${err.message}${issues}`);
    }
    throw err;
  } finally {
    await close();
  }
}

/** The flag a parsed option came from: `radiusKm` → `--radius-km`; a list's index is dropped (`status.0` → `--status`). */
export function flagFor(path: readonly PropertyKey[], names: Readonly<Record<string, string>> = {}): string {
  const name = path.filter((p) => typeof p === "string").join(".");
  return names[name] ?? (name === "" ? "options" : `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
}

/** A usage error naming each problem's flag; `names` for fields that are arguments, not flags ({ q: "<q>" }). */
export function optionsError(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  names: Readonly<Record<string, string>> = {},
): CliUsageError {
  return new CliUsageError(issues.map((i) => `${flagFor(i.path, names)}: ${i.message}`).join("; "));
}

/**
 * The input file of an import, checked before connecting: a regular file (its size, for progress) or anything
 * else readable as a stream — a pipe such as `<(…)`, a device — with a size of null. A directory or a missing
 * path is a usage error that says which.
 */
export async function inputFile(file: string): Promise<{ size: number | null }> {
  const info = await stat(file).catch((e: NodeJS.ErrnoException) => e);
  if (info instanceof Error) throw new CliUsageError(info.code === "ENOENT" ? `${file}: no such file` : `${file}: ${info.message}`);
  if (info.isDirectory()) throw new CliUsageError(`${file}: is a directory, not an NDJSON file`);
  return { size: info.isFile() ? info.size : null };
}

/** The operating-system account running the CLI, for the audit trail; "unknown" without a passwd entry (containers). */
export function osAccount(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}
