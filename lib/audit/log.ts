import "server-only";
import type pg from "pg";
import type { JsonValue } from "@/lib/json/value";
import { batchInScopeSql, scopeSql, type RecordScope } from "../scope/record-scope";
import { maskFreeText, maskJson } from "../masking/mask";
import type { MaskRules } from "../masking/rules";
import type { AuditLogEvent, AuditLogPage, AuditQuery } from "./log-schema";
import { AUDIT_EVENT_COLUMNS, type AuditEventRow } from "./row";

// The audit trail as a log, newest first, for auditors and admins: every event (sign-ins, tokens, roles, triage,
// replay batches and outcomes, exports, alert rules), filtered and paged by id. Card data inside before/after/
// diff and reasons is masked like everywhere else; a record's timeline is where an auditor reveals a field.

type Db = pg.Pool | pg.PoolClient;

/** LIKE pattern for an action prefix ("replay_batch." → every replay_batch.* action). */
const prefixPattern = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `scope`: an auditor in teams reads the events of their teams' records (and of replay batches of those records,
 * and of their teams' alert rules: changes, firings) only; verifying the chain, which reads every event, stays an admin's (lib/audit/verify.ts, the CLI).
 */
export async function auditLog(db: Db, scope: RecordScope, q: AuditQuery, mask: MaskRules | null): Promise<AuditLogPage> {
  const values: unknown[] = [];
  const p = (v: unknown) => `$${values.push(v)}`;
  const where: string[] = [];
  if (!scope.all) {
    where.push(`((a.target_type = 'dead_letter' AND EXISTS (SELECT 1 FROM dead_letter d WHERE d.id::text = a.target_id AND ${scopeSql(scope, p)}))
      OR (a.target_type = 'replay_batch' AND EXISTS (SELECT 1 FROM replay_batch b WHERE b.id::text = a.target_id AND ${batchInScopeSql(scope, p)}))
      OR (a.target_type = 'alert_rule' AND EXISTS (SELECT 1 FROM alert_rule r WHERE r.id = a.target_id AND r.team_id = ANY(${p(scope.teamIds)}::bigint[]))))`);
  }
  if (q.action) where.push(q.action.endsWith(".") ? `action LIKE ${p(prefixPattern(q.action))}` : `action = ${p(q.action)}`);
  if (q.actor) {
    // Through the user's id when the e-mail is a user's (indexed); events of deleted or system actors by e-mail.
    const user = await db.query<{ id: string }>(`SELECT id FROM "user" WHERE lower(email) = lower($1)`, [q.actor]);
    where.push(user.rows[0] ? `actor_id = ${p(user.rows[0].id)}` : `lower(actor_email) = lower(${p(q.actor)})`);
  }
  if (q.targetType) where.push(`target_type = ${p(q.targetType)}`);
  if (q.targetId) where.push(`target_id = ${p(q.targetId)}`);
  if (q.from) where.push(`at >= ${p(q.from)}`);
  if (q.to) where.push(`at <= ${p(q.to)}`);
  if (q.cursor) where.push(`id < ${p(q.cursor)}`);
  const { rows } = await db.query<AuditEventRow>(
    `SELECT ${AUDIT_EVENT_COLUMNS}
     FROM audit_event a ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     -- a.id, the bigint: plain "id" would sort the text alias of the select list ("9" after "10").
     ORDER BY a.id DESC LIMIT ${p(q.limit + 1)}`,
    values,
  );
  const page = rows.slice(0, q.limit);
  const m = (v: JsonValue | null): JsonValue | null => (v === null || !mask ? v : maskJson(v, mask));
  const events: AuditLogEvent[] = page.map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    actor: { id: r.actor_id, email: r.actor_email, role: r.actor_role },
    action: r.action,
    target: { type: r.target_type, id: r.target_id },
    reason: r.reason === null || !mask ? r.reason : maskFreeText(r.reason, mask),
    before: m(r.before),
    after: m(r.after),
    diff: m(r.diff),
    requestId: r.request_id,
    hash: r.hash,
    prevHash: r.prev_hash,
  }));
  return { events, nextCursor: rows.length > q.limit ? (page.at(-1)?.id ?? null) : null, masked: mask !== null };
}
