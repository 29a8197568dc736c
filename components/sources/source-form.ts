import { SOURCES } from "@/lib/sources/registry";
import type { AnySourceConfigPlug, SourceOptionField } from "@/lib/sources/source-plug";

// The add form's options, from each broker type's own fields (lib/sources/<type>/, listed in the registry):
// what each field holds, which show in the type's chosen mode, and the options body they make. Pure.

/** Every field's text, by `type.option`, so switching the type back and forth keeps what was typed. */
export type OptionInputs = Readonly<Record<string, string>>;
/** The chosen mode of each type that has modes, by type. */
export type OptionModes = Readonly<Record<string, string>>;

const key = (type: string, field: SourceOptionField) => `${type}.${field.name}`;

/** The form's type list: each registered type with its name on the page. */
export function sourceTypeChoices(plugs: readonly AnySourceConfigPlug[] = SOURCES): { type: string; label: string }[] {
  return plugs.map((p) => ({ type: p.type, label: p.label }));
}

export function initialInputs(plugs: readonly AnySourceConfigPlug[] = SOURCES): { inputs: OptionInputs; modes: OptionModes } {
  const inputs: Record<string, string> = {};
  const modes: Record<string, string> = {};
  for (const p of plugs) {
    for (const row of p.form.rows) for (const f of row.fields) inputs[key(p.type, f)] = f.initial ?? "";
    const first = p.form.modes?.choices[0];
    if (first) modes[p.type] = first.name;
  }
  return { inputs, modes };
}

/** The type's rows with only the fields its chosen mode shows. */
export function visibleRows(plug: AnySourceConfigPlug, mode: string | undefined) {
  return plug.form.rows.map((row) => ({ ...row, fields: row.fields.filter((f) => f.mode === undefined || f.mode === mode) }));
}

/** A field's hint in the chosen mode. */
export function hintOf(field: SourceOptionField, mode: string | undefined): string | undefined {
  return typeof field.hint === "string" || field.hint === undefined ? field.hint : mode === undefined ? undefined : field.hint[mode];
}

export const inputOf = (inputs: OptionInputs, type: string, field: SourceOptionField): string => inputs[key(type, field)] ?? "";
export const inputKey = key;

/** A typed value as its field sends it (undefined: left out, so the schema's default applies). */
function valueOf(field: SourceOptionField, typed: string): unknown {
  const trimmed = typed.trim();
  switch (field.value) {
    case "verbatim":
      return typed;
    case "required":
      return trimmed;
    case "optional":
      return trimmed === "" ? undefined : trimmed;
    case "number":
      return trimmed === "" ? undefined : Number.isFinite(Number(typed)) ? Number(typed) : typed;
  }
}

/** The options body of the type's visible fields. */
export function optionsOf(plug: AnySourceConfigPlug, inputs: OptionInputs, mode: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const row of visibleRows(plug, mode)) {
    for (const f of row.fields) {
      const v = valueOf(f, inputOf(inputs, plug.type, f));
      if (v !== undefined) out[f.name] = v;
    }
  }
  return out;
}

/** The body paths the type's visible fields show problems for. */
export function optionPaths(plug: AnySourceConfigPlug, mode: string | undefined): string[] {
  return visibleRows(plug, mode).flatMap((row) => row.fields.map((f) => `options.${f.name}`));
}
