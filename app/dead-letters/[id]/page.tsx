import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { DetailView } from "@/components/dead-letters/detail/detail-view";
import { HeavyDetailView } from "@/components/dead-letters/detail/heavy-detail-view";
import { AppError } from "@/lib/errors/app-error";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { readDetailForReader } from "@/lib/dead-letters/query/detail";
import { IdSchema } from "@/lib/dead-letters/contract/record-id";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskDetail } from "@/lib/dead-letters/query/mask-detail";
import { forReader } from "@/lib/api/page-data";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `Dead letter #${(await params).id}` };
}

export default async function DeadLetterPage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const id = IdSchema.safeParse((await params).id);
  if (!id.success) notFound();
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const read = await readDetailForReader(getDb().pool, principal.scope, id.data).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    // Archived: what is left of it is its timeline.
    if (err instanceof AppError && err.code === "gone") redirect(`/lookup/timeline/${id.data}`);
    throw err;
  });
  const permissions = {
    triage: can(principal.role, "dead_letters:triage"),
    overrideIdentity: can(principal.role, "dead_letters:override_identity"),
    reveal: can(principal.role, "dead_letters:unmask"),
    notes: can(principal.role, "notes:write"),
  };
  if (read.heavy) return <HeavyDetailView id={id.data} storedBytes={read.storedBytes} permissions={permissions} />;
  return (
    <DetailView
      key={read.detail.id}
      initial={forReader(maskDetail(read.detail, configuredMaskRules()))}
      renderedAt={now.getTime()}
      permissions={permissions}
    />
  );
}
