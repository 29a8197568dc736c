"use client";

import { useState } from "react";
import { ColumnHeaders, DividedBody } from "@/components/ui/table";
import { ErrorAlert, StatusLine } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";
import type { UserView } from "@/lib/auth/account-schemas";
import type { TeamSource, TeamView } from "@/lib/auth/teams/team-schemas";
import { useCreateTeam, useDeleteTeam, usePatchTeam, useTeams } from "./queries";

const inputClass = "block w-full rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1 text-sm";
const buttonClass =
  "rounded border border-slate-300 dark:border-slate-600 px-2 py-0.5 text-xs hover:bg-slate-100 dark:hover:bg-slate-800 disabled:opacity-50";

/** `parcels`, `sensor*` or `origin:rabbit-dlq` → a claim; several separated by commas. */
export function parseClaims(text: string): TeamSource[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => (t.startsWith("origin:") ? { origin: t.slice("origin:".length).trim() } : { source: t }));
}

const claimLabel = (s: { source: string | null; origin: string | null }) =>
  [s.source, s.origin && `origin:${s.origin}`].filter(Boolean).join(" + ");
const asClaim = (s: { source: string | null; origin: string | null }): TeamSource => ({
  ...(s.source ? { source: s.source } : {}),
  ...(s.origin ? { origin: s.origin } : {}),
});

