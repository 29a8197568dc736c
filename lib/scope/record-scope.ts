// Which dead letters a principal may see or change: the one seam every read and write of records passes. A user in
// no team is unscoped (every record, as before teams); a user in teams sees the records whose `source` matches one
// of their teams' names or prefixes, or whose broker source (`origin_source`) is one of their teams' origins.
// Pure: the SQL predicate is built here and every query builder that reads records takes a RecordScope argument,
// so a path that forgets it does not compile.

/** One team's claim on records: a source name, a prefix (the name without its trailing `*`), or a broker source. */
export interface TeamClaim {
  source?: string | null;
  origin?: string | null;
}

export type RecordScope =
  | { readonly all: true }
  | {
      readonly all: false;
      /** the team ids the scope comes from (saved views are shared within them) */
      readonly teamIds: readonly string[];
      readonly sources: readonly string[];
      /** source prefixes, without the `*` */
      readonly prefixes: readonly string[];
      readonly origins: readonly string[];
    };

export const UNSCOPED: RecordScope = Object.freeze({ all: true });

/** The scope of a user given their teams' claims; `inTeams` false (no team) means unscoped. */
export function scopeOf(teams: readonly { id: string; claims: readonly TeamClaim[] }[]): RecordScope {
  if (teams.length === 0) return UNSCOPED;
  const sources = new Set<string>();
  const prefixes = new Set<string>();
  const origins = new Set<string>();
  for (const team of teams)
    for (const c of team.claims) {
      if (c.source) {
        if (c.source.endsWith("*")) prefixes.add(c.source.slice(0, -1));
        else sources.add(c.source);
      }
      if (c.origin) origins.add(c.origin);
    }
  return {
    all: false,
    teamIds: teams.map((t) => t.id).sort(),
    sources: [...sources].sort(),
    prefixes: [...prefixes].sort(),
    origins: [...origins].sort(),
  };
}

/** Whether a record with this source and broker source is in scope (for answers built outside SQL). */
export function inScope(scope: RecordScope, record: { source: string; originSource?: string | null }): boolean {
  if (scope.all) return true;
  if (scope.sources.includes(record.source)) return true;
  if (scope.prefixes.some((p) => record.source.startsWith(p))) return true;
  return record.originSource != null && scope.origins.includes(record.originSource);
}

/**
 * Whether a source name (not a record) may be named to this scope: a facet, a metric label, a group's source. A
 * triage rule (lib/rules) is in the teams its match names: a scoped user lists and edits only the rules whose
 * source passes this (a prefix match names the prefix itself); a rule naming no source is an admin's.
 */
export function sourceInScope(scope: RecordScope, source: string): boolean {
  return inScope(scope, { source });
}

/**
 * Whether a broker source (lib/sources: its configuration, state and per-source counts) is shown to this scope: the
 * ones its teams claim by name (`origin`), as the records pulled from it are theirs. Another is not there (404).
 */
export function brokerSourceInScope(scope: RecordScope, name: string): boolean {
  return scope.all || scope.origins.includes(name);
}

/** The smallest string greater than every string starting with `prefix` (an index range's upper bound). */
function upperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/**
 * The scope as one SQL condition on the dead_letter row `alias` (`source` and `origin_source` columns), or "TRUE".
 * A prefix is a range on `source` (dead_letter_source_cover_idx answers it as an index range) with the LIKE as a
 * recheck, so the range is exact under any collation. A scope with no claims matches nothing.
 */
