// How a migration.sql asks to run: as one transaction (what the schema engine does with any script), or outside
// a transaction, statement by statement, with resumable backfills between them. Markers are SQL comments, so the
// file stays a Prisma migration that any tool can read; only this runner gives them a meaning.

/** First line of a migration whose statements must each run on their own (CREATE INDEX CONCURRENTLY, backfills). */
export const NO_TRANSACTION_MARKER = "-- redrive:no-transaction";
const BACKFILL = /^--\s*redrive:backfill\s+([a-z][a-z0-9_]*)((?:\s+[a-z]+=\S+)*)\s*$/;
const END = /^--\s*redrive:end\s*$/;
const MARKER = /^--\s*redrive:/;

export const DEFAULT_BATCH = 5000;

export type Step =
  | { kind: "sql"; sql: string }
  /**
   * One statement run again and again: `$1` is the last key done (bigint, 0 at the start), `$2` the batch size;
   * it returns one row per key it went through, as column `key`. Done when a batch returns no row.
   */
  | { kind: "backfill"; name: string; sql: string; batch: number };

export type MigrationPlan = { mode: "transaction"; script: string } | { mode: "no-transaction"; steps: Step[] };

export class MigrationScriptError extends Error {}

export function isNoTransaction(script: string): boolean {
  const first = script.split("\n").find((l) => l.trim() !== "");
  return first?.trim() === NO_TRANSACTION_MARKER;
}

export function planMigration(script: string): MigrationPlan {
  if (!isNoTransaction(script)) {
    if (script.split("\n").some((l) => MARKER.test(l.trim()))) {
      throw new MigrationScriptError(`redrive: markers need "${NO_TRANSACTION_MARKER}" as the migration's first line`);
    }
    return { mode: "transaction", script };
  }
  const steps: Step[] = [];
  let open: { name: string; batch: number; lines: string[] } | null = null;
  let plain: string[] = [];
  const flushPlain = () => {
    for (const sql of splitStatements(plain.join("\n"))) steps.push({ kind: "sql", sql });
    plain = [];
  };
  for (const line of script.split("\n")) {
    const t = line.trim();
    const backfill = BACKFILL.exec(t);
    if (backfill) {
      if (open) throw new MigrationScriptError(`redrive:backfill ${backfill[1]} inside backfill ${open.name}`);
      flushPlain();
      open = { name: backfill[1]!, batch: batchOption(backfill[2] ?? "", backfill[1]!), lines: [] };
    } else if (END.test(t)) {
      if (!open) throw new MigrationScriptError("redrive:end without a redrive:backfill");
      const statements = splitStatements(open.lines.join("\n"));
      if (statements.length !== 1) {
        throw new MigrationScriptError(`backfill ${open.name}: one statement expected, found ${statements.length}`);
      }
      const sql = statements[0]!;
      if (!/\$1\b/.test(sql) || !/\$2\b/.test(sql)) {
        throw new MigrationScriptError(`backfill ${open.name}: the statement must use $1 (last key done) and $2 (batch size)`);
      }
      steps.push({ kind: "backfill", name: open.name, sql, batch: open.batch });
      open = null;
    } else if (MARKER.test(t) && t !== NO_TRANSACTION_MARKER) {
      throw new MigrationScriptError(`unknown marker: ${t}`);
    } else if (open) {
      open.lines.push(line);
    } else {
      plain.push(line);
    }
  }
  if (open) throw new MigrationScriptError(`backfill ${open.name} has no redrive:end`);
  flushPlain();
  return { mode: "no-transaction", steps };
}

function batchOption(options: string, name: string): number {
  let batch = DEFAULT_BATCH;
  for (const opt of options.trim().split(/\s+/).filter(Boolean)) {
    const [k, v] = opt.split("=");
    if (k !== "batch" || !/^[1-9][0-9]*$/.test(v ?? "")) throw new MigrationScriptError(`backfill ${name}: unknown option ${opt}`);
    batch = Number(v);
  }
  return batch;
}

/**
 * The statements of a script, without comments-only pieces. Semicolons inside quotes, quoted identifiers, dollar
 * quotes ($$ … $$, $fn$ … $fn$) and comments do not split.
 */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  const push = (end: number) => {
    const s = script.slice(start, end).trim();
    if (stripComments(s).trim() !== "") out.push(s);
  };
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === "-" && next === "-") {
      const eol = script.indexOf("\n", i);
      i = eol === -1 ? n : eol + 1;
    } else if (c === "/" && next === "*") {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (script[i] === "/" && script[i + 1] === "*") {
          depth++;
          i += 2;
        } else if (script[i] === "*" && script[i + 1] === "/") {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'" || c === '"') {
      i++;
      while (i < n) {
        if (script[i] === c && script[i + 1] === c) i += 2;
        else if (script[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === "$") {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i));
      if (tag) {
        const close = script.indexOf(tag[0], i + tag[0].length);
        i = close === -1 ? n : close + tag[0].length;
      } else i++;
    } else if (c === ";") {
      push(i);
      start = i + 1;
      i++;
    } else i++;
  }
  push(n);
  return out;
}

/** The SQL without `--` and block comments (quotes respected), for rules that read statements. */
export function stripComments(sql: string): string {
  let out = "";
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "-" && sql[i + 1] === "-") {
      const eol = sql.indexOf("\n", i);
      i = eol === -1 ? n : eol;
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close === -1 ? n : close + 2;
      out += " ";
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const CONCURRENT_INDEX = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)/i;

/** The index a `CREATE INDEX CONCURRENTLY` statement builds (unquoted), or null for any other statement. */
export function concurrentIndexName(sql: string): string | null {
  const m = CONCURRENT_INDEX.exec(stripComments(sql).trim());
  if (!m) return null;
  const name = m[2]!;
  return name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name.toLowerCase();
}
