"use client";

import { useState } from "react";
import { errorMessage } from "@/lib/api/client";
import { PASSWORD_MIN_LENGTH } from "@/lib/auth/account-schemas";
import { ERROR_BOX } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";

const inputClass = "block w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm";

/** better-auth's /change-password; other sessions are ended. Audited as user.password_changed. */
export function ChangePasswordForm() {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    const newPassword = String(form.get("newPassword") ?? "");
    if (newPassword !== String(form.get("confirmPassword") ?? "")) {
      setMessage({ ok: false, text: "The new passwords do not match." });
      return;
    }
    setPending(true);
    setMessage(null);
    try {
      const res = await fetch("/api/auth/change-password", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ currentPassword: String(form.get("currentPassword") ?? ""), newPassword, revokeOtherSessions: true }),
      });
      if (res.ok) {
        formEl.reset();
        setMessage({ ok: true, text: "Password changed. Your other sessions were signed out." });
      } else {
        const body: unknown = await res.json().catch(() => null);
        setMessage({ ok: false, text: errorMessage(res.status, body) });
      }
    } catch {
      setMessage({ ok: false, text: "Could not reach the server." });
    }
    setPending(false);
  }

  return (
    <Panel id="password" title="Change password">
      <form onSubmit={onSubmit} className="grid max-w-md gap-2">
        <div className="space-y-1">
          <label htmlFor="currentPassword" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Current password
          </label>
          <input
            id="currentPassword"
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            required
            className={inputClass}
          />
        </div>
        <div className="space-y-1">
          <label htmlFor="newPassword" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            New password (at least {PASSWORD_MIN_LENGTH} characters)
          </label>
          <input
            id="newPassword"
            name="newPassword"
            type="password"
            autoComplete="new-password"
            minLength={PASSWORD_MIN_LENGTH}
            required
            className={inputClass}
          />
        </div>
        <div className="space-y-1">
          <label htmlFor="confirmPassword" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Repeat the new password
          </label>
          <input id="confirmPassword" name="confirmPassword" type="password" autoComplete="new-password" required className={inputClass} />
        </div>
        <div>
          <button
            type="submit"
            disabled={pending}
            className="rounded bg-slate-900 dark:bg-slate-100 px-3 py-1 text-sm font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300 disabled:opacity-50"
          >
            {pending ? "Changing…" : "Change password"}
          </button>
        </div>
        {message && (
          <p role={message.ok ? "status" : "alert"} className={message.ok ? "text-sm text-emerald-700 dark:text-emerald-300" : ERROR_BOX}>
            {message.text}
          </p>
        )}
      </form>
    </Panel>
  );
}
