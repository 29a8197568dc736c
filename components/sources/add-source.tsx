"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { HttpError } from "@/lib/api/client";
import { sourcePlug } from "@/lib/sources/registry";
import type { AnySourceConfigPlug } from "@/lib/sources/source-plug";
import { CreateSourceBody, sourceUrlProblem, type SourceType } from "@/lib/sources/source-schemas";
import { KINDS, type DeadLetterKind } from "@/lib/vocabulary/record";
import { useCreateSource, type CreateSourceRequest } from "./queries";
import { hintOf, initialInputs, inputKey, inputOf, optionPaths, optionsOf, sourceTypeChoices, visibleRows } from "./source-form";

// "Add source" (admins): name, type, URL, kind and the type's options, checked in the browser with the schema
// the server applies (CreateSourceBody); what the server still refuses (a taken name, a 422) shows next to the
// field it names.

/** Issues by field path ("name", "options.stream"); the first one per field. */
export function byPath(issues: readonly { path: string; message: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of issues) if (!out.has(i.path)) out.set(i.path, i.message);
  return out;
}

export function serverIssues(err: unknown): { path: string; message: string }[] {
  if (!(err instanceof HttpError) || typeof err.body !== "object" || err.body === null || !("error" in err.body)) return [];
  const inner = err.body.error;
  if (typeof inner !== "object" || inner === null || !("issues" in inner) || !Array.isArray(inner.issues)) return [];
  return inner.issues.filter(
    (i): i is { path: string; message: string } =>
      typeof i === "object" && i !== null && typeof i.path === "string" && typeof i.message === "string",
  );
}

const inputClass = "block w-full rounded border px-2 py-1 text-sm";

