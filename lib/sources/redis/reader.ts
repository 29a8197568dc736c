import type { PulledMessage } from "../connector";
import type { Translated } from "./origin";

/** What `ack` needs: the entry's id and the stream and group whose pending list holds it. */
export interface RedisReceipt {
  readonly kind: "redis";
  readonly stream: string;
  readonly group: string;
  readonly id: string;
}

export function isRedisReceipt(r: unknown): r is RedisReceipt {
  return (
    typeof r === "object" &&
    r !== null &&
    "kind" in r &&
    r.kind === "redis" &&
    "stream" in r &&
    typeof r.stream === "string" &&
    "group" in r &&
    typeof r.group === "string" &&
    "id" in r &&
    typeof r.id === "string"
  );
}

export function pulled(t: Translated, receipt: RedisReceipt): PulledMessage {
  return t.problem === undefined
    ? { body: t.body, origin: t.origin, receipt }
    : { body: t.body, origin: t.origin, receipt, problem: t.problem };
}

/** One way of finding dead letters (claim mode, dlqStream mode); the connector adds acks, publish and errors. */
export interface DeadLetterReader {
  /** the stream and group whose pending list `ack` clears and where Redrive's consumer lives */
  readonly stream: string;
  readonly group: string;
  provision(): Promise<void>;
  waiting(): Promise<number | null>;
  /** Up to `max` dead letters, waiting at most `waitMs`; resolves early (maybe empty) when `signal` aborts. */
  take(max: number, waitMs: number, signal: AbortSignal): Promise<PulledMessage[]>;
  /** These ids were acknowledged: they no longer count as handed out. */
  forget(ids: readonly string[]): void;
  /**
   * A read failed mid-way: entries may sit in Redrive's pending list without having reached the caller, so the
   * next take walks that list again.
   */
  rewind(): void;
}
