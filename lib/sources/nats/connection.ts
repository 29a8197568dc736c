import "server-only";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type ConnectionOptions, type NatsConnection } from "@nats-io/transport-node";
import { NatsSourceError } from "./errors";
import { isNoResponders, natsFailure } from "./failure";
import type { NatsAddress } from "./options";

// One connection per connector. The client reconnects on its own; while it does, requests time out with a
// clear error instead of hanging, and the connector works again once the server is back, so a broker restart
// never needs a new connector.

/** How long a JetStream API request or a publish waits for its answer. */
export const REQUEST_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;

export interface NatsSession {
  nc: NatsConnection;
  jsm: JetStreamManager;
  js: JetStreamClient;
  /** scheme://host:port, for messages */
  where: string;
  close(): Promise<void>;
}

function connectionOptions(address: NatsAddress, sourceName: string): ConnectionOptions {
  const options: ConnectionOptions = {
    servers: address.server,
    name: `redrive:${sourceName}`,
    timeout: CONNECT_TIMEOUT_MS,
    // A long outage must not leave a connector that can never work again.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
  };
  if (address.tls) options.tls = {};
  if (address.auth.kind === "user") Object.assign(options, { user: address.auth.user, pass: address.auth.pass });
  if (address.auth.kind === "token") options.token = address.auth.token;
  return options;
}

/**
 * The client reports trouble through its status stream rather than an 'error' event; reading it is what keeps
 * a server going away from surfacing as an unhandled rejection, and it leaves a line in the log.
 */
function watchStatus(nc: NatsConnection, label: string): void {
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") console.warn(`[sources:nats] ${label}: disconnected from ${s.server}; reconnecting`);
      else if (s.type === "reconnect") console.warn(`[sources:nats] ${label}: reconnected to ${s.server}`);
      else if (s.type === "error") console.error(`[sources:nats] ${label}: server error: ${s.error.message}`);
    }
  })().catch((err: unknown) =>
    console.error(`[sources:nats] ${label}: status watch ended: ${err instanceof Error ? err.message : String(err)}`),
  );
  nc.closed()
    .then((err) => {
      if (err) console.error(`[sources:nats] ${label}: connection closed: ${err.message}`);
    })
    .catch(() => undefined);
}

export async function openSession(address: NatsAddress, sourceName: string): Promise<NatsSession> {
  const label = `source ${JSON.stringify(sourceName)} (${address.display})`;
  let nc: NatsConnection;
  try {
    nc = await connect(connectionOptions(address, sourceName));
  } catch (err) {
    throw natsFailure(err, "connecting to NATS", address.display);
  }
  watchStatus(nc, label);
  try {
    // checkAPI asks for the account's JetStream info: a server without JetStream fails here, not on first use.
    const jsm = await jetstreamManager(nc, { timeout: REQUEST_TIMEOUT_MS, checkAPI: true });
    const js = jetstream(nc, { timeout: REQUEST_TIMEOUT_MS });
    let closing: Promise<void> | null = null;
    return {
      nc,
      jsm,
      js,
      where: address.display,
      close: () => (closing ??= nc.close().catch(() => undefined)),
    };
  } catch (err) {
    await nc.close().catch(() => undefined);
    if (isNoResponders(err) || (err instanceof Error && isNoResponders(err.cause))) {
      throw new NatsSourceError(
        "connect_failed",
        `opening JetStream at ${address.display}: JetStream is not enabled on this server or account`,
        { cause: err },
      );
    }
    throw natsFailure(err, "opening JetStream", address.display);
  }
}
