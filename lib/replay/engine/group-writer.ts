import "server-only";
import type pg from "pg";
import { inTransaction } from "../../db/transaction";
import { errorMessage, isTransientDbError } from "../../db/transient-errors";
import { writeOutcomes, type FlushCounts, type OutcomeContext, type Resolution } from "./write-outcomes";

// Group commit for one page: outcomes queue up while the previous commit is in flight and go out together in
// the next transaction. Unpaced, a whole page lands in one commit; paced, each commit carries the slots that
// came due meanwhile. A failed commit is retried (the transaction re-checks ownership, so a retry after a
// commit whose acknowledgement was lost writes nothing twice) until the database answers again.

export interface GroupWriterOptions {
  pool: pg.Pool;
  context: (now: Date) => OutcomeContext;
  clock: () => Date;
  log: (msg: string) => void;
  /** called after each successful commit */
  onFlushed?: (counts: FlushCounts) => void;
  /** give up retrying after this long without a successful commit (the sweeper returns the items) */
  giveUpAfterMs?: number;
}

export class GroupWriter {
  private queue: Resolution[] = [];
  private flushing: Promise<void> | null = null;
  private scheduled = false;
  private failure: Error | null = null;

  constructor(private readonly opts: GroupWriterOptions) {}

  add(...resolutions: Resolution[]): void {
    this.queue.push(...resolutions);
    this.schedule();
  }

  /** Waits until everything added so far is committed; throws when a commit failed for good. */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      if (this.flushing) await this.flushing;
      else this.start();
    }
    if (this.failure) throw this.failure;
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    // After the current macrotask: resolutions added in the same tick (an unpaced page) share one commit.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.flushing) this.start();
    });
  }

  private start(): void {
    if (this.queue.length === 0) return;
    const group = this.queue.splice(0);
    this.flushing = this.write(group).finally(() => {
      this.flushing = null;
      if (this.queue.length > 0) this.schedule();
    });
  }

  private async write(group: Resolution[]): Promise<void> {
    const started = Date.now();
    const limit = this.opts.giveUpAfterMs ?? 120_000;
    for (let attempt = 1; ; attempt++) {
      try {
        const counts = await inTransaction(this.opts.pool, (c) => writeOutcomes(c, group, this.opts.context(this.opts.clock())));
        this.opts.onFlushed?.(counts);
        return;
      } catch (err) {
        if (!isTransientDbError(err) || Date.now() - started > limit) {
          this.failure ??= err instanceof Error ? err : new Error(String(err));
          this.opts.log(`replay: could not record ${group.length} outcomes: ${errorMessage(err)}`);
          return;
        }
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** Math.min(attempt, 6))));
      }
    }
  }
}