/** What a source's messages are: the Kind field of the add and edit forms. */
export function KindField({
  kind,
  onChange,
  problem,
}: {
  kind: DeadLetterKind;
  onChange: (kind: DeadLetterKind) => void;
  problem: string | undefined;
}) {
  return (
    <Field label="Kind" problem={problem} hint="What its messages are: spatial envelopes or AFC taps.">
      {(p) => (
        <select {...p} value={kind} onChange={(e) => onChange(e.target.value as DeadLetterKind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k === "afc" ? "AFC taps" : "spatial envelopes"}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function Field({
  label,
  hint,
  problem,
  children,
  className = "",
}: {
  label: string;
  hint?: string;
  problem: string | undefined;
  children: (props: { id: string; "aria-invalid": boolean; "aria-describedby": string | undefined; className: string }) => React.ReactNode;
  className?: string;
}) {
  const id = useId();
  const described = [problem ? `${id}-problem` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`space-y-0.5 ${className}`}>
      <label htmlFor={id} className="block text-xs font-medium text-slate-700 dark:text-slate-300">
        {label}
      </label>
      {children({
        id,
        "aria-invalid": problem !== undefined,
        "aria-describedby": described,
        className: `${inputClass} ${problem ? "border-red-400 dark:border-red-600" : "border-slate-300 dark:border-slate-600"}`,
      })}
      {problem && (
        <p id={`${id}-problem`} className="text-xs text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      )}
    </div>
  );
}

function AddSourceForm({ onDone }: { onDone: () => void }) {
  const create = useCreateSource();
  const [name, setName] = useState("");
  const [type, setType] = useState<SourceType>("rabbitmq");
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<DeadLetterKind>("spatial");
  const [enabled, setEnabled] = useState(true);
  const [initial] = useState(() => initialInputs());
  const [inputs, setInputs] = useState(initial.inputs);
  const [modes, setModes] = useState(initial.modes);
  const plug = sourcePlug(type) as AnySourceConfigPlug;
  const mode = modes[type];
  // Problems show once the admin tried to add, and follow the fields from then on.
  const [attempted, setAttempted] = useState(false);
  // What the server refused: its issues by field, and its message when it named no field (a broker, a conflict).
  const [refused, setRefused] = useState<{ issues: Map<string, string>; message: string | null } | null>(null);

  const body = { name, type, url, kind, enabled, options: optionsOf(plug, inputs, mode) } as CreateSourceRequest;
  const checked = CreateSourceBody.safeParse(body);
  const client = byPath(checked.success ? [] : checked.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  // The URL rule runs after the fields' own rules pass; checked here as well so it shows with the others.
  const urlProblem = url.trim() === "" ? undefined : (sourceUrlProblem(type, url.trim()) ?? undefined);
  if (urlProblem && !client.has("url")) client.set("url", urlProblem);

  const problem = (path: string) => refused?.issues.get(path) ?? (attempted ? client.get(path) : undefined);
  /** Editing a field takes back what the server said about it. */
  const edited = (...paths: string[]) => {
    if (refused && paths.some((p) => refused.issues.has(p))) {
      const issues = new Map(refused.issues);
      for (const p of paths) issues.delete(p);
      setRefused({ ...refused, issues });
    }
  };
  const fieldPaths = new Set(["name", "type", "url", "kind", ...optionPaths(plug, mode)]);
  const shown = new Map([...(attempted ? client : []), ...(refused?.issues ?? [])]);
  const elsewhere = [...shown].filter(([path]) => !fieldPaths.has(path));

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setAttempted(true);
    setRefused(null);
    if (!checked.success || urlProblem) return;
    create.mutate(body, {
      onSuccess: onDone,
      onError: (err) => {
        const issues = byPath(serverIssues(err));
        setRefused({ issues, message: issues.size === 0 ? err.message : null });
      },
    });
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-3 text-sm">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" problem={problem("name")} hint="Letters, digits, '.', '_' or '-'. Records keep it as their origin.">
          {(p) => (
            <input
              {...p}
              autoFocus
              value={name}
              maxLength={64}
              onChange={(e) => {
                setName(e.target.value);
                edited("name");
              }}
              placeholder="e.g. parcels-dlq"
            />
          )}
        </Field>
        <Field label="Type" problem={problem("type")}>
          {(p) => (
            <select
              {...p}
              value={type}
              onChange={(e) => {
                setType(e.target.value as SourceType);
                edited("type", "url");
              }}
            >
              {sourceTypeChoices().map((t) => (
                <option key={t.type} value={t.type}>
                  {t.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="URL"
          problem={problem("url")}
          hint="Stored sealed; shown afterwards with its password hidden."
          className="sm:col-span-2"
        >
          {(p) => (
            <input
              {...p}
              value={url}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => {
                setUrl(e.target.value);
                edited("url");
              }}
              placeholder={plug.urlPlaceholder}
            />
          )}
        </Field>
        <KindField kind={kind} onChange={setKind} problem={problem("kind")} />
        <label className="flex items-center gap-2 self-center text-sm">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Workers pull it at once (else it starts
          paused)
        </label>
      </div>

      <fieldset className="space-y-3 rounded border border-slate-200 dark:border-slate-700 p-3">
        <legend className="px-1 text-xs font-medium text-slate-600 dark:text-slate-300">{plug.label} options</legend>
        {plug.form.note && <p className="text-xs text-slate-500 dark:text-slate-400">{plug.form.note}</p>}
        {plug.form.modes && (
          <>
            <div role="radiogroup" aria-label={plug.form.modes.label} className="flex flex-wrap gap-x-4 gap-y-1">
              {plug.form.modes.choices.map((choice) => (
                <label key={choice.name}>
                  <input
                    type="radio"
                    name={`${type}-mode`}
                    checked={mode === choice.name}
                    onChange={() => setModes((prev) => ({ ...prev, [type]: choice.name }))}
                  />{" "}
                  {choice.label}
                </label>
              ))}
            </div>
            <p className="text-xs text-slate-500 dark:text-slate-400">
              {plug.form.modes.choices.find((c) => c.name === mode)?.description}
            </p>
          </>
        )}
        {visibleRows(plug, mode).map((row, i) => (
          <div key={i} className={`grid gap-3 ${row.columns === 3 ? "sm:grid-cols-3" : row.columns === 2 ? "sm:grid-cols-2" : ""}`}>
            {row.fields.map((f) => {
              const path = `options.${f.name}`;
              return (
                <Field key={f.name} label={f.label} hint={hintOf(f, mode)} problem={problem(path)}>
                  {(p) => (
                    <input
                      {...p}
                      type={f.value === "number" ? "number" : "text"}
                      min={f.min}
                      value={inputOf(inputs, type, f)}
                      onChange={(e) => {
                        setInputs((prev) => ({ ...prev, [inputKey(type, f)]: e.target.value }));
                        edited(path);
                      }}
                    />
                  )}
                </Field>
              );
            })}
          </div>
        ))}
      </fieldset>

      {(elsewhere.length > 0 || refused?.message) && (
        <ul
          role="alert"
          className="list-disc rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 py-2 pl-6 pr-3 text-red-800 dark:text-red-200"
        >
          {refused?.message && <li>{refused.message}</li>}
          {elsewhere.map(([path, message]) => (
            <li key={path}>
              {path}: {message}
            </li>
          ))}
        </ul>
      )}
      <div className="flex items-center justify-end gap-2">
        {shown.size > elsewhere.length && (
          <span className="mr-auto text-xs text-red-700 dark:text-red-300">Fix the fields marked in red.</span>
        )}
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add source"}
        </Button>
      </div>
    </form>
  );
}

/** The "Add source" button and its dialog. */
export function AddSource() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        Add source
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Add a broker source" wide>
        <AddSourceForm onDone={() => setOpen(false)} />
      </Dialog>
    </>
  );
}
