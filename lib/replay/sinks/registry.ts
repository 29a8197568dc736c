import type { z } from "zod";
import { httpConfigPlug } from "./http/http-config";
import { ledgerConfigPlug } from "./ledger/ledger-config";
import { originConfigPlug } from "./origin/origin-config";
import { postgisConfigPlug } from "./postgis/postgis-sink-schema";
import { sinkSchemaOf, type AnySinkConfigPlug } from "./sink-plug";

// Every sink type, once: a folder under lib/replay/sinks/ and a line here (and one in registry.server.ts for what
// stores, checks and opens it). The API's and the CLI's sink schema, the replay form's type list and every view
// of a batch's sink come from this list; nothing outside lib/replay/sinks decides per sink type. Client-safe.

export const SINKS = [ledgerConfigPlug, httpConfigPlug, originConfigPlug, postgisConfigPlug] as const;

type Plug = (typeof SINKS)[number];
export type SinkType = Plug["type"];
export const SINK_TYPES: readonly SinkType[] = SINKS.map((p) => p.type);

export const SinkSchema = sinkSchemaOf(SINKS);
export type SinkConfig = z.output<typeof SinkSchema>;
/** The sink as shown to readers: secrets redacted (each type's view). */
export type SinkView = Parameters<Plug["describe"]["cli"]>[0];

export function sinkPlug<T extends SinkType>(type: T): Extract<Plug, { type: T }> {
  return SINKS.find((p) => p.type === type) as Extract<Plug, { type: T }>;
}

/** Whether a sink type (any text: a rule's stored or drafted replay) sends each record back where it came from. */
export function sinkNeedsOrigin(type: string | null | undefined): boolean {
  return (SINKS as readonly AnySinkConfigPlug[]).find((p) => p.type === type)?.needsOrigin === true;
}

/** A batch's sink in words: the CLI's line, the list's column or the batch page's entry. */
export function describeSink(view: SinkView, words: keyof Plug["describe"]): string {
  const describe = sinkPlug(view.type).describe[words] as (v: SinkView) => string;
  return describe(view);
}

/** Where a record's page says a replay sent it: the sink's words, or its type when no registered sink has that name. */
export function replayedTo(type: string): string {
  return (SINKS as readonly AnySinkConfigPlug[]).find((p) => p.type === type)?.replayedTo ?? type;
}

/** What a record's timeline names as having settled a key whose ledger entry has this origin, if a sink's words. */
export function settledBy(ledgerOrigin: string): string | null {
  return (SINKS as readonly AnySinkConfigPlug[]).find((p) => p.type === ledgerOrigin)?.settledBy ?? null;
}

/** `redrive replay create --url`'s help: what the URL is to each sink that takes one. */
export function urlHelp(plugs: readonly AnySinkConfigPlug[] = SINKS): string {
  return plugs.flatMap((p) => (p.urlHelp ? [`${p.type} sink: ${p.urlHelp}`] : [])).join("; ");
}

/** What the CLI says before a sink's target is checked (a check that connects may take seconds), if anything. */
export function checkingNotice(config: SinkConfig): string | null {
  const plug = sinkPlug(config.type) as AnySinkConfigPlug;
  return plug.checking?.(config) ?? null;
}
