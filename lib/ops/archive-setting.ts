import "server-only";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { writeSetting } from "../audit/setting-change";
import { inTransaction } from "../db/transaction";
import type { ArchiveSetting } from "./archive-schemas";

// The archive horizon (lib/ops/archive.ts), an admin's setting in app_setting: off (null) unless set, every change
// audited as setting.changed with before and after. The housekeeping loop reads it each round, so a change applies
// within a minute on every server without a restart.

export const ARCHIVE_KEY = "retention.archive_after_days";

const daysOf = (value: unknown): number | null => (typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null);

interface SettingRow {
  value: unknown;
  updated_at: Date;
  email: string | null;
}

const SELECT = `SELECT s.value, s.updated_at, u.email FROM app_setting s LEFT JOIN "user" u ON u.id = s.updated_by_id WHERE s.key = $1`;

function view(row: SettingRow | undefined, retentionDays: number): ArchiveSetting {
  return {
    days: daysOf(row?.value),
    retentionDays,
    updatedAt: row?.updated_at.toISOString() ?? null,
    updatedBy: row?.email ?? null,
  };
}

export async function readArchiveSetting(db: pg.Pool | pg.PoolClient, retentionDays: number): Promise<ArchiveSetting> {
  return view((await db.query<SettingRow>(SELECT, [ARCHIVE_KEY])).rows[0], retentionDays);
}

/** The horizon the housekeeping loop applies: null when archiving is off. */
export async function archiveHorizonDays(db: pg.Pool | pg.PoolClient): Promise<number | null> {
  const { rows } = await db.query<{ value: unknown }>(`SELECT value FROM app_setting WHERE key = $1`, [ARCHIVE_KEY]);
  return daysOf(rows[0]?.value);
}

export async function setArchiveHorizon(
  pool: pg.Pool,
  days: number | null,
  retentionDays: number,
  ctx: { actor: Actor; requestId: string | null; now: Date },
): Promise<ArchiveSetting> {
  return inTransaction(pool, async (client) => {
    const before = daysOf(
      (await client.query<{ value: unknown }>(`SELECT value FROM app_setting WHERE key = $1 FOR UPDATE`, [ARCHIVE_KEY])).rows[0]?.value,
    );
    if (before !== days) {
      await writeSetting(client, { key: ARCHIVE_KEY, value: days, before: { days: before }, after: { days } }, ctx);
    }
    return view((await client.query<SettingRow>(SELECT, [ARCHIVE_KEY])).rows[0], retentionDays);
  });
}
