"use client";

import { useState } from "react";
import type { TokenView } from "@/lib/auth/schemas";
import { useAllTokens, useRevokeToken } from "./queries";

// Admins (tokens:manage) see every user's API tokens and can revoke any of them: a leaked token is found and
// stopped here without database access. Creating tokens stays with their owners (a token acts with its owner's role).

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "—");

export function AllTokensPanel({ initialTokens }: { initialTokens: TokenView[] }) {
  const tokens = useAllTokens(initialTokens);
  const revoke = useRevokeToken();
  const [status, setStatus] = useState<string | null>(null);
  const [showRevoked, setShowRevoked] = useState(false);

  function onRevoke(token: TokenView) {
    if (!window.confirm(`Revoke ${token.userEmail ?? "this user"}'s token "${token.name}" (${token.prefix}…)? Scripts using it stop working at once.`)) return;
    setStatus(null);
    revoke.mutate(token.id, { onSuccess: () => setStatus(`Token "${token.name}" of ${token.userEmail ?? "its owner"} revoked.`) });
  }

  const error = revoke.error ?? tokens.error;
  const shown = (tokens.data ?? []).filter((t) => showRevoked || !t.revokedAt);
  return (
    <section aria-labelledby="all-tokens-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <div className="flex items-baseline justify-between gap-2">
        <div>
          <h2 id="all-tokens-heading" className="text-sm font-semibold">All API tokens</h2>
          <p className="text-xs text-slate-500">Every user&apos;s tokens (you manage tokens as an admin). Revoking one is audited.</p>
        </div>
        <label className="flex items-center gap-1 text-xs text-slate-600">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} /> show revoked
        </label>
      </div>
      {error && <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">{error.message}</p>}
      {status && <p role="status" className="text-sm text-slate-600">{status}</p>}
      {shown.length > 0 ? (
        <table className="w-full text-left text-sm">
          <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="py-1.5 pr-3">Owner</th>
              <th scope="col" className="py-1.5 pr-3">Name</th>
              <th scope="col" className="py-1.5 pr-3">Token</th>
              <th scope="col" className="py-1.5 pr-3">Created</th>
              <th scope="col" className="py-1.5 pr-3">Last used</th>
              <th scope="col" className="py-1.5 pr-3">Status</th>
              <th scope="col" className="py-1.5"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {shown.map((t) => (
              <tr key={t.id} className={t.revokedAt ? "text-slate-400" : undefined}>
                <td className="break-all py-1.5 pr-3">{t.userEmail}</td>
                <td className="py-1.5 pr-3">{t.name}</td>
                <td className="py-1.5 pr-3 font-mono text-xs">{t.prefix}…</td>
                <td className="whitespace-nowrap py-1.5 pr-3">{when(t.createdAt)}</td>
                <td className="whitespace-nowrap py-1.5 pr-3">{when(t.lastUsedAt)}</td>
                <td className="py-1.5 pr-3">{t.revokedAt ? `revoked ${when(t.revokedAt)}` : "active"}</td>
                <td className="py-1.5 text-right">
                  {!t.revokedAt && (
                    <button type="button" onClick={() => onRevoke(t)} disabled={revoke.isPending} aria-label={`Revoke ${t.userEmail ?? ""} token ${t.name}`}
                      className="rounded border border-red-200 px-2 py-0.5 text-xs text-red-700 hover:bg-red-50 disabled:opacity-50">
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="text-sm text-slate-500">No {showRevoked ? "" : "active "}tokens.</p>
      )}
    </section>
  );
}