export function TeamsPanel({ initialTeams, users }: { initialTeams: TeamView[]; users: UserView[] }) {
  const teams = useTeams(initialTeams);
  const create = useCreateTeam();
  const patch = usePatchTeam();
  const remove = useDeleteTeam();
  const [status, setStatus] = useState<string | null>(null);
  const [form, setForm] = useState({ name: "", sources: "" });
  const error = create.error ?? patch.error ?? remove.error ?? teams.error;
  const busy = create.isPending || patch.isPending || remove.isPending;

  function onCreate(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(
      { name: form.name, members: [], sources: parseClaims(form.sources) },
      {
        onSuccess: (t) => {
          setStatus(`Team ${t.name} created.`);
          setForm({ name: "", sources: "" });
        },
      },
    );
  }

  function change(team: TeamView, what: string, p: Parameters<typeof patch.mutate>[0]["patch"]) {
    patch.mutate({ id: team.id, patch: p }, { onSuccess: () => setStatus(`${team.name}: ${what}.`) });
  }

  function onDelete(team: TeamView) {
    if (!window.confirm(`Remove team ${team.name}? Its members who are in no other team will see every record.`)) return;
    remove.mutate(team.id, { onSuccess: () => setStatus(`Team ${team.name} removed.`) });
  }

  return (
    <Panel
      id="teams"
      title="Teams"
      description={
        <>
          A user in teams sees and changes only their teams&apos; records (404 for the rest); a user in no team sees every record. A team
          holds the records whose source is a name or starts with a prefix (<code>sensor*</code>), or that were pulled from a broker source
          (<code>origin:name</code>). Changes are audited and take effect on the next request.
        </>
      }
    >
      <form onSubmit={onCreate} className="grid grid-cols-1 items-end gap-2 sm:grid-cols-[1.5fr_3fr_auto]" aria-label="Add a team">
        <div className="space-y-1">
          <label htmlFor="new-team-name" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Name
          </label>
          <input
            id="new-team-name"
            required
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            className={inputClass}
          />
        </div>
        <div className="space-y-1">
          <label htmlFor="new-team-sources" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Sources (comma-separated: name, prefix*, origin:broker-source)
          </label>
          <input
            id="new-team-sources"
            value={form.sources}
            placeholder="parcels, sensor*, origin:rabbit-dlq"
            onChange={(e) => setForm({ ...form, sources: e.target.value })}
            className={inputClass}
          />
        </div>
        <button
          type="submit"
          disabled={busy}
          className="rounded bg-slate-800 dark:bg-slate-200 px-3 py-1 text-sm text-white dark:text-slate-900 disabled:opacity-50"
        >
          Add team
        </button>
      </form>

      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {status && <StatusLine>{status}</StatusLine>}

      {/* narrow screens scroll the table inside the panel rather than cut its last column */}
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <ColumnHeaders look="panel" columns={["Team", "Sources", "Members", { label: "Actions", srOnly: true }]} />
          <DividedBody>
            {(teams.data ?? []).map((t) => (
              <tr key={t.id} className="align-top">
                <td className="py-1.5 pr-3 font-medium">{t.name}</td>
                <td className="py-1.5 pr-3">
                  <ul className="flex flex-wrap gap-1" aria-label={`Sources of ${t.name}`}>
                    {t.sources.map((s, i) => (
                      <li key={i} className="flex items-center gap-1 rounded bg-slate-100 dark:bg-slate-800 px-1 text-xs">
                        <code>{claimLabel(s)}</code>
                        <button
                          type="button"
                          disabled={busy}
                          aria-label={`Remove ${claimLabel(s)} from ${t.name}`}
                          onClick={() =>
                            change(t, `${claimLabel(s)} removed`, { sources: t.sources.filter((_, j) => j !== i).map(asClaim) })
                          }
                          className="text-slate-500 hover:text-red-600 dark:text-slate-400 dark:hover:text-red-400"
                        >
                          ×
                        </button>
                      </li>
                    ))}
                  </ul>
                  <AddSource
                    team={t}
                    busy={busy}
                    onAdd={(claims) => change(t, "sources added", { sources: [...t.sources.map(asClaim), ...claims] })}
                  />
                </td>
                <td className="py-1.5 pr-3">
                  <ul className="flex flex-wrap gap-1" aria-label={`Members of ${t.name}`}>
                    {t.members.map((m) => (
                      <li key={m.userId} className="flex items-center gap-1 rounded bg-slate-100 dark:bg-slate-800 px-1 text-xs">
                        {m.email ?? m.userId}
                        <button
                          type="button"
                          disabled={busy}
                          aria-label={`Remove ${m.email ?? m.userId} from ${t.name}`}
                          onClick={() =>
                            change(t, `${m.email ?? m.userId} removed`, {
                              members: t.members.filter((x) => x.userId !== m.userId).map((x) => ({ userId: x.userId })),
                            })
                          }
                          className="text-slate-500 hover:text-red-600 dark:text-slate-400 dark:hover:text-red-400"
                        >
                          ×
                        </button>
                      </li>
                    ))}
                  </ul>
                  <label className="sr-only" htmlFor={`add-member-${t.id}`}>
                    Add a member to {t.name}
                  </label>
                  <select
                    id={`add-member-${t.id}`}
                    value=""
                    disabled={busy}
                    onChange={(e) =>
                      e.target.value &&
                      change(t, "member added", { members: [...t.members.map((x) => ({ userId: x.userId })), { userId: e.target.value }] })
                    }
                    className="mt-1 rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-1.5 py-0.5 text-xs"
                  >
                    <option value="">Add member…</option>
                    {users
                      .filter((u) => !t.members.some((m) => m.userId === u.id))
                      .map((u) => (
                        <option key={u.id} value={u.id}>
                          {u.email} ({u.role})
                        </option>
                      ))}
                  </select>
                </td>
                <td className="py-1.5 text-right">
                  <button
                    type="button"
                    onClick={() => onDelete(t)}
                    disabled={busy}
                    className={buttonClass}
                    aria-label={`Remove team ${t.name}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </DividedBody>
        </table>
      </div>
    </Panel>
  );
}

function AddSource({ team, busy, onAdd }: { team: TeamView; busy: boolean; onAdd: (claims: TeamSource[]) => void }) {
  const [text, setText] = useState("");
  return (
    <form
      className="mt-1 flex gap-1"
      aria-label={`Add sources to ${team.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const claims = parseClaims(text);
        if (claims.length) onAdd(claims);
        setText("");
      }}
    >
      <label className="sr-only" htmlFor={`add-source-${team.id}`}>
        Add sources to {team.name}
      </label>
      <input
        id={`add-source-${team.id}`}
        value={text}
        placeholder="name, prefix*, origin:…"
        onChange={(e) => setText(e.target.value)}
        className="w-40 rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-1.5 py-0.5 text-xs"
      />
      <button type="submit" disabled={busy || !text.trim()} className={buttonClass}>
        Add
      </button>
    </form>
  );
}
