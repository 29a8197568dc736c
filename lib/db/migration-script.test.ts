import { describe, expect, it } from "vitest";
import { concurrentIndexName, MigrationScriptError, planMigration, splitStatements, stripComments } from "./migration-script";

describe("planMigration", () => {
  it("leaves a script without the marker whole, as the schema engine has always run it", () => {
    const script = "CREATE TABLE a (id int);\nCREATE INDEX a_idx ON a (id);\n";
    expect(planMigration(script)).toEqual({ mode: "transaction", script });
  });

  it("splits a marked script into statements and backfills, in file order", () => {
    const plan = planMigration(`
-- redrive:no-transaction
-- why this migration exists
ALTER TABLE t ADD COLUMN IF NOT EXISTS doc tsvector;
CREATE OR REPLACE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.doc := NULL; RETURN NEW; END $$;
-- redrive:backfill t_doc batch=200
UPDATE t SET doc = to_tsvector('simple', body)
FROM (SELECT id FROM t WHERE id > $1 ORDER BY id LIMIT $2) b WHERE t.id = b.id RETURNING t.id AS key;
-- redrive:end
CREATE INDEX CONCURRENTLY IF NOT EXISTS t_doc_idx ON t USING gin (doc);
`);
    expect(plan.mode).toBe("no-transaction");
    if (plan.mode !== "no-transaction") return;
    expect(plan.steps.map((s) => (s.kind === "backfill" ? `backfill ${s.name} ${s.batch}` : s.sql.split("\n").at(-1)))).toEqual([
      "ALTER TABLE t ADD COLUMN IF NOT EXISTS doc tsvector",
      "CREATE OR REPLACE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.doc := NULL; RETURN NEW; END $$",
      "backfill t_doc 200",
      "CREATE INDEX CONCURRENTLY IF NOT EXISTS t_doc_idx ON t USING gin (doc)",
    ]);
  });

  it("refuses markers it cannot honour", () => {
    const bad = [
      "CREATE TABLE a (id int);\n-- redrive:backfill x\nUPDATE a SET id = id WHERE id > $1 LIMIT $2;\n-- redrive:end",
      "-- redrive:no-transaction\n-- redrive:backfill x\nUPDATE a SET id = 1;\n-- redrive:end",
      "-- redrive:no-transaction\n-- redrive:backfill x\nSELECT $1, $2;\nSELECT $1, $2;\n-- redrive:end",
      "-- redrive:no-transaction\n-- redrive:backfill x\nSELECT $1, $2;",
      "-- redrive:no-transaction\n-- redrive:end",
      "-- redrive:no-transaction\n-- redrive:backfill x batch=0\nSELECT $1, $2;\n-- redrive:end",
      "-- redrive:no-transaction\n-- redrive:backfil x\nSELECT 1;",
    ];
    for (const script of bad) expect(() => planMigration(script), script).toThrow(MigrationScriptError);
  });
});

describe("splitStatements", () => {
  it("splits on semicolons outside quotes, dollar quotes and comments", () => {
    const sql = `SELECT 'a;b'; SELECT "x;y" FROM t; -- c;d
SELECT $fn$ ; $$ ; $fn$; /* e; /* nested; */ f; */ SELECT 1;;`;
    expect(splitStatements(sql)).toEqual([
      "SELECT 'a;b'",
      'SELECT "x;y" FROM t',
      "-- c;d\nSELECT $fn$ ; $$ ; $fn$",
      "/* e; /* nested; */ f; */ SELECT 1",
    ]);
  });

  it("drops pieces that are only comments", () => {
    expect(splitStatements("-- nothing here;\n/* nor; here */\n")).toEqual([]);
  });
});

describe("stripComments / concurrentIndexName", () => {
  it("keeps quoted text that looks like a comment", () => {
    expect(stripComments("SELECT '--x' -- gone\n, 'it''s' /* gone */")).toBe("SELECT '--x' \n, 'it''s'  ");
  });

  it("names the index of a concurrent build, quoted or not, and nothing else", () => {
    expect(concurrentIndexName('-- c\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "Dl_Doc" ON t (x)')).toBe("Dl_Doc");
    expect(concurrentIndexName("create unique index concurrently dl_doc on t (x)")).toBe("dl_doc");
    expect(concurrentIndexName("CREATE INDEX dl_doc ON t (x)")).toBeNull();
  });
});
