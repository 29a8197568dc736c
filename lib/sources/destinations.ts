import { findSourcePlug } from "./registry";
import { destinationsAllowed } from "./destination-glob";

// Where a replay to origin sends a stored dead letter, as text: what a batch lists for the second supervisor and
// what a source's `options.destinations` patterns are matched against. Each broker type formats its own
// (lib/sources/<type>/destination.ts, listed in registry.ts); nothing else decides per type.

/**
 * The destinations a stored origin's `destination` (jsonb, as the pull recorded it) publishes to: usually one;
 * RabbitMQ one per routing key. Unreadable or of no known type: [""] — no pattern but `*` allows it.
 */
export function destinationTexts(destination: unknown): string[] {
  if (typeof destination !== "object" || destination === null || Array.isArray(destination)) return [""];
  const plug = findSourcePlug((destination as { type?: unknown }).type);
  if (!plug) return [""];
  try {
    const texts = plug.destinationTexts(destination as { type: string });
    return texts.length > 0 ? texts : [""];
  } catch {
    return [""];
  }
}

/** The patterns of a source's stored options (`options.destinations`), or undefined when it sets none. */
export function destinationPatterns(options: unknown): string[] | undefined {
  if (typeof options !== "object" || options === null) return undefined;
  const list = (options as { destinations?: unknown }).destinations;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : undefined;
}

/** Whether a source with `options` may publish a dead letter recorded with `destination` back to it. */
export function originAllowed(options: unknown, destination: unknown): boolean {
  return destinationsAllowed(destinationPatterns(options), destinationTexts(destination));
}
