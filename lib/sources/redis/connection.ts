import "server-only";
import { createClient, RESP_TYPES } from "redis";
import { sourceError } from "./errors";
import type { RedisTarget } from "./options";
import { SCRIPTS } from "./scripts";

// Replies as raw bytes, and field lists as flat [name, value, …] arrays: a body that is not UTF-8 survives, and
// so does a field that occurs twice in one entry.
const BINARY = { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.MAP]: Array } as const;

/** Bounds every command, so a server that stops answering without closing the socket fails a call, not hangs it. */
export const COMMAND_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_RECONNECT_DELAY_MS = 5_000;

export interface ConnectionEvents {
  /** a connection was lost or an attempt to restore it failed (said once per outage) */
  lost(message: string): void;
  restored(message: string): void;
}

function newClient(url: string, name: string) {
  let everReady = false;
  const client = createClient({
    url,
    name,
    scripts: SCRIPTS,
    // A command issued while the connection is down fails at once instead of waiting in a queue of unknown
    // length; the caller (the pull loop, the replay engine) owns retrying.
    disableOfflineQueue: true,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // The first connection fails fast (a wrong URL or password must reject `create`, not retry forever);
      // once connected, keep reconnecting so the source recovers when Redis comes back.
      reconnectStrategy: (retries: number, cause: Error) =>
        everReady ? Math.min(100 * 2 ** Math.min(retries, 6), MAX_RECONNECT_DELAY_MS) : cause,
    },
  });
  client.on("ready", () => {
    everReady = true;
  });
  return client;
}

export type RedisConnection = ReturnType<typeof newClient>;

/** A connected client with its 'error' listener in place, so a server going away never crashes the process. */
export async function connect(
  url: string,
  target: RedisTarget,
  sourceName: string,
  role: "main" | "read",
  events: ConnectionEvents,
): Promise<RedisConnection> {
  const client = newClient(url, clientName(sourceName, role));
  // Before the first connection the rejection of connect() says what went wrong; after it, the listener does.
  let connected = false;
  let down = false;
  client.on("error", (e: Error) => {
    if (!connected || down) return;
    down = true;
    events.lost(sourceError(e, target, `the ${role} connection`).message);
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    events.restored(`the ${role} connection to ${target.display} is back`);
  });
  try {
    await client.connect();
  } catch (e) {
    client.destroy();
    throw sourceError(e, target, "connecting");
  }
  connected = true;
  return client;
}

/** The same connection, replying with Buffers and flat field arrays. */
export function binary(client: RedisConnection) {
  return client.withTypeMapping(BINARY);
}

/** For a blocking read: binary replies, and a timeout that outlasts the server-side wait. */
export function blockingRead(client: RedisConnection, timeoutMs: number) {
  return client.withCommandOptions({ typeMapping: BINARY, timeout: timeoutMs });
}

/** CLIENT SETNAME refuses spaces and newlines; the name only helps an operator reading CLIENT LIST. */
function clientName(sourceName: string, role: string): string {
  return `redrive:${sourceName.replace(/[^\x21-\x7e]/g, "_")}:${role}`;
}
