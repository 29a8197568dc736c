import "server-only";
import type pg from "pg";
import { AppError } from "../../../errors/app-error";
import { destinationPatterns, destinationTexts } from "../../../sources/destinations";
import { destinationsAllowed } from "../../../sources/destination-glob";
import type { OriginDestination } from "./origin-config";
import { HAS_ORIGIN } from "../../../vocabulary/replay-item";

// Where a batch back to origin will publish: its records' origin destinations, as text (lib/sources/destinations.ts),
// with counts, and whether each source's `options.destinations` allows them. The preview lists them for the
// supervisor who creates the batch, the batch keeps them for the one who approves it, and creation refuses a
// record whose destination its source does not allow — a message published straight into a DLQ with forged
// routing headers would otherwise be sent wherever they say, under Redrive's credentials.

/** One group of records: a source and a stored destination (jsonb), as the grouping query reads them. */
export interface DestinationGroup {
  source: string;
  destination: unknown;
  count: number;
}

/**
 * Distinct (source, destination text) with counts, most records first, and which groups are refused. Pure. A
 * RabbitMQ record with several routing keys counts once under each; it is refused when any one is outside.
 */
export function summarizeDestinations(
  groups: readonly DestinationGroup[],
  options: ReadonlyMap<string, unknown>,
): { destinations: OriginDestination[]; refused: DestinationGroup[] } {
  const byText = new Map<string, OriginDestination>();
  const refused: DestinationGroup[] = [];
  for (const g of groups) {
    const patterns = destinationPatterns(options.get(g.source));
    const texts = destinationTexts(g.destination);
    if (!destinationsAllowed(patterns, texts)) refused.push(g);
    for (const text of new Set(texts)) {
      const key = JSON.stringify([g.source, text]);
      const one = byText.get(key) ?? {
        source: g.source,
        destination: text,
        count: 0,
        allowed: destinationsAllowed(patterns, [text]),
      };
      one.count += g.count;
      byText.set(key, one);
    }
  }
  const destinations = [...byText.values()].sort(
    (a, b) => b.count - a.count || a.source.localeCompare(b.source) || a.destination.localeCompare(b.destination),
  );
  return { destinations, refused };
}

/**
 * The destinations of the records `where` selects among those a batch back to origin takes (`eligible`), with
 * the groups their sources refuse. `values` are the parameters `where` uses.
 */
export async function originDestinations(
  db: pg.Pool | pg.PoolClient,
  where: string,
  values: readonly unknown[],
): Promise<{ destinations: OriginDestination[]; refused: DestinationGroup[] }> {
  const { rows } = await db.query<DestinationGroup>(
    `SELECT d.origin_source AS source, d.origin->'destination' AS destination, count(*)::int AS count
     FROM dead_letter d WHERE ${where} AND ${HAS_ORIGIN} GROUP BY 1, 2`,
    [...values],
  );
  if (rows.length === 0) return { destinations: [], refused: [] };
  const sources = await db.query<{ name: string; options: unknown }>(`SELECT name, options FROM source WHERE name = ANY($1::text[])`, [
    [...new Set(rows.map((r) => r.source))],
  ]);
  return summarizeDestinations(rows, new Map(sources.rows.map((s) => [s.name, s.options])));
}

/** Why records cannot go back to origin, counted: as a batch back to origin would leave out or refuse them. */
export interface NotReplayableToOrigin {
  /** not pulled from a broker source (HAS_ORIGIN): nowhere to go back to */
  noBrokerSource: number;
  /** pulled, but published to a destination outside their source's options.destinations (originDestinations' refused) */
  refusedDestination: number;
}

/**
 * How many of the records `where` selects (with `values`) a batch back to origin could not send: the same two
 * checks the batch form's preview and creation make (HAS_ORIGIN, then the sources' allowed destinations).
 */
export async function notReplayableToOrigin(
  db: pg.Pool | pg.PoolClient,
  where: string,
  values: readonly unknown[],
): Promise<NotReplayableToOrigin> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dead_letter d WHERE ${where} AND NOT (${HAS_ORIGIN})`, [
    ...values,
  ]);
  const { refused } = await originDestinations(db, where, values);
  return { noBrokerSource: rows[0]?.n ?? 0, refusedDestination: refused.reduce((n, g) => n + g.count, 0) };
}

/** Ids named in a refusal at most: the answer stays readable, and the count says how many there are. */
const MAX_REFUSED_IDS = 100;

/**
 * 422 naming the records whose destination their source does not allow, when there are any. `ids`: the request's
 * explicit ids, so each refused one is named at its position (ids.N); a filter's are named under `filter`.
 */
export async function refuseDisallowedDestinations(
  db: pg.PoolClient,
  refused: readonly DestinationGroup[],
  where: string,
  values: readonly unknown[],
  ids: readonly string[] | null,
): Promise<void> {
  if (refused.length === 0) return;
  const params = [...values, refused.map((g) => g.source), refused.map((g) => JSON.stringify(g.destination))];
  const { rows } = await db.query<{ id: string; source: string; destination: unknown; total: number }>(
    `SELECT d.id::text AS id, d.origin_source AS source, d.origin->'destination' AS destination, count(*) OVER ()::int AS total
     FROM dead_letter d
     WHERE ${where} AND (d.origin_source, d.origin->'destination') IN (
       SELECT s, dest FROM unnest($${values.length + 1}::text[], $${values.length + 2}::jsonb[]) AS r(s, dest))
     ORDER BY d.id LIMIT ${MAX_REFUSED_IDS}`,
    params,
  );
  const total = rows[0]?.total ?? refused.reduce((n, g) => n + g.count, 0);
  const why = (r: { id: string; source: string; destination: unknown }) =>
    `record ${r.id} would be published to ${destinationTexts(r.destination)
      .map((t) => JSON.stringify(t))
      .join(", ")}, outside source ${r.source}'s options.destinations`;
  const issues = rows.map((r) => {
    const at = ids ? ids.indexOf(r.id) : -1;
    return { path: at >= 0 ? `ids.${at}` : "filter", message: why(r) };
  });
  throw new AppError(
    "validation_failed",
    `${total} record(s) cannot go back to origin: ${rows
      .slice(0, 5)
      .map(why)
      .join("; ")}${total > 5 ? "; …" : ""} (records ${rows.map((r) => r.id).join(", ")}${total > rows.length ? ", …" : ""})`,
    { issues },
  );
}
