import type { Db } from "../db/client";

/** Connects a CLI command to the same database the app uses (DATABASE_URL or the embedded server). */
export async function connectCli(opts: { migrate?: boolean } = {}): Promise<{ db: Db; close(): Promise<void> }> {
  // Loaded here, not at the top: commands without a database (afc hash, geometry repair) skip Prisma and pg.
  const { bootstrap } = await import("../db/bootstrap");
  const { db, stop } = await bootstrap({ log: (m) => process.stderr.write(`${m}\n`), migrate: opts.migrate ?? true });
  return { db, close: stop };
}

/** A failure the user caused: printed without a stack trace, exit status 2. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}
