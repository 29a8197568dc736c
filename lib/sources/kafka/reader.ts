import "server-only";
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from "kafkajs";
import type { PulledMessage } from "../connector";
import type { RawHeader } from "./dlq-headers";
import type { KafkaOptions } from "./options";
import { toPulled, type DlqRecord } from "./origin";

// kafkajs pushes batches into a handler; the connector contract pulls (take, store, ack). The handler parks each
// batch here and holds it, heartbeating, until every record of it is acknowledged; only then does it let kafkajs
// fetch that partition again. `ack` commits the group's offset after Redrive's transaction committed, so a crash
// before it re-reads from the last commit and the stored positions make the re-read change nothing.

/** How long the handler sleeps between heartbeats while its batch waits to be taken and acknowledged. */
const HEARTBEAT_MS = 3_000;
/** The first take waits this long at most for the group join and the first fetch (a join takes seconds). */
const JOIN_WAIT_MS = 30_000;
/** After the first fetch, how long the first take waits for the other brokers' fetches (kafkajs' maxWaitTime). */
const FETCH_WAIT_MS = 500;
/**
 * kafkajs fetches a broker's partitions again only once every batch of its last fetch is handled, i.e. acknowledged
 * here. When a batch said its partition holds more, a take waits this long for the next fetch even when asked not
 * to wait, or a pull would stop after each page of a backlog.
 */
const BEHIND_WAIT_MS = 2_000;

interface Parked {
  readonly pulled: PulledMessage;
  readonly partition: number;
  readonly offset: bigint;
  acked: boolean;
}

export interface KafkaReceipt {
  readonly kind: "kafka";
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

function rawHeaders(headers: KafkaMessage["headers"]): RawHeader[] {
  const out: RawHeader[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== undefined) out.push([name, typeof v === "string" ? Buffer.from(v, "utf8") : v]);
    }
  }
  return out;
}

function recordOf(topic: string, partition: number, m: KafkaMessage): DlqRecord {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key ?? null,
    value: m.value ?? null,
    timestamp: m.timestamp ?? null,
    headers: rawHeaders(m.headers),
  };
}

