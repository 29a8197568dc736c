import type { Metadata } from "next";
import Link from "next/link";
import { ClassBadge, KindBadge, StatusBadge } from "@/components/dead-letters/badges";
import { LookupForm } from "@/components/forensics/lookup-form";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { ColumnHeaders, DividedBody, FramedTable } from "@/components/ui/table";
import { searchParamsToObject } from "@/lib/net/search-params";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { toDateTimeLocal } from "@/lib/time/parse-time";
import { hasUnmaskRights, maskFor } from "@/lib/forensics/access";
import { AppError } from "@/lib/errors/app-error";
import { lookup } from "@/lib/forensics/lookup";
import { LookupQuerySchema, type LookupResult } from "@/lib/forensics/forensics-schemas";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Lookup" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));
const toLocalInput = toDateTimeLocal;
const time = (iso: string) => iso.replace("T", " ").slice(0, 19);

/** A short hex string that might be the start of an event hash, which needs 8 characters to be searched as a prefix. */
const shortHexHint = (q: string | undefined) =>
  q && /^[0-9a-f]{4,7}$/i.test(q.trim()) ? ` An event hash prefix needs at least 8 characters (this one has ${q.trim().length}).` : "";

function Results({ result, q }: { result: LookupResult; q?: string | undefined }) {
  return (
    <div className="space-y-4">
      <section aria-labelledby="records-heading" className="space-y-2">
        <h2 id="records-heading" className="text-sm font-semibold">
          Records{" "}
          <span className="font-normal text-slate-500 dark:text-slate-400">
            ({result.records.length}
            {result.truncated ? "+, narrow the search" : ""})
          </span>
        </h2>
        {result.records.length === 0 ? (
          <EmptyNotice inline>No record in the DLQ matches.{shortHexHint(q)}</EmptyNotice>
        ) : (
          <FramedTable>
            <ColumnHeaders columns={["Record", "Matched on", "Key / device", "Reason", "Class", "Status", "Observed (UTC)"]} />
            <DividedBody>
              {result.records.map((r) => (
                <tr key={r.id} className="hover:bg-slate-50 dark:hover:bg-slate-800">
                  <td className="whitespace-nowrap px-3 py-1.5">
                    <KindBadge kind={r.kind} />{" "}
                    <Link href={`/lookup/timeline/${r.id}`} className="font-medium underline" aria-label={`Timeline of record ${r.id}`}>
                      #{r.id}
                    </Link>
                  </td>
                  <td className="px-3 py-1.5 text-xs text-slate-600 dark:text-slate-300">{r.matchedOn.join(", ").replaceAll("_", " ")}</td>
                  <td className="px-3 py-1.5 font-mono text-xs">
                    <span title={r.idempotencyKey ?? "no key"}>
                      {r.idempotencyKey ? r.idempotencyKey.slice(0, 16) : <span className="text-red-600 dark:text-red-400">no key</span>}
                    </span>
                    {r.deviceId && <span className="block text-slate-500 dark:text-slate-400">{r.deviceId}</span>}
                  </td>
                  <td className="max-w-md truncate px-3 py-1.5" title={r.reason}>
                    {r.reason}
                  </td>
                  <td className="px-3 py-1.5">
                    <ClassBadge failureClass={r.failureClass} />
                  </td>
                  <td className="px-3 py-1.5">
                    <StatusBadge status={r.status} />
                  </td>
                  <td className="whitespace-nowrap px-3 py-1.5 text-slate-600 dark:text-slate-300">
                    <time dateTime={r.observedAt}>{time(r.observedAt)}</time>
                  </td>
                </tr>
              ))}
            </DividedBody>
          </FramedTable>
        )}
      </section>
      {result.ledger.length > 0 && (
        <section aria-labelledby="ledger-heading" className="space-y-2">
          <h2 id="ledger-heading" className="text-sm font-semibold">
            Settled in the ledger
          </h2>
          <ul className="divide-y divide-slate-100 dark:divide-slate-800 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 text-sm">
            {result.ledger.map((l) => (
              <li key={l.idempotencyKey} className="flex flex-wrap gap-x-4 px-3 py-1.5">
                <span className="font-mono text-xs">{l.idempotencyKey}</span>
                <span>applied {time(l.appliedAt)} UTC</span>
                <span>
                  {l.origin === "import" ? "imported from an external ledger" : l.batchId ? `by replay batch ${l.batchId}` : l.origin}
                </span>
                {l.deadLetterId && (
                  <Link className="underline" href={`/lookup/timeline/${l.deadLetterId}`}>
                    record #{l.deadLetterId}
                  </Link>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

export default async function LookupPage({ searchParams }: { searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const sp = await searchParams;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const x of Array.isArray(v) ? v : v ? [v] : []) params.append(k, x);
  const asked = ["q", "bbox", "near"].some((k) => params.has(k));
  // A time window alone looks nothing up (the API needs q or a place): say so rather than show the start hint again.
  const timeOnly = !asked && (params.has("from") || params.has("to"));
  const parsed = asked ? LookupQuerySchema.safeParse(searchParamsToObject(params)) : null;
  let refused: string | null = null;
  const found = parsed?.success
    ? await lookup(getDb().pool, principal.scope, parsed.data, maskFor(principal, false), {
        unmaskRights: hasUnmaskRights(principal),
      }).catch((e: unknown) => {
        if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
        refused = e.message;
        return null;
      })
    : null;
  const result = found ? forReader(found) : null;
  return (
    <section aria-labelledby="lookup-heading" className="space-y-3">
      <h1 id="lookup-heading" className="text-lg font-semibold">
        Lookup
      </h1>
      <LookupForm
        found={result?.records.flatMap((r) => (r.position ? [{ id: r.id, position: r.position }] : [])) ?? []}
        initial={{
          q: one(sp.q),
          from: toLocalInput(one(sp.from)),
          to: toLocalInput(one(sp.to)),
          bbox: one(sp.bbox),
          near: one(sp.near),
          radiusKm: one(sp.radiusKm) || "1",
        }}
        error={parsed && !parsed.success ? parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") : refused}
      />
      {timeOnly && (
        <p
          role="status"
          className="rounded border border-amber-200 dark:border-amber-800 bg-amber-50 dark:bg-amber-950/40 p-3 text-sm text-amber-900 dark:text-amber-100"
        >
          A time window narrows a lookup: give a key, hash, id or place too (or use the dead-letter list to browse by time).
        </p>
      )}
      {result ? (
        <Results result={result} q={parsed?.success ? parsed.data.q : undefined} />
      ) : (
        !parsed &&
        !timeOnly && (
          <p className="text-sm text-slate-500 dark:text-slate-400">
            Paste any identifier of a tap or feature, or give a place and a time window. Settled keys are found even after their record left
            the DLQ.
          </p>
        )
      )}
    </section>
  );
}
