import type { PullCounts, SourceType, SourceView } from "@/lib/sources/source-schemas";

// How a source reads on the /sources page: its type's name, its options in a few words, its state and a pull's
// counts. Pure and client-safe.

export const TYPE_LABEL: Record<SourceType, string> = {
  rabbitmq: "RabbitMQ",
  nats: "NATS JetStream",
  redis: "Redis Streams",
  kafka: "Kafka",
  sqs: "Amazon SQS",
};

const fmt = (n: number) => n.toLocaleString("en");

/** Every time Redrive shows is UTC and says so. */
export const utc = (iso: string): string => `${iso.replace("T", " ").slice(0, 19)} UTC`;

/** 500 → "500 ms", 60000 → "60 s", 120000 → "2 min", 43200000 → "12 h". */
export function duration(ms: number): string {
  if (ms < 1000) return `${fmt(ms)} ms`;
  const s = ms / 1000;
  if (s < 120 || s % 60 !== 0) return `${fmt(Math.round(s * 10) / 10)} s`;
  if (s < 7200 || s % 3600 !== 0) return `${fmt(s / 60)} min`;
  return `${fmt(s / 3600)} h`;
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The options that say where the dead letters are read, in a few words each (stored options have their defaults). */
export function optionsSummary(type: SourceType, options: Record<string, unknown>): string[] {
  const parts: (string | null)[] = [];
  if (type === "rabbitmq") parts.push(`queue ${text(options.queue) ?? "?"}`);
  else if (type === "kafka") parts.push(`topic ${text(options.topic) ?? "?"}`, `group ${text(options.group) ?? "redrive"}`);
  else if (type === "nats") {
    const ackWait = num(options.ackWaitMs);
    parts.push(
      `stream ${text(options.stream) ?? "?"}`,
      text(options.consumer) ? `consumer ${text(options.consumer)}` : "every consumer",
      ackWait === null ? null : `ack wait ${duration(ackWait)}`,
    );
  } else if (type === "sqs") {
    const visibility = num(options.visibilityTimeoutSeconds);
    parts.push(
      text(options.region) ? `region ${text(options.region)}` : null,
      text(options.endpoint) ? `endpoint ${text(options.endpoint)}` : null,
      text(options.sourceQueueUrl) ? `back to ${text(options.sourceQueueUrl)} unless SQS names the queue` : "back to the queue SQS names",
      visibility === null ? null : `visibility ${duration(visibility * 1000)}`,
    );
  } else {
    const dlq = text(options.dlqStream);
    if (dlq)
      parts.push(`dead-letter stream ${dlq} (group ${text(options.dlqGroup) ?? "redrive"})`, `back to ${text(options.stream) ?? "?"}`);
    else {
      const deliveries = num(options.maxDeliveries);
      const idle = num(options.minIdleMs);
      parts.push(
        `stream ${text(options.stream) ?? "?"}`,
        `group ${text(options.group) ?? "?"}`,
        `claims after ${deliveries ?? "?"} deliveries${idle === null ? "" : `, idle ${duration(idle)}`}`,
      );
    }
    const field = text(options.field);
    if (field && field !== "body") parts.push(`body field ${field}`);
  }
  return parts.filter((p): p is string => p !== null);
}

export type SourceCondition = "paused" | "never tried" | "connected" | "error";

/** Paused first (a paused source's last attempt says nothing about now), then what the last attempt found. */
export function conditionOf(source: Pick<SourceView, "enabled" | "state">): SourceCondition {
  if (!source.enabled) return "paused";
  if (source.state.connected === null) return "never tried";
  return source.state.connected ? "connected" : "error";
}

/** A pull's counts in a sentence: "3 pulled: 2 new records (1 unreadable, kept as poison), 1 already stored". */
export function pullSummary(c: PullCounts): string {
  if (c.pulled === 0) return "Nothing was waiting.";
  // Unreadable bodies are stored too (as poison records), so they are among the new ones.
  const unreadable = c.unreadable > 0 ? ` (${fmt(c.unreadable)} unreadable, kept as poison)` : "";
  const again = c.failedAgain ? `, ${fmt(c.failedAgain)} failed again after replay (back in triage)` : "";
  return `${fmt(c.pulled)} pulled: ${fmt(c.created)} new ${c.created === 1 ? "record" : "records"}${unreadable}${again}, ${fmt(c.duplicates)} already stored`;
}

/**
 * What adding a source says. Adding tests the broker at once, so a wrong password, a missing queue or a dead port
 * is known when the dialog closes: it is said then, as a warning, not left for the card to show.
 */
export function addedNotice(source: Pick<SourceView, "name" | "enabled" | "state">): { ok: boolean; title: string; description: string } {
  if (source.state.connected === false)
    return {
      ok: false,
      title: `Source ${source.name} added, but the broker test failed`,
      description: `${(source.state.lastError ?? "no reason given").replace(/\.$/, "")}. Workers keep trying, less and less often; its card shows the last error.`,
    };
  return {
    ok: true,
    title: `Source ${source.name} added`,
    description: source.enabled ? "Workers start pulling it within a few seconds; “Pull now” pulls at once." : "It is paused.",
  };
}
