"use client";

import { useState } from "react";

export function SignOutButton() {
  const [pending, setPending] = useState(false);

  async function signOut() {
    setPending(true);
    let next = new URL("/sign-in", window.location.href).href;
    try {
      const res = await fetch("/api/auth/sign-out", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ disableRedirect: true }),
      });
      // Signed in through the identity provider: end the session there too (RP-initiated logout).
      const body: unknown = await res.json().catch(() => null);
      if (typeof body === "object" && body !== null && "url" in body && typeof body.url === "string" && /^https?:\/\//.test(body.url))
        next = body.url;
    } finally {
      // A full page load, not a client-side navigation: it drops every in-memory cache (React Query) holding
      // this user's data before someone else signs in on the same tab.
      window.location.replace(next);
    }
  }

  return (
    <button
      type="button"
      onClick={signOut}
      disabled={pending}
      className="rounded border border-slate-300 dark:border-slate-600 px-2 py-0.5 text-xs text-slate-700 dark:text-slate-300 hover:bg-slate-100 dark:hover:bg-slate-800 disabled:opacity-60"
    >
      {pending ? "Signing out…" : "Sign out"}
    </button>
  );
}
