import "server-only";
import type pg from "pg";

/**
 * LISTEN on `channel` on a connection of its own, taken from `pool` for as long as the listener lives: each
 * NOTIFY's payload goes to `onPayload`. A connection that breaks is given back and `onPayload` is no longer
 * called; callers poll beside it, so a NOTIFY only makes them prompt, never correct.
 */
export async function listen(pool: pg.Pool, channel: string, onPayload: (payload: string) => void): Promise<{ close(): Promise<void> }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onNotification = (n: pg.Notification) => {
    if (n.channel === channel) onPayload(n.payload ?? "");
  };
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("notification", onNotification);
  client.on("error", onError);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    client.removeListener("notification", onNotification);
    if (!broken) await client.query(`UNLISTEN "${channel}"`).catch((e: Error) => (broken = e));
    client.removeListener("error", onError);
    client.release(broken ?? false);
  };
  try {
    await client.query(`LISTEN "${channel}"`);
  } catch (err) {
    broken = err as Error;
    await close();
    throw err;
  }
  return { close };
}
