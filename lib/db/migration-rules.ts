// The rule for migrations that touch a table that grows with traffic: nothing may hold a lock that blocks the
// dashboard's reads or ingest for longer than a statement's lock wait (online-runner.ts LOCK_TIMEOUT_MS). So no
// table rewrite, no full scan under an exclusive lock, no index built while writes wait, no unbatched UPDATE.
// Each rule names the online way to do the same thing (README "Migrations on big tables").

import { isNoTransaction, planMigration, splitStatements, stripComments, type Step } from "./migration-script";

/** Tables whose size follows traffic (records, their history, the audit trail, broker positions). */
export const BIG_TABLES = [
  "dead_letter",
  "failure_attempt",
  "identity_alias",
  "audit_event",
  "replay_item",
  "ledger_entry",
  "source_message",
  "dead_letter_note",
  "dead_letter_archive",
  "alert_event",
] as const;

/** Migrations up to this one were applied before the rule existed: they are history, not checked. */
export const RULE_BASELINE = "20261206800000_auth_rate_limit";

export interface Violation {
  statement: string;
  rule: string;
}

const VOLATILE = /\b(random|gen_random_uuid|uuid_generate_v[14]|clock_timestamp|timeofday|nextval)\s*\(|\b(big|small)?serial\b/i;

export function checkMigration(script: string): Violation[] {
  const plan = planMigration(script);
  const steps: Step[] = plan.mode === "transaction" ? [{ kind: "sql", sql: plan.script }] : plan.steps;
  const statements = steps.flatMap((s) =>
    s.kind === "backfill" ? [] : splitStatements(s.sql).map((sql) => ({ sql, flat: flatten(sql) })),
  );
  const all = statements.map((s) => s.flat).join(";\n");
  const out: Violation[] = [];
  const flag = (sql: string, rule: string) => out.push({ statement: sql.slice(0, 200), rule });
  for (const { sql, flat } of statements) {
    const alter = /^alter table (?:if exists )?(?:only )?"?(?:public"?\."?)?([a-z_][a-z0-9_]*)"?\s+(.*)$/s.exec(flat);
    const index = /^create (?:unique )?index (concurrently )?.*? on (?:only )?"?(?:public"?\."?)?([a-z_][a-z0-9_]*)"?/s.exec(flat);
    const dml = /^(?:update|delete from)\s+(?:only )?"?(?:public"?\."?)?([a-z_][a-z0-9_]*)"?/.exec(flat);
    if (index && isBig(index[2]!)) {
      if (!index[1]) flag(sql, `a non-concurrent CREATE INDEX on ${index[2]} blocks its writes while it builds: CREATE INDEX CONCURRENTLY`);
      else if (!/ if not exists /.test(flat))
        flag(sql, "CREATE INDEX CONCURRENTLY IF NOT EXISTS: a migration run again must skip a built index");
    }
    if (dml && isBig(dml[1]!)) {
      flag(
        sql,
        `an unbatched ${flat.split(" ")[0]!.toUpperCase()} of ${dml[1]} locks every row it touches until it ends: a redrive:backfill`,
      );
    }
    if (/^(?:vacuum full|cluster|lock table)\b/.test(flat) && BIG_TABLES.some((t) => flat.includes(t))) {
      flag(sql, "VACUUM FULL, CLUSTER and LOCK TABLE hold an exclusive lock on a big table for their whole run");
    }
    if (!alter || !isBig(alter[1]!)) continue;
    const table = alter[1]!;
    const rest = alter[2]!;
    if (/\badd (?:column )?.*\bgenerated always as\b.*\bstored\b/s.test(rest)) {
      flag(sql, `ADD COLUMN … GENERATED … STORED rewrites ${table}: a nullable column, a trigger for new rows and a redrive:backfill`);
    }
    if (/\balter (?:column )?"?[a-z_0-9]+"? (?:set data )?type\b/.test(rest)) {
      flag(sql, `ALTER COLUMN … TYPE rewrites ${table}: add a new column, backfill it, switch readers, drop the old one later`);
    }
    if (/\badd (?:column )?/.test(rest) && VOLATILE.test(rest)) {
      flag(sql, `ADD COLUMN with a volatile default (or serial) rewrites ${table}: add it nullable, then SET DEFAULT, then backfill`);
    }
    if (/\badd column (?!if not exists)/.test(rest) && isNoTransaction(script)) {
      flag(sql, "ADD COLUMN IF NOT EXISTS: a no-transaction migration may run again after an interruption");
    }
    if (/\balter (?:column )?"?([a-z_0-9]+)"? set not null\b/.test(rest) && !/\bvalidate constraint\b/.test(all)) {
      flag(
        sql,
        `SET NOT NULL scans ${table} under an exclusive lock: ADD CONSTRAINT … CHECK (col IS NOT NULL) NOT VALID, VALIDATE CONSTRAINT, then SET NOT NULL`,
      );
    }
    if (/\badd constraint\b.*\b(check|foreign key)\b/s.test(rest) && !/\bnot valid\b/.test(rest)) {
      flag(
        sql,
        `ADD CONSTRAINT … ${/foreign key/.test(rest) ? "FOREIGN KEY" : "CHECK"} scans ${table} under its lock: add it NOT VALID, then VALIDATE CONSTRAINT`,
      );
    }
    if (/\badd (?:constraint [^ ]+ )?(?:unique|primary key)\b/.test(rest) && !/\busing index\b/.test(rest)) {
      flag(
        sql,
        "a UNIQUE or PRIMARY KEY constraint builds its index under lock: CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT … USING INDEX",
      );
    }
  }
  return out;
}

/** Names of the backfills in a script, which share one progress table across migrations and must not repeat. */
export function backfillNames(script: string): string[] {
  const plan = planMigration(script);
  return plan.mode === "transaction" ? [] : plan.steps.flatMap((s) => (s.kind === "backfill" ? [s.name] : []));
}

function isBig(table: string): boolean {
  return (BIG_TABLES as readonly string[]).includes(table);
}

function flatten(sql: string): string {
  return stripComments(sql).replace(/\s+/g, " ").trim().toLowerCase();
}
