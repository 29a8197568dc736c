import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { BatchLive } from "@/components/replay/batch-live";
import { AppError } from "@/lib/errors/app-error";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { isBigintId } from "@/lib/db/column-limits";
import { getBatch } from "@/lib/replay/batch/read-batches";
import { readSingleApproverSetting } from "@/lib/replay/batch/single-approver";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Replay batch" };
export const dynamic = "force-dynamic";

export default async function ReplayBatchPage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal("replays:read");
  const { id } = await params;
  if (!isBigintId(id)) notFound();
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const [batch, approval] = await Promise.all([
    getBatch(getDb().pool, principal.scope, id, now).catch((err: unknown) => {
      if (err instanceof AppError && err.code === "not_found") notFound();
      throw err;
    }),
    readSingleApproverSetting(getDb().pool),
  ]);
  return (
    <BatchLive
      initial={forReader(batch)}
      renderedAt={now.getTime()}
      perms={{
        canManage: can(principal.role, "replays:manage"),
        canApprove: can(principal.role, "replays:approve"),
        userId: principal.userId,
        singleApproverLimit: approval.limit,
      }}
    />
  );
}
