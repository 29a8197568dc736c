import { z } from "zod";
import type { JsonValue } from "@/lib/json/value";
import { DestinationSchema, sourcePlug, type Destination } from "@/lib/sources/registry";
import type { AnySourceConfigPlug, DestinationPart } from "@/lib/sources/source-plug";

// A pulled record's origin (DeadLetterDetail.origin: lib/sources/connector.ts's Origin plus the source's name),
// read for the record page: the API serves it as plain JSON, so it is checked here rather than trusted. Pure.

const text = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

export type { Destination };

const fields = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((v) => v ?? {});

const OriginSchema = z.object({
  source: z.string(),
  sourceType: z.string(),
  destination: DestinationSchema,
  deathReason: text,
  deliveryCount: z
    .number()
    .nullish()
    .transform((v) => v ?? null),
  messageId: text,
  position: text,
  publishedAt: text,
  diedAt: text,
  headers: fields,
  properties: fields,
  /** the headers' names in the broker's order (the stored object's keys are in jsonb's): lib/sources/header-order.ts */
  headerOrder: z.array(z.string()).optional(),
});
export type OriginView = z.output<typeof OriginSchema>;

/** The origin, or null when it is not one this page knows how to read (then it is shown as JSON). */
export function readOrigin(value: JsonValue): OriginView | null {
  const parsed = OriginSchema.safeParse(value);
  if (!parsed.success) return null;
  return { ...parsed.data, headers: inOrder(parsed.data.headers, parsed.data.headerOrder) };
}

/** The headers in the recorded order; names it does not hold follow as they come. */
function inOrder(headers: Record<string, unknown>, order: readonly string[] | undefined): Record<string, unknown> {
  if (!order) return headers;
  const names = [...new Set([...order.filter((n) => Object.hasOwn(headers, n)), ...Object.keys(headers)])];
  const out: Record<string, unknown> = {};
  for (const n of names) Object.defineProperty(out, n, { value: headers[n], enumerable: true, writable: true, configurable: true });
  return out;
}

export type { DestinationPart };

/** Where the message was going, in the broker's own terms: exchange and routing keys, subject, stream. */
export function destinationParts(d: Destination): DestinationPart[] {
  return (sourcePlug(d.type) as AnySourceConfigPlug).destinationParts(d);
}

/** A header's value as text: strings as they are, anything else (numbers, arrays, x-death tables) as JSON. */
export function headerText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}
