import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, createDb, type Db } from "../../lib/db/client";
import { inTransaction } from "../../lib/db/transaction";
import { claimItems, lockItems } from "../../lib/replay/engine/claim-items";
import { applyBatchAction } from "../../lib/replay/batch/apply-batch-action";
import { isTransientDbError } from "../../lib/db/transient-errors";
import { processLockedPage, type LockedPageContext } from "../../lib/replay/engine/locked-page";
import type { BatchConfig } from "../../lib/replay/engine/process-page";
import { ledgerSink } from "../../lib/replay/sinks/ledger/ledger-sink";
import type { TransactionalSink } from "../../lib/replay/sinks/sink";
import { getGeos } from "../../lib/spatial/geos";
import { afcRecord, approve, ingest, runningBatch, spatialEnvelope, type TestUsers } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// The unpaced ledger path (lib/replay/engine/locked-page.ts): a page locked, delivered and recorded in one transaction.
// What it must keep from the lease path: nobody else takes a locked item, an entity's later item waits for its
// earlier one, and whatever goes wrong before the commit leaves every row exactly as it was.

setTestAuthEnv();

let db: Db;
let users: TestUsers;

beforeAll(async () => {
  db = await testDb();
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

/** A running unpaced ledger batch over `n` spatial records (feature ids from `entity`) and its config. */
async function batchOf(prefix: string, n: number, entity: (i: number) => string = (i) => `${prefix}-f${i}`): Promise<BatchConfig> {
  const ids = await ingest(
    db,
    Array.from({ length: n }, (_, i) => spatialEnvelope({ key: `${prefix}-${i}`, observedAt: 100 + i, featureId: entity(i) })),
  );
  await approve(db, ids);
  const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 50 });
  return {
    id,
    sink: ledgerSink(),
    ratePerSecond: 1_000_000,
    pageSize: 50,
    maxReplays: 3,
    maxAttempts: 5,
    repairMethod: "linework",
    repairPolicy: "accept",
    repairOverride: false,
  };
}

function context(batch: BatchConfig, over: Partial<LockedPageContext> = {}): LockedPageContext {
  return {
    pool: db.pool,
    batch,
    workerId: "test-worker",
    actor: { id: null, email: "worker:test", role: "system" },
    geos: getGeos,
    random: () => 0.5,
    clock: () => new Date(),
    stopping: new AbortController().signal,
    isRunning: () => true,
    idleTimeoutMs: 60_000,
    ...over,
  };
}

/** A ledger sink that waits for `open()` before delivering (the page's transaction is open meanwhile). */
function gatedSink(): { sink: TransactionalSink; entered: Promise<void>; open: () => void } {
  let open = () => {};
  let entered = () => {};
  const gate = new Promise<void>((r) => (open = r));
  const enteredP = new Promise<void>((r) => (entered = r));
  const inner = ledgerSink();
  return {
    sink: {
      mode: "in-transaction",
      settle: async (client, subs, now) => {
        entered();
        await gate;
        return inner.settle(client, subs, now);
      },
    },
    entered: enteredP,
    open,
  };
}

async function state(batchId: string) {
  const items = await db.pool.query<{ status: string; n: number; locked: number; losses: number; attempts: number }>(
    `SELECT status::text AS status, count(*)::int AS n, count(locked_by)::int AS locked, sum(lease_losses)::int AS losses,
       sum(attempts)::int AS attempts
     FROM replay_item WHERE batch_id = $1 GROUP BY status ORDER BY status`,
    [batchId],
  );
  const ledger = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entry WHERE batch_id = $1`, [batchId]);
  const records = await db.pool.query<{ status: string; n: number }>(
    `SELECT d.status::text AS status, count(*)::int AS n FROM replay_item i JOIN dead_letter d ON d.id = i.dead_letter_id
     WHERE i.batch_id = $1 GROUP BY d.status`,
    [batchId],
  );
  const batch = await db.pool.query<{ applied_count: number; cancelled_count: number }>(
    `SELECT applied_count, cancelled_count FROM replay_batch WHERE id = $1`,
    [batchId],
  );
  const audit = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM audit_event WHERE action LIKE 'replay.%' AND after->>'batchId' = $1`,
    [batchId],
  );
  return {
    items: items.rows,
    ledger: ledger.rows[0]?.n,
    records: Object.fromEntries(records.rows.map((r) => [r.status, r.n])),
    batch: batch.rows[0],
    audit: audit.rows[0]?.n,
  };
}

