"use client";

import { useState } from "react";
import type { CreatedToken, TokenView } from "@/lib/auth/account-schemas";
import { useCreateToken, useRevokeToken, useTokens } from "./queries";
import { SecretOnce } from "./secret-once";
import { TokensTable } from "./tokens-table";
import { ErrorAlert, StatusLine } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";

export function TokensPanel({ initialTokens }: { initialTokens: TokenView[] }) {
  const tokens = useTokens(initialTokens);
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  function onCreate(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setStatus(null);
    create.mutate(
      { name },
      {
        onSuccess: (token) => {
          setCreated(token);
          setName("");
        },
      },
    );
  }

  function onRevoke(token: TokenView) {
    revoke.mutate(token.id, { onSuccess: () => setStatus(`Token "${token.name}" revoked.`) });
  }

  const error = create.error ?? revoke.error ?? tokens.error;

  return (
    <Panel
      id="tokens"
      title="API tokens"
      description={
        <>
          For scripts and producers: send <code>Authorization: Bearer rdv_…</code>. A token acts with your role.
        </>
      }
    >
      <form onSubmit={onCreate} className="flex items-end gap-2">
        <div className="flex-1 space-y-1">
          <label htmlFor="token-name" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            New token name
          </label>
          <input
            id="token-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
            placeholder="e.g. nightly export"
            className="block w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm"
          />
        </div>
        <button
          type="submit"
          disabled={create.isPending || name.trim() === ""}
          className="rounded bg-slate-900 dark:bg-slate-100 px-3 py-1 text-sm font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300 disabled:opacity-50"
        >
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </form>

      {created && <SecretOnce label={`Token "${created.name}"`} value={created.token} onDismiss={() => setCreated(null)} />}
      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {status && <StatusLine>{status}</StatusLine>}

      {tokens.data && tokens.data.length > 0 ? (
        <TokensTable tokens={tokens.data} busy={revoke.isPending} onRevoke={onRevoke} />
      ) : (
        <p className="text-sm text-slate-500 dark:text-slate-400">No tokens yet.</p>
      )}
    </Panel>
  );
}
