"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { fetchJson } from "@/lib/api/client";
import type { SsoField, SsoSettingsBody, SsoSettingsView } from "@/lib/auth/sso-schemas";
import { accountKeys } from "./queries";
import { Panel } from "@/components/ui/panel";

// Single sign-on for admins: the OpenID Connect provider, the map from its groups to Redrive roles, and the switch
// that leaves password sign-in to the break-glass admin alone. Only fields changed here are sent, so a value the
// environment gives stays the environment's; an emptied field goes back to it.

type TextKey = "issuer" | "clientId" | "name" | "scopes" | "groupsClaim" | "roleMap" | "breakGlassEmail";

const TEXT_FIELDS: { key: TextKey; label: string; hint?: string; multiline?: boolean }[] = [
  { key: "issuer", label: "Issuer URL", hint: "e.g. https://sso.example.com/realms/ops (its /.well-known/openid-configuration is read)" },
  { key: "clientId", label: "Client ID" },
  { key: "name", label: "Provider name", hint: "shown on the sign-in button" },
  { key: "scopes", label: "Scopes" },
  { key: "groupsClaim", label: "Groups claim", hint: "groups (Keycloak, Okta), groups or roles (Entra ID), realm_access.roles …" },
  {
    key: "roleMap",
    label: "Group → role map",
    hint: "first match wins: redrive-admins=admin, ops=supervisor, readers=analyst",
    multiline: true,
  },
  { key: "breakGlassEmail", label: "Break-glass admin (e-mail)", hint: "may still sign in with a password when password sign-in is off" },
];

const text = (f: SsoField<string | null>) => f.value ?? "";

function Source({ field }: { field: SsoField<unknown> }) {
  if (field.from === "settings") return null;
  return (
    <span className="ml-1 text-[11px] font-normal text-slate-500 dark:text-slate-400">
      ({field.from === "environment" ? "from the environment" : "default"})
    </span>
  );
}

export function SsoPanel({ initial, origin }: { initial: SsoSettingsView; origin: string }) {
  const qc = useQueryClient();
  const [setting, setSetting] = useState(initial);
  const initialText = (s: SsoSettingsView) =>
    Object.fromEntries(TEXT_FIELDS.map((f) => [f.key, text(s[f.key])])) as Record<TextKey, string>;
  const [values, setValues] = useState(() => initialText(initial));
  const [secret, setSecret] = useState("");
  const [passwordSignIn, setPasswordSignIn] = useState(initial.passwordSignIn.value);

  const body = (): SsoSettingsBody => {
    const out: Record<string, unknown> = {};
    const before = initialText(setting);
    for (const f of TEXT_FIELDS)
      if (values[f.key].trim() !== before[f.key].trim()) out[f.key] = values[f.key].trim() === "" ? null : values[f.key].trim();
    if (secret !== "") out.clientSecret = secret;
    if (passwordSignIn !== setting.passwordSignIn.value) out.passwordSignIn = passwordSignIn;
    return out as SsoSettingsBody;
  };
  const changes = Object.keys(body()).length;

  const save = useMutation({
    mutationFn: (b: SsoSettingsBody) => fetchJson<SsoSettingsView>("/api/settings/sso", { method: "PUT", body: b }),
    onSuccess: (s) => {
      setSetting(s);
      setValues(initialText(s));
      setSecret("");
      setPasswordSignIn(s.passwordSignIn.value);
      toast.success(s.configured ? "Single sign-on settings saved." : "Saved: single sign-on is not configured yet.");
      return qc.invalidateQueries({ queryKey: accountKeys.all });
    },
  });

  const input =
    "block w-full rounded border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100";
  return (
    <Panel
      id="sso"
      title="Single sign-on (OpenID Connect)"
      description={
        <>
          People sign in with your identity provider; at every sign-in their groups there give their role here, and someone with no mapped
          group is refused. Register{" "}
          <code className="rounded bg-slate-100 px-1 text-slate-700 dark:bg-slate-800 dark:text-slate-300">{`${origin}${setting.callbackPath}`}</code>{" "}
          as the redirect URI. Changes are audited.
        </>
      }
    >
      <form
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(body());
        }}
      >
        {TEXT_FIELDS.map((f) => (
          <div key={f.key} className={f.multiline ? "space-y-1 sm:col-span-2" : "space-y-1"}>
            <label htmlFor={`sso-${f.key}`} className="block text-xs font-medium text-slate-700 dark:text-slate-300">
              {f.label}
              <Source field={setting[f.key]} />
            </label>
            {f.multiline ? (
              <textarea
                id={`sso-${f.key}`}
                rows={2}
                value={values[f.key]}
                onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
                className={input}
              />
            ) : (
              <input
                id={`sso-${f.key}`}
                value={values[f.key]}
                onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
                className={input}
              />
            )}
            {f.hint && <p className="text-[11px] text-slate-500 dark:text-slate-400">{f.hint}</p>}
          </div>
        ))}
        <div className="space-y-1">
          <label htmlFor="sso-clientSecret" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Client secret
            <Source field={setting.clientSecretSet} />
          </label>
          <input
            id="sso-clientSecret"
            type="password"
            autoComplete="off"
            value={secret}
            placeholder={setting.clientSecretSet.value ? "set (type to replace)" : "not set"}
            onChange={(e) => setSecret(e.target.value)}
            className={input}
          />
          <p className="text-[11px] text-slate-500 dark:text-slate-400">stored sealed, never shown again</p>
        </div>
        <div className="flex items-center gap-2 sm:col-span-2">
          <input id="sso-passwordSignIn" type="checkbox" checked={passwordSignIn} onChange={(e) => setPasswordSignIn(e.target.checked)} />
          <label htmlFor="sso-passwordSignIn" className="text-sm text-slate-700 dark:text-slate-300">
            Password sign-in for everyone (off: only the break-glass admin)
          </label>
        </div>
        <div className="sm:col-span-2">
          <Button type="submit" variant="primary" disabled={save.isPending || changes === 0}>
            {save.isPending ? "Saving…" : "Save single sign-on"}
          </Button>
        </div>
      </form>
      {save.error && (
        <p
          role="alert"
          className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {save.error.message}
        </p>
      )}
      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="sso-status">
        {setting.configured ? `Now: sign-in with ${setting.name.value} is on` : "Now: single sign-on is off"}
        {setting.passwordSignIn.value ? "; passwords work for everyone" : "; passwords only for the break-glass admin"}
        {setting.updatedBy ? ` (changed by ${setting.updatedBy}, ${setting.updatedAt?.replace("T", " ").slice(0, 16)} UTC)` : ""}.
      </p>
    </Panel>
  );
}
