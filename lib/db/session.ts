import type pg from "pg";

/**
 * What every connection of Redrive's runs first. JIT off: PostgreSQL compiles a query whose estimated cost passes
 * jit_above_cost (100,000), and the estimate counts branches that never run (a search's fallback plan, a sample's
 * scan): a 12 ms list search spent 456 ms compiling at 1M records. Redrive's statements are short or bounded,
 * where compiling never pays; a database where it would can keep it for its other clients.
 */
export const SESSION_SETUP = "SET jit = off";

/** Runs SESSION_SETUP on each new connection of `pool`, before any query of the connection's first user. */
export function withSessionSetup<P extends pg.Pool>(pool: P): P {
  // pg queues a client's queries in order: this one goes out before the checkout that caused the connection.
  pool.on("connect", (client) => {
    client.query(SESSION_SETUP).catch(() => undefined); // a broken connection fails its next query anyway
  });
  return pool;
}
