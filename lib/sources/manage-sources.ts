import "server-only";
import type pg from "pg";
import { appendAudit } from "../audit/append";
import { actorFields, type AuditContext } from "../auth/audit-context";
import { can, type Role } from "../auth/permissions";
import { inTransaction } from "../db/transaction";
import { isUniqueViolation } from "../db/pg-errors";
import { AppError } from "../errors/app-error";
import { brokerSourceInScope, type RecordScope } from "../scope/record-scope";
import { configKey } from "../secrets/config-key";
import { seal, unseal } from "../secrets/seal";
import type { DeadLetterKind } from "../vocabulary/record";
import type { SourceConfig } from "./registry.server";
import { sourceErrorText } from "./error-category";
import { keepShownSealed, openOptions, sealOptions, shownOptions } from "./sealed-options";
import { changedUrl, replacedSecrets } from "./source-credentials";
import {
  displayUrl,
  SOURCE_OPTIONS,
  sourceUrlProblem,
  type CreateSourceBody,
  type PatchSourceBody,
  type SourceType,
  type SourceView,
} from "./source-schemas";

// Sources as stored: created, changed and removed by admins, each change audited in its own transaction; the URL
// sealed at rest (lib/secrets) and served only redacted.

interface SourceRow {
  name: string;
  type: SourceType;
  url_sealed: string;
  kind: DeadLetterKind;
  options: Record<string, unknown>;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  locked_until: Date | null;
  connected: boolean | null;
  waiting: number | null;
  waiting_at: Date | null;
  last_pull_at: Date | null;
  last_error: string | null;
  last_error_category: string | null;
  last_error_at: Date | null;
  failures: number;
  next_attempt_at: Date | null;
  pulled_total: string;
  created_total: string;
  duplicates_total: string;
  unreadable_total: string;
  pulled_day: string | null;
  pulled_today: number;
}

const COLUMNS = `name, type, url_sealed, kind, options, enabled, created_at, updated_at, locked_until, connected, waiting,
  waiting_at, last_pull_at, last_error, last_error_category, last_error_at, failures, next_attempt_at, pulled_total::text, created_total::text,
  duplicates_total::text, unreadable_total::text, to_char(pulled_day, 'YYYY-MM-DD') AS pulled_day, pulled_today`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function urlOf(row: Pick<SourceRow, "url_sealed">): string {
  return unseal(row.url_sealed, configKey());
}

/**
 * Who reads a source: a "manager" (sources:manage, the admins who configure the connection, and the CLI) sees the
 * broker's own words for the last failure; a "reader" sees its category (lib/sources/error-category.ts).
 */
export type SourceAudience = "manager" | "reader";

export const audienceOf = (role: Role): SourceAudience => (can(role, "sources:manage") ? "manager" : "reader");

function toView(row: SourceRow, now: Date, audience: SourceAudience): SourceView {
  let url: string;
  try {
    url = displayUrl(urlOf(row));
  } catch (err) {
    url = `(cannot be read: ${(err as Error).message})`;
  }
  const today = now.toISOString().slice(0, 10);
  return {
    name: row.name,
    type: row.type,
    kind: row.kind,
    url,
    options: shownOptions(row.type, row.options),
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    state: {
      connected: row.connected,
      waiting: row.waiting,
      waitingAt: iso(row.waiting_at),
      lastPullAt: iso(row.last_pull_at),
      lastError: row.last_error === null || audience === "manager" ? row.last_error : sourceErrorText(row.last_error_category),
      lastErrorAt: iso(row.last_error_at),
      failures: row.failures,
      nextAttemptAt: iso(row.next_attempt_at),
      pulledToday: row.pulled_day === today ? row.pulled_today : 0,
      totals: {
        pulled: Number(row.pulled_total),
        created: Number(row.created_total),
        duplicates: Number(row.duplicates_total),
        unreadable: Number(row.unreadable_total),
      },
      pulling: row.locked_until !== null && row.locked_until > now,
    },
  };
}

const notFound = (name: string) =>
  new AppError("not_found", `source ${name} not found`, { issues: [{ path: "name", message: "names no source" }] });

/**
 * The sources `scope` may read, with their state and counts: a reader in teams, those their teams claim by name
 * (brokerSourceInScope); its other teams' sources' counts are not theirs to see.
 */
export async function listSources(pool: pg.Pool, now: Date, audience: SourceAudience, scope: RecordScope): Promise<SourceView[]> {
  const { rows } = await pool.query<SourceRow>(
    `SELECT ${COLUMNS} FROM source ${scope.all ? "" : "WHERE name = ANY($1::text[])"} ORDER BY name`,
    scope.all ? [] : [scope.origins],
  );
  return rows.map((r) => toView(r, now, audience));
}

/** 404 for a source outside `scope`, word for word as for a source that does not exist. */
export function assertSourceInScope(scope: RecordScope, name: string): void {
  if (!brokerSourceInScope(scope, name)) throw notFound(name);
}

export async function getSource(pool: pg.Pool, name: string, now: Date, audience: SourceAudience = "reader"): Promise<SourceView> {
  const { rows } = await pool.query<SourceRow>(`SELECT ${COLUMNS} FROM source WHERE name = $1`, [name]);
  if (!rows[0]) throw notFound(name);
  return toView(rows[0], now, audience);
}

