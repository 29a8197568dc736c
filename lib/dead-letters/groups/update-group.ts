import "server-only";
import type { RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { appendAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { can, isRole } from "../../auth/permissions";
import { inTransaction } from "../../db/transaction";
import { AppError } from "../../errors/app-error";
import { applyGroupPatch, auditedState, type GroupState } from "./group-rules";
import type { FailureGroupDetail, GroupPatch, GroupStatus } from "../contract/groups";
import { getGroup, groupKey, userSeesGroup } from "./read-groups";
import { resolveMentions } from "../notes/notes";

// PATCH /api/groups/{id} and `redrive group resolve|ignore|assign`: a person changes a group's status or owner,
// or adds a note. The change and its audit event commit together, on the group's row locked and read again
// inside the transaction (an ingest reopening it at the same moment waits, or is waited for).

export interface GroupChangeContext {
  actor: Actor;
  /** the changer's records: a group holding none of them answers 404 */
  scope: RecordScope;
  requestId: string | null;
  now: Date;
}

interface LockedRow {
  status: GroupStatus;
  owner_id: string | null;
  resolution_reason: string | null;
  resolution_link: string | null;
  resolved_at: Date | null;
  regression: boolean;
  version: number;
}

/**
 * An owner must be a user who may work on records (analyst or supervisor), not disabled, and able to open the group
 * (its records in their teams): assigning it to someone who gets a 404 for it would leave it unowned in effect.
 */
async function checkOwner(client: pg.PoolClient, ownerId: string, groupId: string, now: Date): Promise<void> {
  const { rows } = await client.query<{ role: string; disabled: boolean }>('SELECT role, disabled FROM "user" WHERE id = $1', [ownerId]);
  const u = rows[0];
  const why = !u
    ? "no such user"
    : u.disabled
      ? "is disabled"
      : !isRole(u.role) || !can(u.role, "dead_letters:triage")
        ? "may not triage records"
        : !(await userSeesGroup(client, ownerId, groupId, now))
          ? "cannot open this group: its records are not in their teams"
          : null;
  if (why) throw new AppError("validation_failed", `owner ${ownerId}: ${why}`, { issues: [{ path: "owner", message: why }] });
}

export async function updateGroup(pool: pg.Pool, id: string, patch: GroupPatch, ctx: GroupChangeContext): Promise<FailureGroupDetail> {
  await getGroup(pool, ctx.scope, id, ctx.now);
  await inTransaction(pool, async (client) => {
    const key = await groupKey(client, id);
    // A group whose reason came from a failed replay has no row yet: it gets one now (first/last seen unknown,
    // taken as now).
    await client.query(
      `INSERT INTO failure_group (id, source, reason_group, first_seen_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (id) DO NOTHING`,
      [id, key.source, key.reasonGroup, ctx.now],
    );
    const { rows } = await client.query<LockedRow>(
      `SELECT status::text AS status, owner_id, resolution_reason, resolution_link, resolved_at, regression, version
       FROM failure_group WHERE id = $1 FOR UPDATE`,
      [id],
    );
    const row = rows[0] as LockedRow;
    if (patch.version !== undefined && patch.version !== row.version) {
      throw new AppError("conflict", `failure group ${id} changed since it was read (version ${row.version}, not ${patch.version})`, {
        issues: [{ path: "version", message: `is now ${row.version}: read the group again` }],
      });
    }
    if (patch.owner) await checkOwner(client, patch.owner, id, ctx.now);
    const current: GroupState = {
      status: row.status,
      ownerId: row.owner_id,
      resolutionReason: row.resolution_reason,
      resolutionLink: row.resolution_link,
      resolvedAt: row.resolved_at,
      regression: row.regression,
    };
    const audits: AuditInput[] = [];
    const base = {
      ...auditActor(ctx.actor, ctx.requestId),
      targetType: "failure_group",
      targetId: id,
    };
    const next = applyGroupPatch(current, patch, ctx.now);
    if (next) {
      await client.query(
        `UPDATE failure_group SET status = $2::"FailureGroupStatus", owner_id = $3, resolution_reason = $4, resolution_link = $5,
           resolved_at = $6, regression = $7, regressed_at = CASE WHEN $7 THEN regressed_at END, updated_at = $8, version = version + 1
         WHERE id = $1`,
        [id, next.status, next.ownerId, next.resolutionReason, next.resolutionLink, next.resolvedAt, next.regression, ctx.now],
      );
      audits.push({
        ...base,
        action: "failure_group.updated",
        before: { source: key.source, reasonGroup: key.reasonGroup, ...auditedState(current) },
        after: { source: key.source, reasonGroup: key.reasonGroup, ...auditedState(next) },
      });
    }
    if (patch.note !== undefined) {
      // @handles resolved as on a record's note, so the note is highlighted and listed under the person's mentions.
      const mentions = await resolveMentions(client, patch.note);
      const note = await client.query<{ id: string }>(
        `INSERT INTO failure_group_note (group_id, author_id, author_email, body, mentions, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id::text AS id`,
        [id, ctx.actor.id, ctx.actor.email ?? "unknown", patch.note, mentions.map((m) => m.id), ctx.now],
      );
      // A note bumps the version too: a reader's copy is out of date.
      if (!next) await client.query("UPDATE failure_group SET version = version + 1, updated_at = $2 WHERE id = $1", [id, ctx.now]);
      audits.push({
        ...base,
        action: "failure_group.note_added",
        after: { noteId: note.rows[0]?.id, body: patch.note, mentions: mentions.map((m) => m.email) },
      });
    }
    await appendAudit(client, audits, ctx.now);
  });
  return getGroup(pool, ctx.scope, id, ctx.now);
}
