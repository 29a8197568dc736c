import type { AnySinkConfigPlug } from "@/lib/replay/sinks/sink-plug";
import { fmt } from "./format";
import { sinkInputKey, type SinkInputs } from "./sink-form";

// The chosen sink's settings in the replay form, drawn from its own fields (lib/replay/sinks/<type>/<type>-form.ts):
// the form knows no sink by name.

/** The replay form's text fields' look (create-batch-form.tsx draws its own fields with it too). */
export const field = "w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm";

export function SinkFields({
  plug,
  inputs,
  onInput,
  afcTaps,
}: {
  plug: AnySinkConfigPlug;
  inputs: SinkInputs;
  onInput: (key: string, value: string) => void;
  /** AFC taps in the selection: a sink taking spatial features only says so */
  afcTaps: number;
}) {
  const form = plug.form;
  if (!form) return null;
  return (
    <div className="grid gap-2 sm:grid-cols-2" data-testid={`${plug.type}-sink`}>
      {form.note && <p className="text-xs text-slate-500 dark:text-slate-400 sm:col-span-2">{form.note}</p>}
      {plug.spatialOnly && form.afcNotice && afcTaps > 0 && (
        <p role="status" className="text-amber-800 dark:text-amber-200 sm:col-span-2">
          This selection holds {fmt(afcTaps)} AFC taps: {form.afcNotice}
        </p>
      )}
      {form.fields.map((f) => {
        const key = sinkInputKey(plug.type, f);
        const common = { className: field, value: inputs[key] ?? "", placeholder: f.placeholder };
        return (
          <label key={key} className={f.wide ? "sm:col-span-2" : undefined}>
            {f.label}{" "}
            {f.value === "header-lines" ? (
              <textarea {...common} rows={2} onChange={(e) => onInput(key, e.target.value)} />
            ) : (
              <input
                {...common}
                type={f.value === "number" ? "number" : f.url ? "url" : undefined}
                required={f.required}
                min={f.min}
                max={f.max}
                autoComplete={f.secret ? "off" : undefined}
                spellCheck={f.secret ? false : undefined}
                onChange={(e) => onInput(key, e.target.value)}
              />
            )}
          </label>
        );
      })}
    </div>
  );
}
