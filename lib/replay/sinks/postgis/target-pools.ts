import "server-only";
import pg from "pg";
import { postgisConnection } from "./postgis-connection";

// One connection pool per PostGIS target URL in this process: every batch (and lane) writing to the same database
// shares it, so a worker holds at most MAX_CONNECTIONS connections to a team's database whatever it runs. Idle
// connections close after IDLE_MS; the worker closes the rest when it stops (closeTargetPools).

/** A page is one statement: a few connections keep two lanes and a check busy without crowding a team's server. */
const MAX_CONNECTIONS = 4;
const IDLE_MS = 10_000;
/** A page statement on a healthy server takes milliseconds; a minute means a lock or an overloaded target. */
const STATEMENT_TIMEOUT_MS = 60_000;

const pools = new Map<string, pg.Pool>();

export function targetPool(url: string): pg.Pool {
  let pool = pools.get(url);
  if (!pool) {
    pool = new pg.Pool({
      ...postgisConnection(url),
      max: MAX_CONNECTIONS,
      idleTimeoutMillis: IDLE_MS,
      connectionTimeoutMillis: 10_000,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      application_name: "redrive-postgis-sink",
      // a timestamp-without-time-zone column then receives UTC, as Redrive stores observation times
      options: "-c TimeZone=UTC",
      allowExitOnIdle: true,
    });
    // An idle connection the server drops (restart, idle timeout there) must not take the worker down; the next
    // page reconnects.
    pool.on("error", () => undefined);
    pools.set(url, pool);
  }
  return pool;
}

/** Forgets a pool whose server went away, so the next page opens fresh connections. */
export async function dropTargetPool(url: string): Promise<void> {
  const pool = pools.get(url);
  if (!pool) return;
  pools.delete(url);
  await pool.end().catch(() => undefined);
}

/** Closes every target pool of this process (worker shutdown, tests, the bench). */
export async function closeTargetPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}
