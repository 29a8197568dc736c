"use client";

import { useState } from "react";
import { errorMessage } from "@/lib/api/client";

// Starts better-auth's OAuth flow (state, PKCE verifier and nonce kept in a signed cookie and the verification
// table) and sends the browser to the identity provider, which comes back to /api/auth/callback/oidc.

export function SsoSignInButton({ provider, next, primary }: { provider: string; next: string; primary: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function start() {
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/sign-in/social", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ provider: "oidc", callbackURL: next, errorCallbackURL: "/sign-in", disableRedirect: true }),
      });
      const body: unknown = await res.json().catch(() => null);
      if (res.ok && typeof body === "object" && body !== null && "url" in body && typeof body.url === "string") {
        window.location.assign(body.url);
        return;
      }
      setError(errorMessage(res.status, body));
    } catch {
      setError("Could not reach the server. Check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <div className="space-y-2">
      {error && (
        <p
          role="alert"
          className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {error}
        </p>
      )}
      <button
        type="button"
        onClick={start}
        disabled={pending}
        className={
          primary
            ? "w-full rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300"
            : "w-full rounded border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-100 disabled:cursor-wait disabled:opacity-60 dark:border-slate-600 dark:text-slate-100 dark:hover:bg-slate-800"
        }
      >
        {pending ? "Redirecting…" : `Sign in with ${provider}`}
      </button>
    </div>
  );
}
