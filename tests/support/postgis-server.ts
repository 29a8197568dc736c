import pg from "pg";

// Where the PostGIS sink's tests, e2e spec and bench put their target database. The test server (DATABASE_URL, else
// the embedded PostgreSQL 18, which has no PostGIS) may not offer the extension; the machine's own PostgreSQL 15
// with Debian's postgresql-15-postgis-3 (installed by .ci/run) does. A target is a team's database elsewhere in any
// case: Redrive's database and the target need not share a server.

/** The machine's PostgreSQL (Debian's cluster, trust auth for local TCP on our machines). */
export const MACHINE_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";

function onDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The first server that offers the postgis extension, from REDRIVE_TEST_POSTGIS_URL, then `preferred` (the test
 * server), then the machine's PostgreSQL; or why none does.
 */
export async function findPostgisServer(preferred?: string): Promise<{ url: string } | { reason: string }> {
  const candidates = [...new Set([process.env.REDRIVE_TEST_POSTGIS_URL, preferred, MACHINE_POSTGRES].filter((u): u is string => !!u))];
  const reasons: string[] = [];
  for (const candidate of candidates) {
    const client = new pg.Client({ connectionString: onDatabase(candidate, "postgres"), connectionTimeoutMillis: 5000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'postgis') AS ok`,
      );
      if (rows[0]?.ok) return { url: candidate };
      reasons.push(`${new URL(candidate).host}: no postgis extension available`);
    } catch (err) {
      reasons.push(`${new URL(candidate).host}: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return {
    reason: `no PostgreSQL with PostGIS (${reasons.join("; ")}): apt-get install postgresql-15-postgis-3 and run its cluster on 127.0.0.1:5432, as .ci/run does, or set REDRIVE_TEST_POSTGIS_URL`,
  };
}

export interface PostgisDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** A fresh database named `name` on `server`, with PostGIS unless `postgis: false`. */
export async function createPostgisDatabase(server: string, name: string, opts: { postgis?: boolean } = {}): Promise<PostgisDatabase> {
  const admin = new pg.Client({ connectionString: onDatabase(server, "postgres") });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = onDatabase(server, name);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  if (opts.postgis !== false) await pool.query("CREATE EXTENSION postgis");
  return {
    url,
    pool,
    drop: async () => {
      await pool.end().catch(() => undefined);
      const a = new pg.Client({ connectionString: onDatabase(server, "postgres") });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
