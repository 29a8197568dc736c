import type { Metadata } from "next";
import { Badge } from "@/components/ui/badge";
import { AllTokensPanel } from "@/components/settings/all-tokens-panel";
import { ChangePasswordForm } from "@/components/settings/change-password-form";
import { TokensPanel } from "@/components/settings/tokens-panel";
import { ReplayApprovalPanel } from "@/components/settings/replay-approval-panel";
import { SsoPanel } from "@/components/settings/sso-panel";
import { UsersPanel } from "@/components/settings/users-panel";
import { TeamsPanel } from "@/components/settings/teams-panel";
import { listTeams } from "@/lib/auth/teams/teams";
import { can, ROLE_PERMISSIONS } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { forReader } from "@/lib/api/page-data";
import { listAllApiTokens, listApiTokens } from "@/lib/auth/tokens";
import { listUsers } from "@/lib/auth/users";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { readSsoSettingsView } from "@/lib/auth/sso-settings";
import { requestOrigin } from "@/lib/auth/auth";
import { headers } from "next/headers";
import { readSingleApproverSetting } from "@/lib/replay/batch/single-approver";
import { ArchivePanel } from "@/components/settings/archive-panel";
import { readArchiveSetting } from "@/lib/ops/archive-setting";

export const metadata: Metadata = { title: "Settings" };
export const dynamic = "force-dynamic";

export default async function SettingsPage() {
  const me = await requirePagePrincipal(undefined, { next: "/settings" });
  const isAdmin = can(me.role, "users:manage");
  const managesTokens = can(me.role, "tokens:manage");
  const managesSettings = can(me.role, "settings:manage");
  const { pool } = getDb();
  // Masked as their API answers are (GET /api/tokens, /api/users, /api/teams…): props are answers too.
  const [tokens, users, allTokens, approval, sso, teams, archive] = forReader(
    await Promise.all([
      listApiTokens(pool, me.userId),
      isAdmin ? listUsers(pool) : Promise.resolve(null),
      managesTokens ? listAllApiTokens(pool) : Promise.resolve(null),
      managesSettings ? readSingleApproverSetting(pool) : Promise.resolve(null),
      managesSettings ? readSsoSettingsView(pool, getEnv()) : Promise.resolve(null),
      isAdmin ? listTeams(pool) : Promise.resolve(null),
      managesSettings ? readArchiveSetting(pool, getEnv().REDRIVE_RETENTION_DAYS) : Promise.resolve(null),
    ]),
  );
  // The redirect URI the admin registers at the provider: BETTER_AUTH_URL, or the address this page was asked on.
  const origin =
    getEnv().BETTER_AUTH_URL?.replace(/\/+$/, "") ??
    requestOrigin(new Request("http://localhost/", { headers: new Headers(await headers()) }));

  return (
    <div className="max-w-5xl space-y-4">
      <h1 className="text-lg font-semibold">Settings</h1>

      <section
        aria-labelledby="account-heading"
        className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4"
      >
        <h2 id="account-heading" className="mb-2 text-sm font-semibold">
          Your account
        </h2>
        <dl className="grid grid-cols-[8rem_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500 dark:text-slate-400">E-mail</dt>
          <dd>{me.email}</dd>
          <dt className="text-slate-500 dark:text-slate-400">Name</dt>
          <dd>{me.name}</dd>
          <dt className="text-slate-500 dark:text-slate-400">Role</dt>
          <dd>
            <Badge>{me.role}</Badge>
          </dd>
          <dt className="text-slate-500 dark:text-slate-400">Permissions</dt>
          <dd className="flex flex-wrap gap-1">
            {[...ROLE_PERMISSIONS[me.role]].sort().map((p) => (
              <code key={p} className="rounded bg-slate-100 dark:bg-slate-800 px-1 text-xs text-slate-700 dark:text-slate-300">
                {p}
              </code>
            ))}
          </dd>
        </dl>
      </section>

      <TokensPanel initialTokens={tokens} />
      {me.via === "session" && <ChangePasswordForm />}
      {users && <UsersPanel initialUsers={users} currentUserId={me.userId} />}
      {users && teams && <TeamsPanel initialTeams={teams} users={users} />}
      {allTokens && <AllTokensPanel initialTokens={allTokens} />}
      {approval && <ReplayApprovalPanel initial={approval} />}
      {archive && <ArchivePanel initial={archive} />}
      {sso && <SsoPanel initial={sso} origin={origin} />}
    </div>
  );
}