export class DlqReader {
  private consumer: Consumer | null = null;
  private starting: Promise<void> | null = null;
  /** records fetched and not acknowledged, in the order fetched (per partition, offset order) */
  private parked: Parked[] = [];
  private readonly byReceipt = new WeakMap<object, Parked>();
  private wakeTake: (() => void) | null = null;
  private readonly wakeBatches = new Set<() => void>();
  private caughtUpAt: number | null = null;
  /** per partition, whether its last batch ended before the partition's end (more to fetch) */
  private readonly behind = new Map<number, boolean>();
  private crashed: Error | null = null;
  private closed = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: KafkaOptions,
  ) {}

  /** Joins the group on first use: a connector opened only to publish back must not take partitions. */
  private start(): Promise<void> {
    this.starting ??= (async () => {
      const consumer = this.kafka.consumer({
        groupId: this.options.group,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: FETCH_WAIT_MS,
        // A member that vanished without leaving holds its partitions this long; park() heartbeats every 3 s.
        sessionTimeout: 10_000,
        heartbeatInterval: HEARTBEAT_MS,
        retry: { retries: 3 },
      });
      this.consumer = consumer;
      consumer.on(consumer.events.FETCH, () => {
        this.caughtUpAt ??= Date.now();
        this.wake();
      });
      consumer.on(consumer.events.CRASH, (e) => {
        if (!e.payload.restart) this.crashed = e.payload.error;
        this.wake();
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [this.options.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        // Partitions are parked side by side, so one take gathers from several of them.
        partitionsConsumedConcurrently: 8,
        eachBatch: (payload) => this.park(payload),
      });
    })();
    return this.starting;
  }

  private wake(): void {
    this.wakeTake?.();
    this.wakeTake = null;
  }

  private async park({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    if (batch.messages.length === 0) return;
    const mine: Parked[] = batch.messages.map((m) => {
      const t = toPulled(recordOf(batch.topic, batch.partition, m));
      const receipt: KafkaReceipt = { kind: "kafka", topic: batch.topic, partition: batch.partition, offset: m.offset };
      const pulled: PulledMessage =
        t.problem === undefined
          ? { body: t.body, origin: t.origin, receipt }
          : { body: t.body, origin: t.origin, receipt, problem: t.problem };
      const p: Parked = { pulled, partition: batch.partition, offset: BigInt(m.offset), acked: false };
      this.byReceipt.set(receipt, p);
      return p;
    });
    this.parked.push(...mine);
    this.behind.set(batch.partition, BigInt(batch.offsetLag()) > 0n);
    this.wake();
    while (!mine.every((p) => p.acked)) {
      if (this.closed || !isRunning() || isStale()) {
        // Not resolved: kafkajs fetches the partition again from the committed offset (or another member does).
        this.parked = this.parked.filter((p) => !mine.includes(p));
        return;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakeBatches.delete(done);
          resolve();
        };
        const timer = setTimeout(done, HEARTBEAT_MS);
        this.wakeBatches.add(done);
      });
      await heartbeat().catch(() => undefined);
    }
    resolveOffset(batch.lastOffset());
  }

  /**
   * Up to `max` parked records. Records handed out before and not acknowledged come first again: the pull loop
   * takes, stores, acknowledges in turn, so a new take means the last store failed.
   */
  async take(max: number, waitMs: number): Promise<PulledMessage[]> {
    await this.start();
    const startedAt = Date.now();
    for (;;) {
      if (this.crashed) throw this.crashed;
      const ready = this.parked.filter((p) => !p.acked).slice(0, max);
      const now = Date.now();
      // Until the group is joined and every broker fetched once, "nothing waiting" is not known yet.
      const settled = this.caughtUpAt !== null && now >= this.caughtUpAt + FETCH_WAIT_MS;
      const more = [...this.behind.values()].some(Boolean);
      const deadline = startedAt + Math.max(waitMs, settled ? (more ? BEHIND_WAIT_MS : 0) : JOIN_WAIT_MS);
      if (ready.length > 0 || this.closed || now >= deadline) return ready.map((p) => p.pulled);
      const until = settled ? deadline - now : Math.min(deadline - now, Math.max(10, (this.caughtUpAt ?? now) + FETCH_WAIT_MS - now));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, until);
        this.wakeTake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The records these receipts name, or the first receipt that is not this reader's. */
  parkedOf(messages: readonly PulledMessage[]): { parked: Parked[]; foreign: PulledMessage | null } {
    const parked: Parked[] = [];
    for (const m of messages) {
      const p = typeof m.receipt === "object" && m.receipt !== null ? this.byReceipt.get(m.receipt) : undefined;
      if (!p) return { parked, foreign: m };
      parked.push(p);
    }
    return { parked, foreign: null };
  }

  /** Commits, per partition, the offset after the highest acknowledged record, then releases their batches. */
  async ack(parked: readonly Parked[]): Promise<void> {
    const next = new Map<number, bigint>();
    for (const p of parked) if ((next.get(p.partition) ?? -1n) < p.offset + 1n) next.set(p.partition, p.offset + 1n);
    if (next.size === 0) return;
    if (!this.consumer) throw new Error("nothing was taken on this connection");
    await this.consumer.commitOffsets(
      [...next].map(([partition, offset]) => ({ topic: this.options.topic, partition, offset: offset.toString() })),
    );
    for (const p of parked) p.acked = true;
    this.parked = this.parked.filter((p) => !p.acked);
    for (const wake of [...this.wakeBatches]) wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    for (const wake of [...this.wakeBatches]) wake();
    if (this.starting) await this.starting.catch(() => undefined);
    await this.consumer?.disconnect();
  }
}
