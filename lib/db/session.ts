import type pg from "pg";

/**
 * What every connection of Redrive's runs first. JIT off: PostgreSQL compiles a query whose estimated cost passes
 * jit_above_cost (100,000), and the estimate counts branches that never run (a search's fallback plan, a sample's
 * scan), so a fast list search on a large table can spend many times its run compiling. Redrive's statements are short or bounded,
 * where compiling never pays; a database where it would can keep it for its other clients. A SET, not the startup
 * packet's `options`, which connection poolers such as PgBouncer refuse.
 */
export const SESSION_SETUP = "SET jit = off";

/** A pool's configuration with SESSION_SETUP run on each new connection before the pool hands it out. */
export function withSessionSetup(config: pg.PoolConfig): pg.PoolConfig {
  return {
    ...config,
    onConnect: async (client) => {
      await client.query(SESSION_SETUP);
    },
  };
}
