import "server-only";
import { writeSetting } from "../../audit/setting-change";
import type pg from "pg";
import type { Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { SingleApproverSetting } from "./batch-schemas";

// The admin's exception to four eyes: a batch of at most `limit` records may be approved by the supervisor who
// created it (a single approved record replayed through the same paced, ordered, audited engine). 0, the default,
// keeps four eyes for every batch. Stored in app_setting; every change audited with before and after; every use
// audited on the approval it allowed (apply-batch-action.ts).

export const SINGLE_APPROVER_KEY = "replay.single_approver_limit";

interface SettingRow {
  value: unknown;
  updated_at: Date;
  email: string | null;
}

const limitOf = (value: unknown): number => (typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0);

function view(row: SettingRow | undefined): SingleApproverSetting {
  return {
    limit: limitOf(row?.value),
    updatedAt: row?.updated_at.toISOString() ?? null,
    updatedBy: row?.email ?? null,
  };
}

const SELECT = `SELECT s.value, s.updated_at, u.email FROM app_setting s LEFT JOIN "user" u ON u.id = s.updated_by_id WHERE s.key = $1`;

export async function readSingleApproverSetting(db: pg.Pool | pg.PoolClient): Promise<SingleApproverSetting> {
  return view((await db.query<SettingRow>(SELECT, [SINGLE_APPROVER_KEY])).rows[0]);
}

/**
 * The limit an approval is checked against, read in the approving transaction and held (FOR SHARE) until it
 * commits: an admin lowering the limit meanwhile waits, so no approval passes under a limit already gone.
 */
export async function lockedSingleApproverLimit(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ value: unknown }>(`SELECT value FROM app_setting WHERE key = $1 FOR SHARE`, [SINGLE_APPROVER_KEY]);
  return limitOf(rows[0]?.value);
}

export async function setSingleApproverLimit(
  pool: pg.Pool,
  limit: number,
  ctx: { actor: Actor; requestId: string | null; now: Date },
): Promise<SingleApproverSetting> {
  return inTransaction(pool, async (client) => {
    const before = limitOf(
      (await client.query<{ value: unknown }>(`SELECT value FROM app_setting WHERE key = $1 FOR UPDATE`, [SINGLE_APPROVER_KEY])).rows[0]
        ?.value,
    );
    if (before !== limit) {
      await writeSetting(client, { key: SINGLE_APPROVER_KEY, value: limit, before: { value: before }, after: { value: limit } }, ctx);
    }
    return view((await client.query<SettingRow>(SELECT, [SINGLE_APPROVER_KEY])).rows[0]);
  });
}
