import { SINKS, SinkSchema } from "@/lib/replay/sinks/registry";
import type { AnySinkConfigPlug, SinkFormField } from "@/lib/replay/sinks/sink-plug";

// The replay form's sink settings, from each sink's own fields (lib/replay/sinks/<type>/, listed in the registry):
// what each field holds and the sink body they make. Pure.

/** Every field's text, by `type.field`, so switching the sink back and forth keeps what was typed. */
export type SinkInputs = Readonly<Record<string, string>>;

export const sinkInputKey = (type: string, field: SinkFormField): string => `${type}.${field.name}`;

export function initialSinkInputs(plugs: readonly AnySinkConfigPlug[] = SINKS): SinkInputs {
  const inputs: Record<string, string> = {};
  for (const p of plugs) for (const f of p.form?.fields ?? []) inputs[sinkInputKey(p.type, f)] = f.initial ?? "";
  return inputs;
}

/** "Name: value" lines → headers; a line without a colon is reported, not sent as a header named after it. */
function headerLines(name: string, text: string): { value: Record<string, string> | undefined; problems: string[] } {
  const problems: string[] = [];
  const entries = text
    .split("\n")
    .map((l) => l.trim())
    .flatMap((l, i) => {
      if (l === "") return [];
      const at = l.indexOf(":");
      if (at <= 0) {
        problems.push(`sink.${name}: line ${i + 1} is not "Name: value"`);
        return [];
      }
      return [[l.slice(0, at).trim(), l.slice(at + 1).trim()] as const];
    });
  return { value: entries.length ? Object.fromEntries(entries) : undefined, problems };
}

/** A typed value as its field sends it (undefined: left out, so the schema's default applies). */
function valueOf(field: SinkFormField, typed: string): { value: unknown; problems: string[] } {
  switch (field.value) {
    case "text":
      return { value: typed, problems: [] };
    case "optional":
      return { value: typed.trim() || undefined, problems: [] };
    case "number":
      return { value: Number(typed), problems: [] };
    case "header-lines":
      return headerLines(field.name, typed);
  }
}

/** The sink body the chosen sink's fields make, and what is wrong with their text before the schema sees it. */
export function sinkBodyOf(plug: AnySinkConfigPlug, inputs: SinkInputs): { sink: Record<string, unknown>; problems: string[] } {
  const sink: Record<string, unknown> = { type: plug.type };
  const problems: string[] = [];
  for (const f of plug.form?.fields ?? []) {
    const read = valueOf(f, inputs[sinkInputKey(plug.type, f)] ?? "");
    if (read.value !== undefined) sink[f.name] = read.value;
    problems.push(...read.problems);
  }
  return { sink, problems };
}

/**
 * The sink body and every problem with it, worded as the replay form words them ("sink.url: Invalid URL"): its
 * fields' text, then the sink's own schema. A form whose body holds the sink elsewhere (a rule's standing replay)
 * checks it with this, so a supervisor reads the same message in both.
 */
export function checkedSinkOf(plug: AnySinkConfigPlug, inputs: SinkInputs): { sink: Record<string, unknown>; problems: string[] } {
  const { sink, problems } = sinkBodyOf(plug, inputs);
  const checked = SinkSchema.safeParse(sink);
  const issues = checked.success ? [] : checked.error.issues.map((i) => `${["sink", ...i.path].join(".")}: ${i.message}`);
  return { sink, problems: [...problems, ...issues] };
}
