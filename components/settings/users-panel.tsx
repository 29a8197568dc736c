"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { ColumnHeaders, DividedBody } from "@/components/ui/table";
import { ROLES, type Role } from "@/lib/auth/permissions";
import type { CreatedUser, UserView } from "@/lib/auth/account-schemas";
import { useCreateUser, usePatchUser, useUsers } from "./queries";
import { SecretOnce } from "./secret-once";
import { ErrorAlert, StatusLine } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";

const inputClass = "block w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm";

export function UsersPanel({ initialUsers, currentUserId }: { initialUsers: UserView[]; currentUserId: string }) {
  const users = useUsers(initialUsers);
  const patch = usePatchUser();
  const [status, setStatus] = useState<string | null>(null);

  function changeRole(user: UserView, role: Role) {
    if (role === user.role) return;
    const self = user.id === currentUserId ? " This is your own account." : "";
    if (!window.confirm(`Change ${user.email} from ${user.role} to ${role}?${self}`)) return;
    patch.mutate({ id: user.id, patch: { role } }, { onSuccess: () => setStatus(`${user.email} is now ${role}.`) });
  }

  function toggleDisabled(user: UserView) {
    const disabled = !user.disabled;
    const what = disabled ? "Disable" : "Enable";
    const effect = disabled ? " They are signed out and their API tokens stop working." : "";
    if (!window.confirm(`${what} ${user.email}?${effect}`)) return;
    patch.mutate(
      { id: user.id, patch: { disabled } },
      { onSuccess: () => setStatus(`${user.email} ${disabled ? "disabled" : "enabled"}.`) },
    );
  }

  const error = patch.error ?? users.error;

  return (
    <Panel
      id="users"
      title="Users"
      description={<>Role changes and disabling take effect on the user&apos;s next request and are audited.</>}
    >
      <CreateUserForm />

      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {status && <StatusLine>{status}</StatusLine>}

      <table className="w-full text-left text-sm">
        <ColumnHeaders look="panel" columns={["E-mail", "Name", "Role", "Status", { label: "Actions", srOnly: true }]} />
        <DividedBody>
          {(users.data ?? []).map((u) => (
            <tr key={u.id} className={u.disabled ? "text-slate-500 dark:text-slate-400" : undefined}>
              <td className="py-1.5 pr-3">
                {u.email}
                {u.id === currentUserId && <span className="ml-1 text-xs text-slate-500 dark:text-slate-400">(you)</span>}
                {u.demo && (
                  <span className="ml-1">
                    <Badge tone="violet" title="Seeded demo account: refused in production unless REDRIVE_DEMO=1">
                      demo
                    </Badge>
                  </span>
                )}
              </td>
              <td className="py-1.5 pr-3">{u.name}</td>
              <td className="py-1.5 pr-3">
                <label className="sr-only" htmlFor={`role-${u.id}`}>
                  Role of {u.email}
                </label>
                <select
                  id={`role-${u.id}`}
                  value={u.role}
                  disabled={patch.isPending}
                  onChange={(e) => changeRole(u, e.target.value as Role)}
                  className="rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-1.5 py-0.5 text-sm"
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              </td>
              <td className="py-1.5 pr-3">{u.disabled ? <Badge tone="red">disabled</Badge> : <Badge tone="green">enabled</Badge>}</td>
              <td className="py-1.5 text-right">
                <button
                  type="button"
                  onClick={() => toggleDisabled(u)}
                  disabled={patch.isPending}
                  className="rounded border border-slate-300 dark:border-slate-600 px-2 py-0.5 text-xs hover:bg-slate-100 dark:hover:bg-slate-800 disabled:opacity-50"
                  aria-label={`${u.disabled ? "Enable" : "Disable"} ${u.email}`}
                >
                  {u.disabled ? "Enable" : "Disable"}
                </button>
              </td>
            </tr>
          ))}
        </DividedBody>
      </table>
    </Panel>
  );
}

function CreateUserForm() {
  const create = useCreateUser();
  const [created, setCreated] = useState<CreatedUser | null>(null);
  const [form, setForm] = useState({ email: "", name: "", role: "analyst" as Role, password: "" });

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(
      {
        email: form.email,
        role: form.role,
        ...(form.name.trim() ? { name: form.name } : {}),
        ...(form.password ? { password: form.password } : {}),
      },
      {
        onSuccess: (result) => {
          setCreated(result);
          setForm({ email: "", name: "", role: "analyst", password: "" });
        },
      },
    );
  }

  return (
    <div className="space-y-2">
      <form
        onSubmit={onSubmit}
        className="grid grid-cols-1 items-end gap-2 sm:grid-cols-[2fr_1.5fr_1fr_1.5fr_auto]"
        aria-label="Add a user"
      >
        <div className="space-y-1">
          <label htmlFor="new-user-email" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            E-mail
          </label>
          <input
            id="new-user-email"
            type="email"
            required
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
            className={inputClass}
          />
        </div>
        <div className="space-y-1">
          <label htmlFor="new-user-name" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Name (optional)
          </label>
          <input id="new-user-name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} className={inputClass} />
        </div>
        <div className="space-y-1">
          <label htmlFor="new-user-role" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Role
          </label>
          <select
            id="new-user-role"
            value={form.role}
            onChange={(e) => setForm({ ...form, role: e.target.value as Role })}
            className={`${inputClass} bg-white dark:bg-slate-900`}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1">
          <label htmlFor="new-user-password" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            Password (blank: generate)
          </label>
          <input
            id="new-user-password"
            type="password"
            autoComplete="new-password"
            minLength={12}
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
            className={inputClass}
          />
        </div>
        <button
          type="submit"
          disabled={create.isPending}
          className="rounded bg-slate-900 dark:bg-slate-100 px-3 py-1 text-sm font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300 disabled:opacity-50"
        >
          {create.isPending ? "Adding…" : "Add user"}
        </button>
      </form>
      {create.error && <ErrorAlert>{create.error.message}</ErrorAlert>}
      {created && !created.password && (
        <StatusLine>
          {created.user.email} added as {created.user.role}.
        </StatusLine>
      )}
      {created?.password && (
        <SecretOnce label={`Password for ${created.user.email}`} value={created.password} onDismiss={() => setCreated(null)} />
      )}
    </div>
  );
}