describe("a page in one transaction (unpaced ledger)", () => {
  it("delivers and records the page without ever leasing an item: applied, in the ledger, replayed, audited", async () => {
    const batch = await batchOf("lp-ok", 30);
    const page = await processLockedPage(context(batch));
    expect(page).toMatchObject({ kind: "done", claimed: 30, counts: { applied: 30, released: 0, lost: 0 } });
    expect(await state(batch.id)).toEqual({
      items: [{ status: "applied", n: 30, locked: 0, losses: 0, attempts: 0 }],
      ledger: 30,
      records: { replayed: 30 },
      batch: { applied_count: 30, cancelled_count: 0 },
      audit: 30,
    });
    expect(await processLockedPage(context(batch))).toEqual({ kind: "idle" });
  });

  it("holds its items while open: they stay pending to everyone, and neither path can claim them", async () => {
    const gated = gatedSink();
    const batch = await batchOf("lp-held", 10);
    const page = processLockedPage(context({ ...batch, sink: gated.sink }));
    await gated.entered;
    try {
      expect((await state(batch.id)).items).toEqual([{ status: "pending", n: 10, locked: 0, losses: 0, attempts: 0 }]);
      expect(await claimItems(db.pool, { batchId: batch.id, workerId: "other", limit: 50, leaseMs: 10_000 })).toEqual([]);
      expect(await inTransaction(db.pool, (c) => lockItems(c, { batchId: batch.id, limit: 50 }))).toEqual([]);
    } finally {
      gated.open();
    }
    expect(await page).toMatchObject({ kind: "done", claimed: 10, counts: { applied: 10 } });
  });

  it("rolls the whole page back when anything fails before the commit: nothing applied, nothing to sweep", async () => {
    const batch = await batchOf("lp-fail", 12);
    const inner = ledgerSink();
    const failing: TransactionalSink = {
      mode: "in-transaction",
      // The ledger rows go in first, then the transaction fails, as a crash or a lost connection would end it.
      settle: async (client, subs, now) => {
        await inner.settle(client, subs, now);
        throw new Error("connection lost");
      },
    };
    await expect(processLockedPage(context({ ...batch, sink: failing }))).rejects.toThrow("connection lost");
    expect(await state(batch.id)).toEqual({
      items: [{ status: "pending", n: 12, locked: 0, losses: 0, attempts: 0 }],
      ledger: 0,
      records: { approved: 12 },
      batch: { applied_count: 0, cancelled_count: 0 },
      audit: 0,
    });
    // The next page delivers them, once.
    expect(await processLockedPage(context(batch))).toMatchObject({ kind: "done", claimed: 12, counts: { applied: 12 } });
    expect((await state(batch.id)).ledger).toBe(12);
  });

  it("delivers nothing once the batch stops running or the worker stops: the items stay as they were", async () => {
    const batch = await batchOf("lp-pause", 8);
    expect(await processLockedPage(context(batch, { isRunning: () => false }))).toMatchObject({
      kind: "done",
      claimed: 8,
      counts: { released: 8, applied: 0 },
    });
    const stopped = new AbortController();
    stopped.abort();
    expect(await processLockedPage(context(batch, { stopping: stopped.signal }))).toMatchObject({
      kind: "done",
      claimed: 8,
      counts: { released: 8 },
    });
    expect(await state(batch.id)).toMatchObject({
      items: [{ status: "pending", n: 8, locked: 0 }],
      ledger: 0,
      records: { approved: 8 },
      audit: 0,
    });
  });

  it("decides undeliverable items in the same transaction (re-validation drops, records no longer approved)", async () => {
    const ids = await ingest(db, [
      spatialEnvelope({ key: "lp-mix-ok", observedAt: 10, featureId: "lp-mix-a" }),
      afcRecord({ eventId: "lp-mix-e1", deviceId: "lp-mix-d1", at: 20 }),
      spatialEnvelope({ key: "lp-mix-gone", observedAt: 30, featureId: "lp-mix-b" }),
    ]);
    await approve(db, ids);
    const id = await runningBatch(db, users, { ids, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 50 });
    await db.pool.query(`UPDATE dead_letter SET status = 'quarantined' WHERE id = $1`, [ids[2]]);
    const page = await processLockedPage(
      context({
        id,
        sink: ledgerSink(),
        ratePerSecond: 1_000_000,
        pageSize: 50,
        maxReplays: 3,
        maxAttempts: 5,
        repairMethod: "linework",
        repairPolicy: "accept",
        repairOverride: false,
      }),
    );
    expect(page).toMatchObject({ kind: "done", claimed: 3, counts: { applied: 2, cancelled: 1 } });
  });

  it("leaves a suspect (lost with dead workers before) untouched, for the lease path to isolate", async () => {
    const batch = await batchOf("lp-suspect", 5);
    await db.pool.query(`UPDATE replay_item SET lease_losses = 2 WHERE batch_id = $1 AND seq = 3`, [batch.id]);
    expect(await processLockedPage(context(batch))).toEqual({ kind: "suspect" });
    expect(await state(batch.id)).toMatchObject({ items: [{ status: "pending", n: 5, locked: 0, losses: 2 }], ledger: 0 });
  });

  it("keeps an entity's observations in order across concurrent pages: the later one waits for the earlier's commit", async () => {
    // Two observations of one feature and one of another; the first page takes what it may and holds it open.
    const batch = await batchOf("lp-order", 3, (i) => (i < 2 ? "lp-order-same" : "lp-order-other"));
    const gated = gatedSink();
    const first = processLockedPage(context({ ...batch, sink: gated.sink }));
    await gated.entered;
    let second: Awaited<ReturnType<typeof processLockedPage>> | undefined;
    try {
      second = await processLockedPage(context(batch));
    } finally {
      gated.open();
    }
    // The first page holds the feature's older observation and the other feature; the newer one was not claimable.
    expect(await first).toMatchObject({ kind: "done", claimed: 2, counts: { applied: 2 } });
    expect(second).toEqual({ kind: "idle" });
    expect(await processLockedPage(context(batch))).toMatchObject({ kind: "done", claimed: 1, counts: { applied: 1 } });
    const { rows } = await db.pool.query(
      `SELECT idempotency_key FROM entity_state WHERE kind = 'spatial' AND entity_key = 'lp-order-same'`,
    );
    expect(rows).toEqual([{ idempotency_key: "lp-order-1" }]);
  });

  it("needs one connection at a time: a pool of one is enough (slots are reserved before the transaction)", async () => {
    const batch = await batchOf("lp-pool1", 6);
    const one = createDb(process.env.DATABASE_URL as string, 1);
    try {
      const page = await Promise.race([
        processLockedPage(context(batch, { pool: one.pool })),
        new Promise<"stuck">((r) => setTimeout(() => r("stuck"), 10_000)),
      ]);
      expect(page).toMatchObject({ kind: "done", claimed: 6, counts: { applied: 6 } });
    } finally {
      await one.pool.end();
    }
  });

  it("a worker that hangs inside a page loses it: PostgreSQL ends the idle transaction and the items are free again", async () => {
    const gated = gatedSink();
    const batch = await batchOf("lp-hang", 4);
    const page = processLockedPage(context({ ...batch, sink: gated.sink }, { idleTimeoutMs: 300 }));
    page.catch(() => {});
    await gated.entered;
    await new Promise((r) => setTimeout(r, 1000));
    // Claimable by anyone else now (the hung page's locks went with its transaction).
    const free = await inTransaction(db.pool, (c) => lockItems(c, { batchId: batch.id, limit: 50 }));
    expect(free).toHaveLength(4);
    gated.open();
    // The page's next statement fails on the closed connection: an error the worker's lane retries.
    const err = await page.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isTransientDbError(err), String(err)).toBe(true);
    expect(await state(batch.id)).toMatchObject({
      items: [{ status: "pending", n: 4, locked: 0 }],
      ledger: 0,
      records: { approved: 4 },
      audit: 0,
    });
  });

  it("re-checks each record under lock before delivering: one taken back meanwhile is not replayed", async () => {
    const batch = await batchOf("lp-taken", 3);
    const { rows } = await db.pool.query<{ dl: string }>(
      `SELECT dead_letter_id::text AS dl FROM replay_item WHERE batch_id = $1 ORDER BY seq`,
      [batch.id],
    );
    const taken = rows[1]?.dl as string;
    // Between the claim and the delivery (the page loads GEOS for its spatial records there), an analyst quarantines one.
    const page = await processLockedPage(
      context(batch, {
        geos: async () => {
          await db.pool.query(`UPDATE dead_letter SET status = 'quarantined', version = version + 1 WHERE id = $1`, [taken]);
          return getGeos();
        },
      }),
    );
    expect(page).toMatchObject({ kind: "done", claimed: 3, counts: { applied: 2, cancelled: 1 } });
    const item = await db.pool.query(
      `SELECT status::text AS status, last_error FROM replay_item WHERE batch_id = $1 AND dead_letter_id = $2`,
      [batch.id, taken],
    );
    expect(item.rows[0]).toEqual({ status: "cancelled", last_error: "the record is quarantined now (approved when batched)" });
    const ledger = await db.pool.query(
      `SELECT count(*)::int AS n FROM ledger_entry l JOIN dead_letter d ON d.idempotency_key = l.idempotency_key WHERE d.id = $1`,
      [taken],
    );
    expect(ledger.rows[0].n).toBe(0);
  });

  it("holds the records it delivers: a change made while the page is open waits for it, then finds the record replayed", async () => {
    const gated = gatedSink();
    const batch = await batchOf("lp-wait", 2);
    const { rows } = await db.pool.query<{ dl: string }>(
      `SELECT dead_letter_id::text AS dl FROM replay_item WHERE batch_id = $1 ORDER BY seq LIMIT 1`,
      [batch.id],
    );
    const target = rows[0]?.dl as string;
    const page = processLockedPage(context({ ...batch, sink: gated.sink }));
    await gated.entered;
    const change = db.pool.query(
      `UPDATE dead_letter SET status = 'quarantined', version = version + 1 WHERE id = $1 AND status = 'approved' RETURNING id`,
      [target],
    );
    const early = await Promise.race([change.then(() => "changed"), new Promise((r) => setTimeout(() => r("waiting"), 500))]);
    expect(early).toBe("waiting");
    gated.open();
    expect(await page).toMatchObject({ kind: "done", counts: { applied: 2 } });
    expect((await change).rowCount).toBe(0); // by then the record was replayed: the conditional change does nothing
    const after = await db.pool.query(`SELECT status::text AS status FROM dead_letter WHERE id = $1`, [target]);
    expect(after.rows[0].status).toBe("replayed");
  });

  it("a cancel waits for a page being recorded, then counts only what is still waiting: nothing cancelled is applied", async () => {
    const gated = gatedSink();
    const batch = await batchOf("lp-cancel", 10);
    const page = processLockedPage(context({ ...batch, sink: gated.sink }));
    await gated.entered;
    let answered = false;
    const cancel = applyBatchAction(db.pool, batch.id, "cancel", users.creator, { now: new Date() }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(answered).toBe(false); // the page holds the batch row from its status read to its commit
    gated.open();
    expect(await page).toMatchObject({ kind: "done", counts: { applied: 10 } });
    const result = await cancel;
    expect(result).toMatchObject({ status: "cancelled", cancelledItems: 0 });
    await result.itemsCancelled;
    expect(await state(batch.id)).toMatchObject({ items: [{ status: "applied", n: 10 }], ledger: 10 });
  });

  it("a page that reads the batch after a cancel delivers nothing: its items end cancelled, as the cancel counted them", async () => {
    const batch = await batchOf("lp-cancel2", 6);
    const page = await processLockedPage(
      context(batch, {
        // Between the claim and the recording (the page loads GEOS there), a supervisor cancels.
        geos: async () => {
          const r = await applyBatchAction(db.pool, batch.id, "cancel", users.creator, { now: new Date() });
          expect(r.cancelledItems).toBe(6);
          return getGeos();
        },
      }),
    );
    expect(page).toMatchObject({ kind: "done", counts: { applied: 0, cancelled: 6 } });
    expect(await state(batch.id)).toMatchObject({ items: [{ status: "cancelled", n: 6 }], ledger: 0, records: { approved: 6 } });
  });
});
