import {
  AckPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type RetentionPolicy,
} from "@nats-io/jetstream";
import { connect, headers as natsHeaders, nanos, type NatsConnection } from "@nats-io/transport-node";
import type { Origin, SourceConnector } from "../../../lib/sources/connector";

// The shared NATS server's side of the NATS source tests: a plain client that creates streams, publishes,
// and makes consumers give up on messages the way JetStream does it.

export const NATS_URL = process.env.REDRIVE_TEST_NATS_URL ?? "nats://127.0.0.1:4222";

export interface Admin {
  nc: NatsConnection;
  jsm: JetStreamManager;
  js: JetStreamClient;
}

/** A plain client; against a private server that gets restarted, it keeps reconnecting. */
export async function openAdmin(servers = new URL(NATS_URL).host): Promise<Admin> {
  const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  return { nc, jsm: await jetstreamManager(nc), js: jetstream(nc) };
}

/** Names unique to this run, so runs and tests never meet; `cleanUp` removes everything with the prefix. */
export function runNames() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  let n = 0;
  return {
    run,
    next() {
      n++;
      return { stream: `RDT_${run}_${n}`, subject: `rdt_${run}_${n}`, source: `rdt-${run}-${n}` };
    },
    async cleanUp(admin: Admin) {
      for await (const name of admin.jsm.streams.names()) {
        if (name.startsWith(`RDT_${run}_`) || name.startsWith(`REDRIVE_ADVISORIES_rdt-${run}-`)) await admin.jsm.streams.delete(name);
      }
    },
  };
}

export async function addStream(admin: Admin, stream: string, subject: string, retention: RetentionPolicy): Promise<void> {
  await admin.jsm.streams.add({ name: stream, subjects: [`${subject}.>`], retention });
}

/** A consumer that gives up after `maxDeliver` deliveries; its short ack wait makes them expire quickly. */
export async function addDyingConsumer(admin: Admin, stream: string, name: string, maxDeliver: number, filter?: string): Promise<void> {
  await admin.jsm.consumers.add(stream, {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(300),
    max_deliver: maxDeliver,
    ...(filter ? { filter_subject: filter } : {}),
  });
}

export async function publishWithHeaders(admin: Admin, subject: string, body: Uint8Array, pairs: Array<[string, string]>, msgID?: string) {
  const h = natsHeaders();
  for (const [k, v] of pairs) h.append(k, v);
  return admin.js.publish(subject, body, { headers: h, ...(msgID ? { msgID } : {}) });
}

/**
 * Pulls from `consumer` without acknowledging (or with term()) until `done` says so. JetStream notices that a
 * message ran out of deliveries only when it would hand it out again, so someone has to keep pulling.
 */
export async function consumeBadly(
  admin: Admin,
  stream: string,
  consumer: string,
  how: "never-ack" | "term",
  done: () => Promise<boolean>,
  timeoutMs = 30_000,
) {
  const c = await admin.js.consumers.get(stream, consumer);
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`consumer ${stream}/${consumer} did not dead-letter in ${timeoutMs} ms`);
    const batch = await c.fetch({ max_messages: 1000, expires: 1000 });
    for await (const m of batch) if (how === "term") m.term();
  }
}

/** Until the source reports `n` dead letters waiting. */
export function waitingReaches(connector: SourceConnector, n: number) {
  return async () => (await connector.waiting()) === n;
}

export function allBytes(): Uint8Array {
  return Uint8Array.from({ length: 256 }, (_, i) => i);
}

export async function elapsed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t };
}

/** An origin as take() would record it, pointing at `subject` in `stream`. */
export function originFor(stream: string, subject: string): Origin {
  return {
    sourceType: "nats",
    destination: { type: "nats", subject, stream },
    deathReason: "max_deliveries",
    deliveryCount: 1,
    messageId: "1",
    position: `${stream}:1`,
    publishedAt: null,
    diedAt: null,
    headers: {},
    properties: {},
  };
}