/** The stored source with its URL unsealed, for opening a connection; never served. */
export async function readSourceConfig(
  db: pg.Pool | pg.PoolClient,
  name: string,
): Promise<SourceConfig & { kind: DeadLetterKind; enabled: boolean }> {
  const { rows } = await db.query<SourceRow>(`SELECT ${COLUMNS} FROM source WHERE name = $1`, [name]);
  const row = rows[0];
  if (!row) throw notFound(name);
  return {
    name: row.name,
    type: row.type,
    url: urlOf(row),
    options: openOptions(row.type, row.options),
    kind: row.kind,
    enabled: row.enabled,
  };
}

/** What the audit trail keeps of a source: everything but the URL's secrets. */
function auditView(s: { type: SourceType; kind: string; url: string; options: Record<string, unknown>; enabled: boolean }) {
  return { type: s.type, kind: s.kind, url: displayUrl(s.url), options: shownOptions(s.type, s.options), enabled: s.enabled };
}

export async function createSource(pool: pg.Pool, body: CreateSourceBody, ctx: AuditContext): Promise<SourceView> {
  await inTransaction(pool, async (client) => {
    try {
      await client.query(
        `INSERT INTO source (name, type, url_sealed, kind, options, enabled, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
        [
          body.name,
          body.type,
          seal(body.url, configKey()),
          body.kind,
          JSON.stringify(sealOptions(body.type, body.options)),
          body.enabled,
          ctx.now,
        ],
      );
    } catch (err) {
      if (isUniqueViolation(err, "source_pkey"))
        throw new AppError("conflict", `a source named ${body.name} exists`, { issues: [{ path: "name", message: "is taken" }] });
      throw err;
    }
    await appendAudit(
      client,
      [{ ...actorFields(ctx), action: "source.created", targetType: "source", targetId: body.name, after: auditView(body) }],
      ctx.now,
    );
  });
  return getSource(pool, body.name, ctx.now);
}

export async function updateSource(pool: pg.Pool, name: string, patch: PatchSourceBody, ctx: AuditContext): Promise<SourceView> {
  await inTransaction(pool, async (client) => {
    const { rows } = await client.query<SourceRow>(`SELECT ${COLUMNS} FROM source WHERE name = $1 FOR UPDATE`, [name]);
    const row = rows[0];
    if (!row) throw notFound(name);
    const stored = urlOf(row);
    const credentials = { url: patch.url, username: patch.username, password: patch.password };
    const urlChanged = patch.url !== undefined || patch.username !== undefined || patch.password !== undefined;
    const url = urlChanged ? changedUrl(stored, credentials) : stored;
    const urlProblem = urlChanged ? sourceUrlProblem(row.type, url) : null;
    if (urlProblem) throw new AppError("validation_failed", `url: ${urlProblem}`, { issues: [{ path: "url", message: urlProblem }] });
    let options = row.options;
    if (patch.options !== undefined) {
      const parsed = SOURCE_OPTIONS[row.type].safeParse(patch.options);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: ["options", ...i.path.map(String)].join("."), message: i.message }));
        throw new AppError("validation_failed", `options: ${issues[0]?.message ?? "invalid"}`, { issues });
      }
      options = keepShownSealed(row.type, row.options, parsed.data);
    }
    const next = { type: row.type, kind: patch.kind ?? row.kind, url, options, enabled: patch.enabled ?? row.enabled };
    // A changed connection starts over: the next attempt is now, not after the old URL's backoff.
    const reconnect = urlChanged || patch.options !== undefined || (patch.enabled === true && !row.enabled);
    await client.query(
      `UPDATE source SET url_sealed = $2, kind = $3, options = $4, enabled = $5, updated_at = $6,
         failures = CASE WHEN $7 THEN 0 ELSE failures END, next_attempt_at = CASE WHEN $7 THEN NULL ELSE next_attempt_at END
       WHERE name = $1`,
      [
        name,
        urlChanged ? seal(url, configKey()) : row.url_sealed,
        next.kind,
        JSON.stringify(sealOptions(row.type, options)),
        next.enabled,
        ctx.now,
        reconnect,
      ],
    );
    const before = auditView({ type: row.type, kind: row.kind, url: stored, options: row.options, enabled: row.enabled });
    // The trail never holds a secret, so a replaced password would not show in before/after: it is named.
    const replaced = urlChanged ? replacedSecrets(stored, credentials) : [];
    const action =
      patch.enabled === false && row.enabled
        ? "source.paused"
        : patch.enabled === true && !row.enabled
          ? "source.resumed"
          : "source.updated";
    await appendAudit(
      client,
      [
        {
          ...actorFields(ctx),
          action,
          targetType: "source",
          targetId: name,
          before,
          after: { ...auditView(next), ...(replaced.length ? { secretsReplaced: replaced } : {}) },
        },
      ],
      ctx.now,
    );
  });
  return getSource(pool, name, ctx.now, "manager");
}

/** Removes the source; its records keep their origin, and what it created on the broker is removed by the caller. */
export async function deleteSource(pool: pg.Pool, name: string, ctx: AuditContext): Promise<SourceConfig> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<SourceRow>(`DELETE FROM source WHERE name = $1 RETURNING ${COLUMNS}`, [name]);
    const row = rows[0];
    if (!row) throw notFound(name);
    const url = urlOf(row);
    await appendAudit(
      client,
      [
        {
          ...actorFields(ctx),
          action: "source.removed",
          targetType: "source",
          targetId: name,
          before: auditView({ type: row.type, kind: row.kind, url, options: row.options, enabled: row.enabled }),
        },
      ],
      ctx.now,
    );
    return { name, type: row.type, url, options: openOptions(row.type, row.options) };
  });
}
