import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_DIR, migrationNames } from "./migration-files";
import { backfillNames, checkMigration, RULE_BASELINE } from "./migration-rules";

const rules = (script: string) => checkMigration(script).map((v) => v.rule.split(/[:.]/)[0]);

describe("checkMigration", () => {
  it("refuses what rewrites or locks a big table", () => {
    expect(rules('ALTER TABLE "dead_letter" ADD COLUMN "doc" tsvector GENERATED ALWAYS AS (f(payload)) STORED;')).toEqual([
      "ADD COLUMN … GENERATED … STORED rewrites dead_letter",
    ]);
    expect(rules('CREATE INDEX "audit_event_x_idx" ON "audit_event" ("x");')).toEqual([
      "a non-concurrent CREATE INDEX on audit_event blocks its writes while it builds",
    ]);
    expect(rules('ALTER TABLE "public"."replay_item" ALTER COLUMN "n" SET DATA TYPE bigint;')).toEqual([
      "ALTER COLUMN … TYPE rewrites replay_item",
    ]);
    expect(rules("ALTER TABLE source_message ADD COLUMN token uuid DEFAULT gen_random_uuid();")).toEqual([
      "ADD COLUMN with a volatile default (or serial) rewrites source_message",
    ]);
    expect(rules("ALTER TABLE dead_letter ALTER COLUMN note SET NOT NULL;")).toEqual([
      "SET NOT NULL scans dead_letter under an exclusive lock",
    ]);
    expect(rules("ALTER TABLE dead_letter ADD CONSTRAINT c CHECK (x > 0);")).toEqual([
      "ADD CONSTRAINT … CHECK scans dead_letter under its lock",
    ]);
    expect(rules("ALTER TABLE failure_attempt ADD CONSTRAINT u UNIQUE (a, b);")).toEqual([
      "a UNIQUE or PRIMARY KEY constraint builds its index under lock",
    ]);
    expect(rules("UPDATE dead_letter SET doc = f(payload);")).toEqual([
      "an unbatched UPDATE of dead_letter locks every row it touches until it ends",
    ]);
    expect(rules("-- redrive:no-transaction\nCREATE INDEX CONCURRENTLY x ON dead_letter (a);")).toEqual([
      "CREATE INDEX CONCURRENTLY IF NOT EXISTS",
    ]);
    expect(rules("-- redrive:no-transaction\nALTER TABLE dead_letter ADD COLUMN a int;")).toEqual(["ADD COLUMN IF NOT EXISTS"]);
  });

  it("lets the online way through, and anything on small tables", () => {
    const online = `-- redrive:no-transaction
ALTER TABLE dead_letter ADD COLUMN IF NOT EXISTS doc tsvector;
ALTER TABLE dead_letter ADD COLUMN IF NOT EXISTS seen timestamptz DEFAULT now();
ALTER TABLE dead_letter ADD CONSTRAINT doc_nn CHECK (doc IS NOT NULL) NOT VALID;
ALTER TABLE dead_letter VALIDATE CONSTRAINT doc_nn;
ALTER TABLE dead_letter ALTER COLUMN doc SET NOT NULL;
-- redrive:backfill dl_doc
UPDATE dead_letter d SET doc = f(d.payload) FROM (SELECT id FROM dead_letter WHERE id > $1 ORDER BY id LIMIT $2) b
WHERE d.id = b.id RETURNING d.id AS key;
-- redrive:end
CREATE INDEX CONCURRENTLY IF NOT EXISTS dl_doc_idx ON dead_letter USING gin (doc);
ALTER TABLE failure_attempt ADD CONSTRAINT u UNIQUE USING INDEX u_idx;`;
    expect(checkMigration(online)).toEqual([]);
    expect(
      checkMigration(`CREATE INDEX s_idx ON "source" (name); UPDATE app_setting SET v = 1;
ALTER TABLE saved_view ADD COLUMN c text GENERATED ALWAYS AS (lower(name)) STORED;`),
    ).toEqual([]);
  });
});

describe("bench:migration's change", () => {
  it("is the online way on dead_letter, and passes", async () => {
    const dir = join(import.meta.dirname, "../../scripts/bench/online-migration");
    const [name] = await readdir(dir);
    expect(checkMigration(await readFile(join(dir, name!, "migration.sql"), "utf8"))).toEqual([]);
  });
});

describe("migrations added after the rule", () => {
  it("would have refused the search document's rewrite of dead_letter (history, applied before the rule)", async () => {
    const name = (await migrationNames()).find((n) => n.endsWith("_search_doc_column"))!;
    const script = await readFile(join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
    expect(rules(script)).toEqual([
      "ADD COLUMN … GENERATED … STORED rewrites dead_letter",
      "a non-concurrent CREATE INDEX on dead_letter blocks its writes while it builds",
    ]);
  });

  it("keep every big table online (applied ones before it are history)", async () => {
    const names = (await migrationNames()).filter((n) => n > RULE_BASELINE);
    const problems: string[] = [];
    for (const name of names) {
      const script = await readFile(join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
      for (const v of checkMigration(script)) problems.push(`${name}: ${v.rule}\n    ${v.statement}`);
    }
    expect(problems, "README: Migrations on big tables").toEqual([]);
  });

  it("name each backfill once (they share one progress table)", async () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const name of await migrationNames()) {
      const script = await readFile(join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
      for (const b of backfillNames(script)) {
        if (seen.has(b)) repeated.push(`${b}: ${seen.get(b)} and ${name}`);
        seen.set(b, name);
      }
    }
    expect(repeated).toEqual([]);
  });
});
