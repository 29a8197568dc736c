import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { GroupDetail } from "@/components/groups/group-detail";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { forReader } from "@/lib/api/page-data";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors/app-error";
import { GroupIdSchema } from "@/lib/dead-letters/groups/group-schemas";
import { assignableOwners, getGroup } from "@/lib/dead-letters/groups/read-groups";

export const metadata: Metadata = { title: "Failure group" };
export const dynamic = "force-dynamic";

export default async function GroupPage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const id = GroupIdSchema.safeParse((await params).id);
  if (!id.success) notFound();
  const now = new Date();
  const pool = getDb().pool;
  const canTriage = can(principal.role, "dead_letters:triage");
  const group = await getGroup(pool, id.data, now).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  const owners = canTriage ? await assignableOwners(pool) : [];
  return (
    <section aria-labelledby="group-heading">
      <GroupDetail
        initial={forReader(group)}
        renderedAt={now.getTime()}
        owners={forReader(owners)}
        canTriage={canTriage}
        canReplay={can(principal.role, "replays:manage")}
      />
    </section>
  );
}
