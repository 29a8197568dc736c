import "server-only";
import type { RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { appendAudit } from "../../audit/append";
import { actorFields, type AuditContext } from "../../auth/audit-context";
import type { Role } from "../../auth/permissions";
import { inTransaction } from "../../db/transaction";
import { AppError } from "../../errors/app-error";
import { facetCounts } from "../query/facets";
import { filterFromParams } from "../filter-url";
import { viewQuery, type CreateViewBody, type PatchViewBody, type SavedView } from "../contract/views";
import { countCache, COUNTED_VIEWS } from "./view-counts";

// Saved views: read (the reader's own and the team's shared ones), written by their owner (an admin may also
// change or delete a shared one), each change audited in its transaction. A view's live count is the list's
// own count for its filter (facetCounts: the rollup, an index, or a capped direct count), cached briefly.

type Db = pg.Pool | pg.PoolClient;

export interface Reader {
  userId: string;
  role: Role;
  /** a scoped reader sees the views shared by members of their teams; counts are of the reader's records */
  scope: RecordScope;
}

/**
 * Whether `v` is shared with the reader: every shared view for an unscoped reader, those of a teammate for a
 * reader in teams (a view's filter names sources, which another team's members are not shown).
 */
function sharedWith(reader: Reader, values: unknown[]): string {
  if (reader.scope.all) return "v.shared";
  return `(v.shared AND EXISTS (SELECT 1 FROM team_member m WHERE m.user_id = v.owner_id AND m.team_id = ANY($${values.push(reader.scope.teamIds)}::bigint[])))`;
}

interface ViewRow {
  id: string;
  name: string;
  owner_id: string;
  owner_email: string | null;
  shared: boolean;
  filter: string;
  sort: "asc" | "desc";
  columns: string[] | null;
  created_at: Date;
  updated_at: Date;
  is_default: boolean;
}

const COLUMNS = `v.id::text AS id, v.name, v.owner_id, u.email AS owner_email, v.shared, v.filter, v.sort, v.columns,
  v.created_at, v.updated_at, EXISTS (SELECT 1 FROM user_default_view d WHERE d.user_id = $1 AND d.view_id = v.id) AS is_default`;
const FROM = `saved_view v LEFT JOIN "user" u ON u.id = v.owner_id`;

const editableBy = (r: Pick<ViewRow, "owner_id" | "shared">, reader: Reader) =>
  r.owner_id === reader.userId || (r.shared && reader.role === "admin");

function toView(r: ViewRow, reader: Reader): SavedView {
  return {
    id: r.id,
    name: r.name,
    owner: { id: r.owner_id, email: r.owner_email },
    shared: r.shared,
    filter: r.filter,
    sort: r.sort,
    columns: r.columns ?? [],
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    isDefault: r.is_default,
    editable: editableBy(r, reader),
  };
}

/** The reader's views and the shared ones, the reader's default first, then by name. */
export async function listViews(db: Db, reader: Reader): Promise<SavedView[]> {
  const values: unknown[] = [reader.userId];
  const { rows } = await db.query<ViewRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE v.owner_id = $1 OR ${sharedWith(reader, values)} ORDER BY is_default DESC, lower(v.name), v.id`,
    values,
  );
  return rows.map((r) => toView(r, reader));
}

/**
 * Each view's live count, for the first COUNTED_VIEWS of them (the rest: null): one count per distinct filter,
 * cached a few seconds, so an overview refreshed by a team with many views costs a handful of counts.
 */
export async function withCounts(db: Db, scope: RecordScope, views: SavedView[], now: Date): Promise<SavedView[]> {
  const counted = views.slice(0, COUNTED_VIEWS);
  // Cached per scope too: one team's count is not another's.
  const scopeKey = JSON.stringify(scope);
  const counts = await Promise.all(
    counted.map((v) =>
      countCache.get(`${scopeKey}\n${v.filter}`, now.getTime(), () =>
        facetCounts(db, scope, filterFromParams(new URLSearchParams(v.filter)).filter),
      ),
    ),
  );
  return views.map((v, i) => ({ ...v, count: i < counts.length ? { total: counts[i]!.total, exact: counts[i]!.exact } : null }));
}

async function viewForUpdate(client: pg.PoolClient, id: string, reader: Reader): Promise<ViewRow> {
  const values: unknown[] = [reader.userId, id];
  const { rows } = await client.query<ViewRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE v.id = $2 AND (v.owner_id = $1 OR ${sharedWith(reader, values)}) FOR UPDATE OF v`,
    values,
  );
  const row = rows[0];
  // Someone else's personal view (or one shared in another team) is not there for this reader: 404, not 403.
  if (!row) throw new AppError("not_found", `saved view ${id} does not exist`, { issues: [{ path: "id", message: "no such saved view" }] });
  if (!editableBy(row, reader))
    throw new AppError(
      "forbidden",
      `saved view ${id} belongs to ${row.owner_email ?? "another user"}: only its owner or an admin may change it`,
    );
  return row;
}

function nameTaken(err: unknown, name: string): never {
  if ((err as { code?: string }).code === "23505")
    throw new AppError("conflict", `you already have a view named "${name}"`, {
      issues: [{ path: "name", message: "already used by one of your views" }],
    });
  throw err;
}

