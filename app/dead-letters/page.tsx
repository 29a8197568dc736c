import type { Metadata } from "next";
import Link from "next/link";
import { ClassBadge, KindBadge, StatusBadge } from "@/components/dead-letters/badges";
import { searchParamsToObject } from "@/lib/api/search-params";
import { requirePagePrincipal } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { ListQuerySchema } from "@/lib/dead-letters/filters";
import { listDeadLetters } from "@/lib/dead-letters/list";

export const metadata: Metadata = { title: "Dead letters" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function toUrlParams(sp: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const one of Array.isArray(v) ? v : v ? [v] : []) params.append(k, one);
  return params;
}

export default async function DeadLettersPage({ searchParams }: { searchParams: SearchParams }) {
  await requirePagePrincipal("dead_letters:read");
  const params = toUrlParams(await searchParams);
  const parsed = ListQuerySchema.safeParse(searchParamsToObject(params));
  if (!parsed.success) {
    return (
      <p role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800">
        Invalid filter: {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}
      </p>
    );
  }
  const page = await listDeadLetters(getDb().pool, parsed.data);
  const next = new URLSearchParams(params);
  if (page.nextCursor) next.set("cursor", page.nextCursor);

  return (
    <section aria-labelledby="dl-heading" className="space-y-3">
      <div className="flex items-baseline justify-between">
        <h1 id="dl-heading" className="text-lg font-semibold">Dead letters</h1>
        <p className="text-xs text-slate-500">{page.items.length} shown · newest observation first</p>
      </div>
      {page.items.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-500">
          No dead letters match. Producers send them to <code>POST /api/dead-letters</code>.
        </p>
      ) : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-3 py-2">Kind</th>
                <th scope="col" className="px-3 py-2">Source</th>
                <th scope="col" className="px-3 py-2">Key / hash</th>
                <th scope="col" className="px-3 py-2">Failure reason</th>
                <th scope="col" className="px-3 py-2">Class</th>
                <th scope="col" className="px-3 py-2">Status</th>
                <th scope="col" className="px-3 py-2">Observed</th>
                <th scope="col" className="px-3 py-2 text-right">Replays</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {page.items.map((d) => (
                <tr key={d.id} className="hover:bg-slate-50">
                  <td className="px-3 py-1.5"><KindBadge kind={d.kind} /></td>
                  <td className="px-3 py-1.5 text-slate-600">{d.source}</td>
                  <td className="px-3 py-1.5 font-mono text-xs" title={d.idempotencyKey ?? "no key"}>
                    {d.idempotencyKey ? d.idempotencyKey.slice(0, 16) : <span className="text-red-600">none</span>}
                  </td>
                  <td className="max-w-xl truncate px-3 py-1.5" title={d.reason}>{d.reason}</td>
                  <td className="px-3 py-1.5"><ClassBadge failureClass={d.failureClass} title={d.classReason} /></td>
                  <td className="px-3 py-1.5"><StatusBadge status={d.status} /></td>
                  <td className="whitespace-nowrap px-3 py-1.5 text-slate-600">
                    <time dateTime={d.observedAt}>{d.observedAt.replace("T", " ").slice(0, 19)}</time>
                  </td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{d.replayCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.nextCursor && (
        <Link href={`/dead-letters?${next.toString()}`} className="inline-block rounded border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-50">
          Next page →
        </Link>
      )}
    </section>
  );
}
