import type { Metadata } from "next";
import { RulesPage } from "@/components/rules/rules-page";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { forReader } from "@/lib/api/page-data";
import { getDb } from "@/lib/db/client";
import { STANDING_REPLAY } from "@/lib/replay/batch/standing-rules";
import { listRules } from "@/lib/rules/rules";

export const metadata: Metadata = { title: "Rules" };
export const dynamic = "force-dynamic";

export default async function RulesRoute({ searchParams }: { searchParams: Promise<{ rule?: string | string[] }> }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const { rule } = await searchParams;
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const rules = await listRules(getDb().pool, now, principal.scope, STANDING_REPLAY);
  const selected = typeof rule === "string" && rules.some((r) => r.id === rule) ? rule : null;
  return (
    <section aria-labelledby="rules-heading" className="space-y-3">
      <h1 id="rules-heading" className="text-lg font-semibold">
        Triage rules
      </h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        A rule decides routine dead letters as they arrive, once two supervisors stand behind it: one drafts a version, another approves
        exactly that version. Dry-run before anything acts; disable at once when in doubt.
      </p>
      <RulesPage
        initial={forReader(rules)}
        renderedAt={now.getTime()}
        userId={principal.userId}
        canApprove={can(principal.role, "replays:approve")}
        canDisable={can(principal.role, "rules:disable")}
        selected={selected}
      />
    </section>
  );
}
