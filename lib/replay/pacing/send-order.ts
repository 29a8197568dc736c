// Within one worker, the pages of a batch start sending in batch order. A worker runs two lanes, each claiming a
// page and then reserving rate-limiter slots for it; without a turn, the lane that claimed the later page could
// reserve first and send items 3, 4 before 1, 2 (at a low rate, neighbours swap often). A page
// waits here, after re-validating its items and before its first slot, until every page of the same batch with
// an earlier first item that this worker holds has been granted slots for all its items (process-page.ts): slots are
// handed out in time order, so the later page's come after. Only the dispatch order is kept, and only while the
// sink keeps up (a page held up by its requests in flight can be overtaken by the next lane's: throughput first);
// pages held by other workers interleave (strict order per entity is the claim's job, lib/replay/engine/claim-items.ts).

interface Entry {
  seq: number;
  open: () => void;
}

export interface Turn {
  /** resolves once no earlier page of the batch (in this worker) is still waiting for slots */
  ready: Promise<void>;
  /** this page holds slots for all its items, or stopped: later pages may go (again is harmless) */
  leave: () => void;
}

export class SendOrder {
  private readonly waiting = new Map<string, Entry[]>();

  /** `firstSeq`: the batch position of the page's first item. */
  enter(batchId: string, firstSeq: number): Turn {
    const entries = this.waiting.get(batchId) ?? [];
    this.waiting.set(batchId, entries);
    let open: () => void = () => {};
    const ready = new Promise<void>((resolve) => (open = resolve));
    const entry: Entry = { seq: firstSeq, open };
    entries.push(entry);
    entries.sort((a, b) => a.seq - b.seq);
    this.wake(batchId);
    let left = false;
    return {
      ready,
      leave: () => {
        if (left) return;
        left = true;
        const list = this.waiting.get(batchId) ?? [];
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0) this.waiting.delete(batchId);
        else this.wake(batchId);
        entry.open(); // a page that leaves without having had its turn (an error) must not keep a waiter
      },
    };
  }

  /** The page with the earliest first item may go (opening an already open turn does nothing). */
  private wake(batchId: string): void {
    this.waiting.get(batchId)?.[0]?.open();
  }
}
