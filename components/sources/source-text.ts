import { sourcePlug } from "@/lib/sources/registry";
import type { PullCounts, SourceType, SourceView } from "@/lib/sources/source-schemas";

export { duration } from "@/lib/sources/summary-words";

// How a source reads on the /sources page: its type's name, its options in a few words, its state and a pull's
// counts. Pure and client-safe.

/** A broker type's name on the page ("RabbitMQ"). */
export const typeLabel = (type: SourceType): string => sourcePlug(type).label;

const fmt = (n: number) => n.toLocaleString("en");

/** Every time Redrive shows is UTC and says so. */
export const utc = (iso: string): string => `${iso.replace("T", " ").slice(0, 19)} UTC`;

/** The options that say where the dead letters are read, in a few words each (stored options have their defaults). */
export function optionsSummary(type: SourceType, options: Record<string, unknown>): string[] {
  return sourcePlug(type).summary(options);
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

/** Whether the stored URL has a user name or password: the server shows such a URL's userinfo as "redacted". */
export function hasStoredCredentials(displayedUrl: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/redacted@/.test(displayedUrl);
}
