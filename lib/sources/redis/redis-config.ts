import type { SourceConfigPlug } from "../source-plug";
import { duration, num, text } from "../summary-words";
import { destinationParts, destinationTexts, RedisDestinationSchema, type RedisDestination } from "./destination";
import { parseRedisUrl, redisOptionsSchema } from "./options";

export const redisConfigPlug: SourceConfigPlug<"redis", typeof redisOptionsSchema, RedisDestination> = {
  type: "redis",
  label: "Redis Streams",
  location: "a Redis stream",
  urlPlaceholder: "redis://host:6379/0",
  options: redisOptionsSchema,
  urlRule: parseRedisUrl,
  destination: RedisDestinationSchema,
  destinationTexts,
  destinationParts,
  summary: (o) => {
    const parts: string[] = [];
    const dlq = text(o.dlqStream);
    if (dlq) parts.push(`dead-letter stream ${dlq} (group ${text(o.dlqGroup) ?? "redrive"})`, `back to ${text(o.stream) ?? "?"}`);
    else {
      const deliveries = num(o.maxDeliveries);
      const idle = num(o.minIdleMs);
      parts.push(
        `stream ${text(o.stream) ?? "?"}`,
        `group ${text(o.group) ?? "?"}`,
        `claims after ${deliveries ?? "?"} deliveries${idle === null ? "" : `, idle ${duration(idle)}`}`,
      );
    }
    const field = text(o.field);
    if (field && field !== "body") parts.push(`body field ${field}`);
    return parts;
  },
  form: {
    modes: {
      label: "Where the dead letters are",
      choices: [
        {
          name: "claim",
          label: "Claimed from the application's group",
          description:
            "Redrive claims the entries the group's consumers failed too often (delivered at least that many times, idle at least that long).",
        },
        {
          name: "dlqStream",
          label: "Read from a dead-letter stream",
          description: "Producers already copy dead entries to a stream of their own; Redrive reads it through a group of its own.",
        },
      ],
    },
    rows: [
      {
        columns: 2,
        fields: [
          {
            name: "stream",
            cli: { arg: "<stream>", help: "the application's stream" },
            label: "Application stream",
            hint: { claim: "Where the entries are consumed.", dlqStream: "Where entries go back unless they name their own." },
            value: "required",
          },
          {
            name: "group",
            cli: { arg: "<group>", help: "the application's consumer group" },
            label: "Application group",
            value: "required",
          },
          {
            name: "maxDeliveries",
            cli: { arg: "<n>", help: "deliveries after which a pending entry is dead" },
            label: "Dead after (deliveries)",
            value: "number",
            min: 1,
            initial: "3",
            mode: "claim",
          },
          {
            name: "minIdleMs",
            cli: { arg: "<ms>", help: "how long an entry must be pending before it is claimed" },
            label: "Idle at least (ms)",
            value: "number",
            min: 0,
            initial: "60000",
            mode: "claim",
          },
          {
            name: "dlqStream",
            cli: { arg: "<stream>", help: "a stream producers already copy dead entries into (read through a group)" },
            label: "Dead-letter stream",
            value: "required",
            mode: "dlqStream",
          },
          {
            name: "dlqGroup",
            cli: { arg: "<group>", help: "the group Redrive reads --dlq-stream with" },
            label: "Redrive's group on it",
            value: "optional",
            initial: "redrive",
            mode: "dlqStream",
          },
        ],
      },
      {
        columns: 3,
        fields: [
          {
            name: "consumer",
            cli: { arg: "<consumer>", help: "Redrive's consumer name" },
            label: "Redrive's consumer name",
            value: "optional",
            initial: "redrive",
          },
          {
            name: "field",
            cli: { arg: "<field>", help: "the entry field that holds the message (default body)" },
            label: "Body field",
            hint: "The entry field holding the message.",
            value: "optional",
            initial: "body",
          },
          {
            name: "gatePrefix",
            cli: { arg: "<prefix>", help: "prefix of the keys that remember what was published back" },
            label: "Gate key prefix",
            hint: "Remembers what was published back.",
            value: "optional",
            initial: "redrive:gate:",
          },
        ],
      },
    ],
  },
};