export function scopeSql(scope: RecordScope, p: (v: unknown) => string, alias = "d"): string {
  if (scope.all) return "TRUE";
  const a = alias ? `${alias}.` : "";
  const ors: string[] = [];
  if (scope.sources.length === 1) ors.push(`${a}source = ${p(scope.sources[0])}`);
  else if (scope.sources.length > 1) ors.push(`${a}source = ANY(${p(scope.sources)}::text[])`);
  for (const prefix of scope.prefixes) {
    if (prefix === "") return "TRUE"; // `*` alone: every source
    ors.push(`(${a}source >= ${p(prefix)} AND ${a}source < ${p(upperBound(prefix))} AND ${a}source LIKE ${p(`${escapeLike(prefix)}%`)})`);
  }
  if (scope.origins.length === 1) ors.push(`${a}origin_source = ${p(scope.origins[0])}`);
  else if (scope.origins.length > 1) ors.push(`${a}origin_source = ANY(${p(scope.origins)}::text[])`);
  if (ors.length === 0) return "FALSE";
  return ors.length === 1 ? ors[0]! : `(${ors.join(" OR ")})`;
}

/** A condition that a source-named column (a group's, a stat's, a metric's) is in scope; origins do not apply. */
export function sourceColumnSql(scope: RecordScope, p: (v: unknown) => string, column: string): string {
  if (scope.all) return "TRUE";
  const ors: string[] = [];
  if (scope.sources.length) ors.push(`${column} = ANY(${p(scope.sources)}::text[])`);
  for (const prefix of scope.prefixes) {
    if (prefix === "") return "TRUE";
    ors.push(`(${column} >= ${p(prefix)} AND ${column} < ${p(upperBound(prefix))} AND ${column} LIKE ${p(`${escapeLike(prefix)}%`)})`);
  }
  return ors.length === 0 ? "FALSE" : `(${ors.join(" OR ")})`;
}

/** `p` for a values array: pushes and names the parameter. */
export function paramsOf(values: unknown[]): (v: unknown) => string {
  return (v) => `$${values.push(v)}`;
}

/**
 * A replay batch (alias `b`) is in scope when every record it holds is: a batch that reaches into another team's
 * records is not shown, approved or changed by a scoped user (it answers 404). Records archived since (their
 * replay_item rows went with them; lib/ops/archive.ts) still count, through the archive's batch ids. A rule's
 * standing batch is also in its rule version's teams (ruleInScope, in SQL): it is opened empty and may stay so,
 * and an empty batch holds no record that could place it.
 */
export function batchInScopeSql(scope: RecordScope, p: (v: unknown) => string, batchAlias = "b"): string {
  if (scope.all) return "TRUE";
  return `NOT EXISTS (SELECT 1 FROM replay_item si JOIN dead_letter sd ON sd.id = si.dead_letter_id
    WHERE si.batch_id = ${batchAlias}.id AND NOT coalesce(${scopeSql(scope, p, "sd")}, false))
    AND NOT EXISTS (SELECT 1 FROM dead_letter_archive sa
    WHERE sa.replay_batch_ids @> ARRAY[${batchAlias}.id] AND NOT coalesce(${scopeSql(scope, p, "sa")}, false))
    AND (${batchAlias}.rule_id IS NULL OR EXISTS (SELECT 1 FROM (
      SELECT coalesce(rv.match->>'source', '') AS source, rv.match->>'origin' AS origin_source FROM rule_version rv
      WHERE rv.rule_id = ${batchAlias}.rule_id AND rv.version = ${batchAlias}.rule_version) sr
    WHERE coalesce(${scopeSql(scope, p, "sr")}, false)))`;
}

/**
 * A settled key (ledger_entry, alias `l`) is shown to a scoped reader when its record (live or archived) is theirs;
 * one whose record is gone names no source, so it is shown to unscoped readers only.
 */
export function ledgerInScopeSql(scope: RecordScope, p: (v: unknown) => string, ledgerAlias = "l"): string {
  if (scope.all) return "TRUE";
  return `(EXISTS (SELECT 1 FROM dead_letter sd WHERE sd.id = ${ledgerAlias}.dead_letter_id AND ${scopeSql(scope, p, "sd")})
    OR EXISTS (SELECT 1 FROM dead_letter_archive sa WHERE sa.id = ${ledgerAlias}.dead_letter_id AND ${scopeSql(scope, p, "sa")}))`;
}
