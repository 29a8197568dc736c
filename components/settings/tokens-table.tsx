"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { ColumnHeaders, DividedBody } from "@/components/ui/table";
import type { TokenView } from "@/lib/auth/account-schemas";

// The table of API tokens on the settings page: the user's own, and for admins every user's (with an owner
// column). Revoking asks first, in the app's dialog; the caller does the rest.

const when = (iso: string | null) => (iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—");

export function TokensTable({
  tokens,
  showOwner = false,
  busy,
  onRevoke,
}: {
  tokens: TokenView[];
  showOwner?: boolean;
  busy: boolean;
  onRevoke: (token: TokenView) => void;
}) {
  const [confirming, setConfirming] = useState<TokenView | null>(null);
  return (
    <>
      <table className="w-full text-left text-sm">
        <ColumnHeaders
          look="panel"
          columns={[...(showOwner ? ["Owner"] : []), "Name", "Token", "Created", "Last used", "Status", { label: "Actions", srOnly: true }]}
        />
        <DividedBody>
          {tokens.map((t) => (
            <tr key={t.id} className={t.revokedAt ? "text-slate-500 dark:text-slate-400" : undefined}>
              {showOwner && <td className="break-all py-1.5 pr-3">{t.userEmail}</td>}
              <td className="py-1.5 pr-3">{t.name}</td>
              <td className="py-1.5 pr-3 font-mono text-xs">{t.prefix}…</td>
              <td className="whitespace-nowrap py-1.5 pr-3">{when(t.createdAt)}</td>
              <td className="whitespace-nowrap py-1.5 pr-3">{when(t.lastUsedAt)}</td>
              <td className="py-1.5 pr-3">{t.revokedAt ? `revoked ${when(t.revokedAt)}` : "active"}</td>
              <td className="py-1.5 text-right">
                {!t.revokedAt && (
                  <button
                    type="button"
                    onClick={() => setConfirming(t)}
                    disabled={busy}
                    className="rounded border border-red-200 dark:border-red-800 px-2 py-0.5 text-xs text-red-700 dark:text-red-300 hover:bg-red-50 dark:hover:bg-red-950/40 disabled:opacity-50"
                    aria-label={showOwner ? `Revoke ${t.userEmail ?? ""} token ${t.name}` : `Revoke token ${t.name}`}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DividedBody>
      </table>
      <Dialog open={confirming !== null} onClose={() => setConfirming(null)} title={`Revoke the token "${confirming?.name ?? ""}"?`}>
        {confirming && (
          <>
            <p className="text-sm text-slate-700 dark:text-slate-300">
              {showOwner ? `${confirming.userEmail ?? "This user"}'s token` : "The token"} {confirming.prefix}… stops working at once:
              scripts and producers using it are refused from the next request. This cannot be undone; revoking is audited.
            </p>
            <div className="flex justify-end gap-2">
              <Button onClick={() => setConfirming(null)}>Keep the token</Button>
              <Button
                variant="danger"
                onClick={() => {
                  const token = confirming;
                  setConfirming(null);
                  onRevoke(token);
                }}
              >
                Revoke token
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </>
  );
}
