import "server-only";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { ColumnTypeEnum, type SqlQuery, type SqlResultSet } from "@prisma/driver-adapter-utils";
import { isNoTransaction } from "./migration-script";
import { runNoTransactionScript } from "./online-runner";

/**
 * pg.Client that reports PostgreSQL's internal `"char"` type (oid 18) as text. The schema engine's catalog
 * queries return `"char"` columns (pg_class.relkind, …) and @prisma/adapter-pg rejects that oid as an
 * unsupported native type; its values are single ASCII characters, which text represents exactly.
 */
export class CatalogSafeClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg's query() overloads cannot be re-declared type-safely, so wrap the instance's method instead.
    // pg.Pool#query calls it callback-style, a checked-out client promise-style: fix the fields in both.
    type AnyQuery = (...a: unknown[]) => unknown;
    const original = (this.query as AnyQuery).bind(this);
    (this as unknown as { query: AnyQuery }).query = (...args: unknown[]) => {
      const last = args.at(-1);
      if (typeof last === "function") {
        const cb = last as (e: Error | null, r: unknown) => void;
        args[args.length - 1] = (err: Error | null, res: unknown) => cb(err, err ? res : textForChar(res));
      }
      const result = original(...args);
      return result instanceof Promise ? result.then(textForChar) : result;
    };
  }
}

/** Suffix on a column name that came from a `"char"` column; charColumns() turns it back into a type. */
const CHAR_MARK = "\u0000char";

function textForChar(res: unknown): unknown {
  for (const one of Array.isArray(res) ? res : [res]) {
    const fields = (one as { fields?: { dataTypeID: number; name: string }[] } | undefined)?.fields;
    for (const f of fields ?? []) {
      if (f.dataTypeID === 18) {
        f.dataTypeID = 25;
        f.name += CHAR_MARK;
      }
    }
  }
  return res;
}

type Queryable = { queryRaw(q: SqlQuery): Promise<SqlResultSet> };

/** The engine reads `"char"` values as Rust chars, so it needs ColumnType Character for those columns. */
function charColumns<T extends Queryable>(q: T): T {
  const queryRaw = q.queryRaw.bind(q);
  q.queryRaw = async (query: SqlQuery) => {
    const r = await queryRaw(query);
    r.columnNames.forEach((name, i) => {
      if (name.endsWith(CHAR_MARK)) {
        r.columnNames[i] = name.slice(0, -CHAR_MARK.length);
        r.columnTypes[i] = ColumnTypeEnum.Character;
      }
    });
    return r;
  };
  return q;
}

/** Connection fields spelled out, because a `connectionString` would override a per-database override. */
export function connectionFields(url: string): pg.PoolConfig {
  const u = new URL(url);
  const sslmode = u.searchParams.get("sslmode");
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || "postgres",
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
    ssl: sslmode && sslmode !== "disable" ? { rejectUnauthorized: sslmode === "verify-full" } : undefined,
  };
}

/**
 * The adapter factory the schema engine needs (it also creates shadow databases). Upstream's
 * connectToShadowDb drops the shadow database before closing the pool connected to it ("being accessed by
 * other users") and inherits the main database from a connection string; this one closes first and passes
 * separate fields.
 */
export class MigrationPgAdapterFactory extends PrismaPg {
  private readonly fields: pg.PoolConfig;

  constructor(url: string) {
    const fields = connectionFields(url);
    super({ ...fields, Client: CatalogSafeClient, max: 4, idleTimeoutMillis: 200, allowExitOnIdle: true });
    this.fields = fields;
  }

  private readonly open = new Set<PgAdapter>();

  override async connect() {
    const adapter = wholeScripts(await super.connect(), this.fields);
    this.open.add(adapter);
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      this.open.delete(adapter);
      await dispose();
    };
    return adapter;
  }

  /** The engine's free() leaves its pools open (the process would linger ~10 s): close what is left. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.open].map((a) => a.dispose()));
  }

  override async connectToShadowDb() {
    const admin = await this.connect();
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID().replaceAll("-", "")}`;
    await admin.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = wholeScripts(
      await new PrismaPg({
        ...this.fields,
        database,
        Client: CatalogSafeClient,
        max: 4,
        idleTimeoutMillis: 200,
        allowExitOnIdle: true,
      }).connect(),
      { ...this.fields, database },
    );
    const disposeShadow = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await disposeShadow();
      try {
        await admin.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      } finally {
        await admin.dispose();
      }
    };
    return shadow;
  }
}

type PgAdapter = Awaited<ReturnType<PrismaPg["connect"]>>;

/**
 * Upstream executeScript splits a migration on every ";", which breaks function bodies ($$ … ; … $$).
 * A parameterless query goes over PostgreSQL's simple protocol, which runs a whole multi-statement script as one
 * transaction. A script marked `-- redrive:no-transaction` runs statement by statement on a session of its own
 * instead (online-runner.ts).
 */
function wholeScripts(adapter: PgAdapter, fields: pg.ClientConfig): PgAdapter {
  charColumns(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolation) => charColumns(await startTransaction(isolation));
  adapter.executeScript = async (script: string) => {
    if (isNoTransaction(script)) return runNoTransactionScript(fields, script);
    await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
  };
  return adapter;
}
