import "server-only";
import type pg from "pg";
import { inTransaction } from "../../db/transaction";
import { errorMessage, isTransientDbError } from "../../db/transient-errors";
import { writeOutcomes, type FlushCounts, type OutcomeContext, type Resolution } from "./write-outcomes";

// Group commit: outcomes queue up while the previous commit is in flight and go out together in the next
// transaction. One writer serves every page a worker holds of a batch (worker.ts): each outcome transaction
// takes the batch row and the audit chain's head until it commits, so transactions from several pages of one
// worker only queued behind each other there (bench:replay, HTTP sink: most of an outcome's time was that wait);
// one writer has at most one commit in flight and carries whatever all its pages have ready. Unpaced, a whole
// page lands in one commit; paced, each commit carries the slots that came due meanwhile. A failed commit is
// retried (the transaction re-checks ownership, so a retry after a commit whose acknowledgement was lost writes
// nothing twice) until the database answers again.

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

interface Group {
  resolutions: Resolution[];
  committed: Promise<void>;
  settle: (err: Error | null) => void;
}

function newGroup(): Group {
  let settle: (err: Error | null) => void = () => {};
  const committed = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : resolve());
  });
  // A caller that never awaits (nothing of its own in the group) must not turn a failure into an unhandled one.
  committed.catch(() => {});
  return { resolutions: [], committed, settle };
}

export class GroupWriter {
  private next: Group = newGroup();
  private flushing: Promise<void> | null = null;
  private scheduled = false;

  constructor(private readonly opts: GroupWriterOptions) {}

  /** Queues outcomes; resolves when the commit carrying them is done, rejects when it failed for good. */
  add(...resolutions: Resolution[]): Promise<void> {
    if (resolutions.length === 0) return Promise.resolve();
    this.next.resolutions.push(...resolutions);
    this.schedule();
    return this.next.committed;
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
    if (this.next.resolutions.length === 0) return;
    const group = this.next;
    this.next = newGroup();
    this.flushing = this.write(group.resolutions)
      .then(
        () => group.settle(null),
        (err: unknown) => group.settle(err instanceof Error ? err : new Error(String(err))),
      )
      .finally(() => {
        this.flushing = null;
        if (this.next.resolutions.length > 0) this.schedule();
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
          this.opts.log(`replay: could not record ${group.length} outcomes: ${errorMessage(err)}`);
          throw err;
        }
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** Math.min(attempt, 6))));
      }
    }
  }
}
