import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { appendAudit } from "../../lib/audit/append";
import { auditLog } from "../../lib/audit/log";
import { AuditQuerySchema } from "../../lib/audit/log-schema";
import { closeDb, type Db } from "../../lib/db/client";
import { inTransaction } from "../../lib/db/transaction";
import { DEFAULT_MASK_RULES } from "../../lib/masking/rules";
import { makeUser } from "./auth-helpers";
import { testDb } from "./helpers";

// The audit trail as a log (GET /api/audit, /audit): newest first, each filter, keyset paging, masked card data.

const PAN = "4111111111111111";
let db: Db;
let supervisor: { id: string; email: string };

beforeAll(async () => {
  db = await testDb({ truncate: ["user"] });
  supervisor = await makeUser(db, "supervisor");
  const t0 = new Date("2026-11-01T00:00:00Z");
  await inTransaction(db.pool, (c) =>
    appendAudit(
      c,
      [
        {
          actorId: supervisor.id,
          actorEmail: supervisor.email,
          actorRole: "supervisor",
          action: "replay_batch.create",
          targetType: "replay_batch",
          targetId: "7",
        },
        {
          actorId: supervisor.id,
          actorEmail: supervisor.email,
          actorRole: "supervisor",
          action: "replay_batch.approve",
          targetType: "replay_batch",
          targetId: "7",
        },
        {
          actorId: null,
          actorEmail: "system",
          actorRole: "system",
          action: "dead_letter.edited",
          targetType: "dead_letter",
          targetId: "42",
          before: { payload: { card_pan: PAN } },
          after: { payload: { card_pan: "x" } },
          reason: `typo in ${PAN}`,
        },
      ],
      t0,
    ),
  );
  await inTransaction(db.pool, (c) =>
    appendAudit(
      c,
      [
        {
          actorId: null,
          actorEmail: "System",
          actorRole: "system",
          action: "dead_letter.quarantined",
          targetType: "dead_letter",
          targetId: "42",
          reason: "later",
        },
      ],
      new Date("2026-11-03T00:00:00Z"),
    ),
  );
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const q = (raw: Record<string, unknown>) => AuditQuerySchema.parse(raw);
const actions = async (raw: Record<string, unknown>) =>
  (await auditLog(db.pool, UNSCOPED, q(raw), DEFAULT_MASK_RULES)).events.map((e) => e.action);

describe("audit log", () => {
  it("lists events newest first, and filters by action, action prefix, actor, target and time", async () => {
    expect((await actions({})).slice(0, 4)).toEqual([
      "dead_letter.quarantined",
      "dead_letter.edited",
      "replay_batch.approve",
      "replay_batch.create",
    ]);
    expect(await actions({ action: "replay_batch.approve" })).toEqual(["replay_batch.approve"]);
    expect(await actions({ action: "replay_batch." })).toEqual(["replay_batch.approve", "replay_batch.create"]);
    expect(await actions({ actor: supervisor.email.toUpperCase() })).toEqual(["replay_batch.approve", "replay_batch.create"]);
    expect(await actions({ actor: "system" })).toEqual(["dead_letter.quarantined", "dead_letter.edited"]); // not a user: by e-mail
    expect(await actions({ targetType: "dead_letter", targetId: "42" })).toEqual(["dead_letter.quarantined", "dead_letter.edited"]);
    expect(await actions({ targetType: "dead_letter", from: "2026-11-02T00:00:00Z" })).toEqual(["dead_letter.quarantined"]);
    expect(await actions({ targetType: "dead_letter", to: "2026-11-02T00:00:00Z" })).toEqual(["dead_letter.edited"]);
  });

  it("orders by event id as a number and pages through every event (ids past 9 and 99 too)", async () => {
    await inTransaction(db.pool, (c) =>
      appendAudit(
        c,
        Array.from({ length: 120 }, (_, i) => ({
          actorId: null,
          actorEmail: "pager",
          actorRole: "system",
          action: "export.created",
          targetType: "export",
          targetId: String(i),
        })),
        new Date("2026-11-04T00:00:00Z"),
      ),
    );
    const all = (await db.pool.query<{ id: string }>("SELECT a.id::text AS id FROM audit_event a ORDER BY a.id DESC")).rows.map(
      (r) => r.id,
    );
    const seen: string[] = [];
    for (let cursor: string | null | undefined; ;) {
      const page = await auditLog(db.pool, UNSCOPED, q({ limit: "25", ...(cursor ? { cursor } : {}) }), null);
      seen.push(...page.events.map((e) => e.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all);
  });

  it("pages by cursor without gaps or repeats", async () => {
    const first = await auditLog(db.pool, UNSCOPED, q({ limit: "2", targetType: "replay_batch" }), null);
    expect(first.events).toHaveLength(2);
    expect(first.nextCursor).toBeNull();
    const a = await auditLog(db.pool, UNSCOPED, q({ limit: "1" }), null);
    const b = await auditLog(db.pool, UNSCOPED, q({ limit: "1", cursor: a.nextCursor }), null);
    expect(Number(b.events[0]!.id)).toBeLessThan(Number(a.events[0]!.id));
    expect(b.events[0]!.prevHash).toBeTruthy();
  });

  it("masks card data in before, after and reason; shows it as stored without rules", async () => {
    const [masked] = (await auditLog(db.pool, UNSCOPED, q({ action: "dead_letter.edited" }), DEFAULT_MASK_RULES)).events;
    expect(JSON.stringify(masked)).not.toContain(PAN);
    expect(masked!.reason).not.toContain(PAN);
    const [clear] = (await auditLog(db.pool, UNSCOPED, q({ action: "dead_letter.edited" }), null)).events;
    expect(clear!.before).toEqual({ payload: { card_pan: PAN } });
  });

  it("refuses bad queries by field", () => {
    expect(AuditQuerySchema.safeParse({ action: "DROP TABLE" }).error?.issues[0]?.path).toEqual(["action"]);
    expect(AuditQuerySchema.safeParse({ targetType: "table" }).error?.issues[0]?.path).toEqual(["targetType"]);
    expect(AuditQuerySchema.safeParse({ from: "2026-11-02T00:00:00Z", to: "2026-11-01T00:00:00Z" }).error?.issues[0]?.path).toEqual([
      "from",
    ]);
    expect(AuditQuerySchema.safeParse({ cursor: "abc" }).error?.issues[0]?.path).toEqual(["cursor"]);
  });
});
