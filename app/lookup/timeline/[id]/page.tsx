import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import Link from "next/link";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { KindBadge, StatusBadge } from "@/components/dead-letters/badges";
import { RevealFields } from "@/components/forensics/reveal-fields";
import { TimelineEvents } from "@/components/forensics/timeline-events";
import { AppError } from "@/lib/errors/app-error";
import { startedByRedrive } from "@/lib/auth/fetch-site";
import { can } from "@/lib/auth/permissions";
import { actorOf, type Principal } from "@/lib/auth/principal";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { isBigintId } from "@/lib/db/column-limits";
import { maskFor } from "@/lib/forensics/access";
import { recordEvidence } from "@/lib/forensics/evidence";
import { auditUnmaskedRead } from "@/lib/forensics/reveal";
import { recordTimeline } from "@/lib/forensics/timeline";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Timeline" };
export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The timeline and the evidence; a clear read by an auditor is audited before anything is shown. */
async function load(id: string, principal: Principal, unmask: boolean) {
  const mask = maskFor(principal, unmask);
  const pool = getDb().pool;
  try {
    const timeline = await recordTimeline(pool, principal.scope, id, mask);
    const evidence = await recordEvidence(pool, id, mask);
    if (unmask)
      await auditUnmaskedRead(pool, id, "timeline page", { actor: actorOf(principal), requestId: `page-${randomUUID()}`, now: new Date() });
    return { ...forReader({ timeline, evidence }, { clear: mask === null }), mask };
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return null;
    throw err;
  }
}

export default async function TimelinePage({ params, searchParams }: Props) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const { id } = await params;
  if (!isBigintId(id)) notFound();
  const canUnmask = can(principal.role, "dead_letters:unmask");
  // From a link on another site, port or subdomain the page opens masked: the reader chooses "Show card data" here (audited).
  const unmask = canUnmask && (await searchParams).unmask === "1" && startedByRedrive(await headers());
  const loaded = await load(id, principal, unmask);
  if (!loaded) notFound();
  const { timeline, evidence, mask } = loaded;
  const apiUrl = `/api/dead-letters/${id}/timeline?download=1${unmask ? "&unmask=1" : ""}`;
  return (
    <section aria-labelledby="tl-heading" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="tl-heading" className="text-lg font-semibold">
          Timeline of record #{id} <KindBadge kind={timeline.kind} /> <StatusBadge status={timeline.status} />
        </h1>
        <div className="flex gap-3 text-sm">
          {timeline.archivedAt === null && (
            <Link className="underline" href={`/dead-letters/${id}`}>
              Open in triage
            </Link>
          )}
          <a className="underline" href={apiUrl} download>
            Download JSON
          </a>
          {canUnmask &&
            (unmask ? (
              <Link className="underline" href={`/lookup/timeline/${id}`}>
                Mask card data
              </Link>
            ) : (
              <Link className="underline" href={`/lookup/timeline/${id}?unmask=1`}>
                Show card data (audited)
              </Link>
            ))}
        </div>
      </div>
      <p className="font-mono text-xs text-slate-600 dark:text-slate-300">key {timeline.idempotencyKey ?? "(none)"}</p>
      {timeline.archivedAt !== null && (
        <p role="note" className="text-sm text-slate-700 dark:text-slate-300">
          Archived on {timeline.archivedAt.replace("T", " ").slice(0, 16)} UTC: settled past the archive horizon, this record left the dead
          letters. Its identity, key, final state and this timeline are kept; its payload is not. Its key still counts as a duplicate.
        </p>
      )}
      <TimelineEvents events={timeline.events} />
      {evidence && (
        <section
          aria-labelledby="evidence-heading"
          className="space-y-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3"
        >
          <h2 id="evidence-heading" className="text-sm font-semibold">
            Evidence{mask ? " (card data masked)" : ""}
          </h2>
          {"heavy" in evidence ? (
            <p className="text-sm text-slate-600 dark:text-slate-300">
              A large record ({(evidence.storedBytes / 1024 / 1024).toFixed(1)} MB stored): its raw envelope is not inlined here.{" "}
              {timeline.archivedAt === null && (
                <Link className="underline" href={`/dead-letters/${id}`}>
                  Open it in triage
                </Link>
              )}
            </p>
          ) : evidence.rawEnvelope === null && evidence.payload === null ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">
              Payload and raw envelope removed (purge or retention); identity and timeline are kept.
            </p>
          ) : (
            <>
              <RevealFields id={id} paths={evidence.masked} canReveal={canUnmask} />
              <p className="text-xs font-medium text-slate-500 dark:text-slate-400">Raw envelope as received</p>
              <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 dark:bg-slate-800 p-2 text-xs">
                {evidence.rawEnvelope ?? "(removed)"}
              </pre>
            </>
          )}
        </section>
      )}
    </section>
  );
}
