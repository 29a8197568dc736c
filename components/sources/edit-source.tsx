"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { PatchSourceBody, sourceUrlProblem, type SourceView } from "@/lib/sources/source-schemas";
import { sourcePlug } from "@/lib/sources/registry";
import type { AnySourceConfigPlug } from "@/lib/sources/source-plug";
import type { DeadLetterKind } from "@/lib/vocabulary/record";
import { byPath, Field, KindField, serverIssues } from "./add-source";
import { useUpdateSource, type UpdateSourceRequest } from "./queries";
import { hasStoredCredentials } from "./source-text";

// "Edit" (admins): change a source in place — its URL, credentials, kind or options — so it keeps its history.
// Secrets are never shown: the URL appears only as the server redacts it, and the user name and password fields
// start empty, "kept unless replaced"; only what the admin changes is sent (PATCH /api/sources/{name}).

function EditSourceForm({ source, onDone }: { source: SourceView; onDone: () => void }) {
  const update = useUpdateSource();
  const [url, setUrl] = useState("");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [kind, setKind] = useState<DeadLetterKind>(source.kind);
  const initialOptions = JSON.stringify(source.options, null, 2);
  const [optionsText, setOptionsText] = useState(initialOptions);
  const [refused, setRefused] = useState<{ issues: Map<string, string>; message: string | null } | null>(null);
  const stored = hasStoredCredentials(source.url);

  let options: Record<string, unknown> | undefined;
  let optionsProblem: string | undefined;
  if (optionsText !== initialOptions) {
    try {
      const parsed: unknown = JSON.parse(optionsText);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) options = parsed as Record<string, unknown>;
      else optionsProblem = "must be a JSON object";
    } catch {
      optionsProblem = "must be a JSON object";
    }
  }
  const body: UpdateSourceRequest = {
    ...(url.trim() !== "" ? { url: url.trim() } : {}),
    ...(username !== "" ? { username } : {}),
    ...(password !== "" ? { password } : {}),
    ...(kind !== source.kind ? { kind } : {}),
    ...(options ? { options } : {}),
  };
  const urlProblem = url.trim() === "" ? undefined : (sourceUrlProblem(source.type, url.trim()) ?? undefined);
  const nothing = Object.keys(body).length === 0;
  const problem = (path: string) =>
    refused?.issues.get(path) ??
    (path === "url" ? urlProblem : path === "options" ? optionsProblem : undefined) ??
    (path === "options" ? [...(refused?.issues ?? [])].find(([p]) => p.startsWith("options."))?.[1] : undefined);

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setRefused(null);
    if (nothing || urlProblem || optionsProblem || !PatchSourceBody.safeParse(body).success) return;
    update.mutate(
      { name: source.name, body },
      {
        onSuccess: onDone,
        onError: (err) => {
          const issues = byPath(serverIssues(err));
          setRefused({ issues, message: issues.size === 0 ? err.message : null });
        },
      },
    );
  }

  const secretHint = (sourcePlug(source.type) as AnySourceConfigPlug).secretHint ?? "";
  return (
    <form onSubmit={submit} noValidate className="space-y-3 text-sm">
      <Field
        label="URL"
        problem={problem("url")}
        hint={`Empty keeps the stored URL, shown here as ${source.url} (user name, password and query values hidden). A new URL without a user name or password keeps the stored ones.`}
      >
        {(p) => <input {...p} value={url} onChange={(e) => setUrl(e.target.value)} placeholder={source.url} autoComplete="off" />}
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field
          label={`User name${secretHint}`}
          problem={problem("username")}
          hint={stored ? "Stored; kept unless replaced." : "None stored."}
        >
          {(p) => (
            <input
              {...p}
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              placeholder={stored ? "kept unless replaced" : ""}
              autoComplete="off"
            />
          )}
        </Field>
        <Field
          label={`Password${secretHint}`}
          problem={problem("password")}
          hint={stored ? "Stored, never shown; kept unless replaced." : "None stored."}
        >
          {(p) => (
            <input
              {...p}
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              placeholder={stored ? "•••••••• kept unless replaced" : ""}
              autoComplete="new-password"
            />
          )}
        </Field>
      </div>
      <KindField kind={kind} onChange={setKind} problem={problem("kind")} />
      <Field label="Options (JSON)" problem={problem("options")} hint="The source's options as stored; the whole object replaces them.">
        {(p) => (
          <textarea
            {...p}
            rows={6}
            className={`${p.className} font-mono text-xs`}
            value={optionsText}
            onChange={(e) => setOptionsText(e.target.value)}
          />
        )}
      </Field>
      {refused?.message && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {refused.message}
        </p>
      )}
      <div className="flex items-center justify-end gap-2">
        {nothing && <span className="mr-auto text-xs text-slate-500 dark:text-slate-400">Nothing changed yet.</span>}
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={update.isPending || nothing}>
          {update.isPending ? "Saving…" : "Save changes"}
        </Button>
      </div>
    </form>
  );
}

/** The "Edit" button of a source card and its dialog. */
export function EditSource({ source }: { source: SourceView }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="sm" onClick={() => setOpen(true)}>
        Edit
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title={`Edit source ${source.name}`} wide>
        {open && <EditSourceForm source={source} onDone={() => setOpen(false)} />}
      </Dialog>
    </>
  );
}
