"use client";

import { useState } from "react";
import type { TokenView } from "@/lib/auth/account-schemas";
import { useAllTokens, useRevokeToken } from "./queries";
import { TokensTable } from "./tokens-table";
import { ErrorAlert, StatusLine } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";

// Admins (tokens:manage) see every user's API tokens and can revoke any of them: a leaked token is found and
// stopped here without database access. Creating tokens stays with their owners (a token acts with its owner's role).

export function AllTokensPanel({ initialTokens }: { initialTokens: TokenView[] }) {
  const tokens = useAllTokens(initialTokens);
  const revoke = useRevokeToken();
  const [status, setStatus] = useState<string | null>(null);
  const [showRevoked, setShowRevoked] = useState(false);

  function onRevoke(token: TokenView) {
    setStatus(null);
    revoke.mutate(token.id, { onSuccess: () => setStatus(`Token "${token.name}" of ${token.userEmail ?? "its owner"} revoked.`) });
  }

  const error = revoke.error ?? tokens.error;
  const shown = (tokens.data ?? []).filter((t) => showRevoked || !t.revokedAt);
  return (
    <Panel
      id="all-tokens"
      title="All API tokens"
      description={<>Every user&apos;s tokens (you manage tokens as an admin). Revoking one is audited.</>}
      aside={
        <label className="flex items-center gap-1 text-xs text-slate-600 dark:text-slate-300">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} /> show revoked
        </label>
      }
    >
      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {status && <StatusLine>{status}</StatusLine>}
      {shown.length > 0 ? (
        <TokensTable tokens={shown} showOwner busy={revoke.isPending} onRevoke={onRevoke} />
      ) : (
        <p className="text-sm text-slate-500 dark:text-slate-400">No {showRevoked ? "" : "active "}tokens.</p>
      )}
    </Panel>
  );
}
