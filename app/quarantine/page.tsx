import type { Metadata } from "next";
import { QuarantineGroups } from "@/components/forensics/quarantine-groups";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { quarantineGroups } from "@/lib/dead-letters/query/quarantine-groups";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskReasonGroups } from "@/lib/dead-letters/query/mask-list";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Quarantine" };
export const dynamic = "force-dynamic";

export default async function QuarantinePage() {
  const principal = await requirePagePrincipal("dead_letters:read");
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const groups = forReader(maskReasonGroups(await quarantineGroups(getDb().pool, principal.scope, now), configuredMaskRules()));
  return (
    <section aria-labelledby="q-heading" className="space-y-3">
      <h1 id="q-heading" className="text-lg font-semibold">
        Quarantine
      </h1>
      <QuarantineGroups
        initial={groups}
        renderedAt={now.getTime()}
        canTriage={can(principal.role, "dead_letters:triage")}
        canPurge={can(principal.role, "dead_letters:purge")}
        canUnmask={can(principal.role, "dead_letters:unmask")}
      />
    </section>
  );
}