const snapshot = (v: Pick<ViewRow, "name" | "shared" | "filter" | "sort" | "columns">) => ({
  name: v.name,
  shared: v.shared,
  filter: v.filter,
  sort: v.sort,
  columns: v.columns ?? [],
});

export async function createView(pool: pg.Pool, body: CreateViewBody, reader: Reader, ctx: AuditContext): Promise<SavedView> {
  return inTransaction(pool, async (client) => {
    const ins = await client
      .query<{ id: string }>(
        `INSERT INTO saved_view (name, owner_id, shared, filter, sort, columns, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id::text AS id`,
        [body.name, reader.userId, body.shared, body.filter, body.sort, body.columns, ctx.now],
      )
      .catch((e: unknown) => nameTaken(e, body.name));
    const id = ins.rows[0]!.id;
    await appendAudit(
      client,
      [{ ...actorFields(ctx), action: "saved_view.created", targetType: "saved_view", targetId: id, after: snapshot(body) }],
      ctx.now,
    );
    const { rows } = await client.query<ViewRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE v.id = $2`, [reader.userId, id]);
    return toView(rows[0]!, reader);
  });
}

export async function updateView(pool: pg.Pool, id: string, patch: PatchViewBody, reader: Reader, ctx: AuditContext): Promise<SavedView> {
  return inTransaction(pool, async (client) => {
    const before = await viewForUpdate(client, id, reader);
    const after = { ...snapshot(before), ...patch };
    await client
      .query(`UPDATE saved_view SET name = $2, shared = $3, filter = $4, sort = $5, columns = $6, updated_at = $7 WHERE id = $1`, [
        id,
        after.name,
        after.shared,
        after.filter,
        after.sort,
        after.columns,
        ctx.now,
      ])
      .catch((e: unknown) => nameTaken(e, after.name));
    // Unshared: others can no longer open it, so it stops being their default.
    if (before.shared && !after.shared)
      await client.query("DELETE FROM user_default_view WHERE view_id = $1 AND user_id <> $2", [id, before.owner_id]);
    const action = before.shared !== after.shared ? (after.shared ? "saved_view.shared" : "saved_view.unshared") : "saved_view.updated";
    await appendAudit(
      client,
      [{ ...actorFields(ctx), action, targetType: "saved_view", targetId: id, before: snapshot(before), after }],
      ctx.now,
    );
    const { rows } = await client.query<ViewRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE v.id = $2`, [reader.userId, id]);
    return toView(rows[0]!, reader);
  });
}

export async function deleteView(pool: pg.Pool, id: string, reader: Reader, ctx: AuditContext): Promise<{ deleted: string }> {
  return inTransaction(pool, async (client) => {
    const before = await viewForUpdate(client, id, reader);
    // user_default_view rows go with it (ON DELETE CASCADE).
    await client.query("DELETE FROM saved_view WHERE id = $1", [id]);
    await appendAudit(
      client,
      [{ ...actorFields(ctx), action: "saved_view.deleted", targetType: "saved_view", targetId: id, before: snapshot(before) }],
      ctx.now,
    );
    return { deleted: id };
  });
}

/** Makes a view the reader can see their default (null: none), audited as saved_view.default_set. */
export async function setDefaultView(
  pool: pg.Pool,
  viewId: string | null,
  reader: Reader,
  ctx: AuditContext,
): Promise<{ viewId: string | null }> {
  return inTransaction(pool, async (client) => {
    if (viewId === null) {
      await client.query("DELETE FROM user_default_view WHERE user_id = $1", [reader.userId]);
    } else {
      const values: unknown[] = [viewId, reader.userId];
      const { rowCount } = await client.query(
        `SELECT 1 FROM saved_view v WHERE v.id = $1 AND (v.owner_id = $2 OR ${sharedWith(reader, values)}) FOR KEY SHARE`,
        values,
      );
      if (!rowCount)
        throw new AppError("not_found", `saved view ${viewId} does not exist`, {
          issues: [{ path: "viewId", message: "no such saved view" }],
        });
      await client.query(
        `INSERT INTO user_default_view (user_id, view_id, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET view_id = EXCLUDED.view_id, updated_at = EXCLUDED.updated_at`,
        [reader.userId, viewId, ctx.now],
      );
    }
    await appendAudit(
      client,
      [{ ...actorFields(ctx), action: "saved_view.default_set", targetType: "user", targetId: reader.userId, after: { viewId } }],
      ctx.now,
    );
    return { viewId };
  });
}

/** The list's query string for the reader's default view (its filter and columns, viewQuery), or null. */
export async function defaultViewQuery(db: Db, reader: Reader): Promise<string | null> {
  const values: unknown[] = [reader.userId];
  const { rows } = await db.query<{ filter: string; columns: string[] | null }>(
    `SELECT v.filter, v.columns FROM user_default_view d JOIN saved_view v ON v.id = d.view_id
     WHERE d.user_id = $1 AND (v.owner_id = $1 OR ${sharedWith(reader, values)})`,
    values,
  );
  const row = rows[0];
  return row ? viewQuery({ filter: row.filter, columns: row.columns ?? [] }) : null;
}
