"use client";

import { useState } from "react";
import { errorMessage } from "@/lib/api/client";
import { ErrorAlert } from "@/components/ui/alert";

// Posts to better-auth's /api/auth/sign-in/email; on success a full navigation to `next`, so the layout's
// user menu renders signed in.

export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ email: String(form.get("email") ?? ""), password: String(form.get("password") ?? ""), rememberMe: true }),
      });
      if (res.ok) {
        window.location.assign(next);
        return;
      }
      const body: unknown = await res.json().catch(() => null);
      if (res.status === 401) setError("Wrong e-mail or password.");
      else if (res.status === 429) setError(`Too many attempts. Try again in ${res.headers.get("x-retry-after") ?? "60"} seconds.`);
      else setError(errorMessage(res.status, body));
    } catch {
      setError("Could not reach the server. Check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={onSubmit} className="space-y-3" noValidate={false}>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      <div className="space-y-1">
        <label htmlFor="email" className="block text-sm font-medium text-slate-700 dark:text-slate-300">
          E-mail
        </label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          required
          autoFocus
          className="block w-full rounded border border-slate-300 dark:border-slate-600 px-2.5 py-1.5 text-sm focus:border-slate-500 focus:outline-none focus:ring-1 focus:ring-slate-500"
        />
      </div>
      <div className="space-y-1">
        <label htmlFor="password" className="block text-sm font-medium text-slate-700 dark:text-slate-300">
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          className="block w-full rounded border border-slate-300 dark:border-slate-600 px-2.5 py-1.5 text-sm focus:border-slate-500 focus:outline-none focus:ring-1 focus:ring-slate-500"
        />
      </div>
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded bg-slate-900 dark:bg-slate-100 px-3 py-1.5 text-sm font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300 disabled:cursor-wait disabled:opacity-60"
      >
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
