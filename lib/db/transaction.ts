import "server-only";
import type pg from "pg";

/** Runs `fn` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no error listener (pg-pool only watches idle ones): a server restart or a
  // terminated backend between two statements would be an unhandled 'error' event and kill the process.
  // Keep the error, let the next statement fail, and hand the broken connection back to be discarded.
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}
