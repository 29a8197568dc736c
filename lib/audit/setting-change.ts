import "server-only";
import type pg from "pg";
import { appendAudit } from "./append";
import { auditActor, type Actor } from "./actor";
import type { JsonValue } from "../json/value";

// An admin's change to one app_setting row, in the caller's transaction: the row upserted and the change audited
// as `setting.changed` with what the caller says was there before and is there after (a secret shown as changed,
// never in clear, is the caller's to write).

export interface SettingChange {
  key: string;
  value: JsonValue;
  before: Record<string, JsonValue>;
  after: Record<string, JsonValue>;
}

export async function writeSetting(
  client: pg.PoolClient,
  change: SettingChange,
  ctx: { actor: Actor; requestId: string | null; now: Date },
): Promise<void> {
  await client.query(
    `INSERT INTO app_setting (key, value, updated_at, updated_by_id) VALUES ($1, $2::jsonb, $3, $4)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, updated_by_id = EXCLUDED.updated_by_id`,
    [change.key, JSON.stringify(change.value), ctx.now, ctx.actor.id],
  );
  await appendAudit(
    client,
    [
      {
        ...auditActor(ctx.actor, ctx.requestId),
        action: "setting.changed",
        targetType: "setting",
        targetId: change.key,
        before: change.before,
        after: change.after,
      },
    ],
    ctx.now,
  );
}
