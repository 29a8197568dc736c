import type { Metadata } from "next";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { JsonView } from "@/components/ui/json-view";
import { ColumnHeaders, DividedBody, FramedTable } from "@/components/ui/table";
import { searchParamsToObject } from "@/lib/net/search-params";
import { auditLog } from "@/lib/audit/log";
import { AUDIT_TARGET_TYPES, AuditQuerySchema, type AuditLogEvent } from "@/lib/audit/log-schema";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { toDateTimeLocal } from "@/lib/time/parse-time";
import { configuredMaskRules } from "@/lib/masking/config";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));
const time = (iso: string) => iso.replace("T", " ").slice(0, 19);
const toLocalInput = toDateTimeLocal;

/** Where an event's target lives in the app, when it has a page. */
function targetHref(e: AuditLogEvent): string | null {
  if (!e.target.id) return null;
  if (e.target.type === "dead_letter") return `/lookup/timeline/${e.target.id}`;
  if (e.target.type === "replay_batch") return `/replays/${e.target.id}`;
  return null;
}

function Details({ event }: { event: AuditLogEvent }) {
  const parts = (["before", "after", "diff"] as const).filter((k) => event[k] !== null && event[k] !== undefined);
  if (parts.length === 0 && !event.requestId) return <span className="text-slate-500 dark:text-slate-400">—</span>;
  return (
    <details>
      <summary className="cursor-pointer text-xs text-sky-700 dark:text-sky-300 hover:underline">
        {parts.length ? parts.join(", ") : "request"}
      </summary>
      <div className="mt-2 space-y-2">
        {parts.map((k) => (
          <div key={k}>
            <p className="text-xs font-medium text-slate-500 dark:text-slate-400">{k}</p>
            <JsonView text={JSON.stringify(event[k], null, 2)} label={`${k} of event ${event.id}`} maxHeight="16rem" />
          </div>
        ))}
        <p className="break-all text-xs text-slate-500 dark:text-slate-400">
          request {event.requestId ?? "—"} · hash {event.hash.slice(0, 12)}… · previous {event.prevHash.slice(0, 12)}…
        </p>
      </div>
    </details>
  );
}

export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("audit:read");
  const sp = await searchParams;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const x of Array.isArray(v) ? v : v ? [v] : []) if (x !== "") params.append(k, x);
  // The form's datetime-local fields carry no zone; they are labelled UTC, and the schema reads a time without an
  // offset as UTC and a minute given as "to" to its end (To 14:59 keeps an event at 14:59:03).
  const parsed = AuditQuerySchema.safeParse(searchParamsToObject(params));
  const page = parsed.success ? forReader(await auditLog(getDb().pool, principal.scope, parsed.data, configuredMaskRules())) : null;
  const next = new URLSearchParams(params);
  if (page?.nextCursor) next.set("cursor", page.nextCursor);
  const input = "rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm";
  return (
    <section aria-labelledby="audit-heading" className="space-y-3">
      <div>
        <h1 id="audit-heading" className="text-lg font-semibold">
          Audit log
        </h1>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          Every state change, newest first: sign-ins, tokens, roles, triage decisions, replay batches and outcomes, exports, alert rules.
          Append-only and hash-chained (<code>npx redrive audit verify</code> checks the chain). Card data is masked; reveal a field from a
          record&apos;s timeline.
        </p>
      </div>
      <form
        method="get"
        className="flex flex-wrap items-end gap-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3"
        aria-label="Filter the audit log"
      >
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          Action (or prefix ending with “.”)
          <input name="action" defaultValue={one(sp.action)} placeholder="replay_batch." className={`${input} w-44`} />
        </label>
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          Actor e-mail
          <input name="actor" type="email" defaultValue={one(sp.actor)} className={`${input} w-52`} />
        </label>
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          Target
          <select name="targetType" defaultValue={one(sp.targetType)} className={input}>
            <option value="">any</option>
            {AUDIT_TARGET_TYPES.map((t) => (
              <option key={t} value={t}>
                {t.replace("_", " ")}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          Target id
          <input name="targetId" defaultValue={one(sp.targetId)} className={`${input} w-24`} />
        </label>
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          From (UTC)
          <input name="from" type="datetime-local" defaultValue={toLocalInput(one(sp.from))} className={input} />
        </label>
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          To (UTC)
          <input name="to" type="datetime-local" defaultValue={toLocalInput(one(sp.to))} className={input} />
        </label>
        <div className="flex items-center gap-1">
          <button
            type="submit"
            className="rounded bg-slate-900 dark:bg-slate-100 px-3 py-1.5 text-sm font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300"
          >
            Show
          </button>
          <Link href="/audit" className="px-2 py-1.5 text-sm text-slate-600 dark:text-slate-300 hover:underline">
            Clear
          </Link>
        </div>
      </form>
      {!parsed.success && (
        <p
          role="alert"
          className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-3 text-sm text-red-800 dark:text-red-200"
        >
          {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}
        </p>
      )}
      {page && page.events.length === 0 && <EmptyNotice inline>No audit event matches.</EmptyNotice>}
      {page && page.events.length > 0 && (
        <FramedTable>
          <ColumnHeaders columns={["#", "Time (UTC)", "Actor", "Action", "Target", "Reason", "Details"]} />
          <DividedBody>
            {page.events.map((e) => {
              const href = targetHref(e);
              const target = `${e.target.type}${e.target.id ? ` ${e.target.id}` : ""}`;
              return (
                <tr key={e.id} className="align-top">
                  <td className="px-3 py-2 tabular-nums text-slate-500 dark:text-slate-400">{e.id}</td>
                  <td className="whitespace-nowrap px-3 py-2 tabular-nums">{time(e.at)}</td>
                  <td className="px-3 py-2">
                    <span className="break-all">{e.actor.email ?? "system"}</span>
                    {e.actor.role && (
                      <span className="ml-1">
                        <Badge>{e.actor.role}</Badge>
                      </span>
                    )}
                  </td>
                  <td className="px-3 py-2 font-mono text-xs">{e.action}</td>
                  <td className="px-3 py-2">
                    {href ? (
                      <Link href={href} className="text-sky-700 dark:text-sky-300 hover:underline">
                        {target}
                      </Link>
                    ) : (
                      target
                    )}
                  </td>
                  <td className="max-w-xs px-3 py-2 text-slate-700 dark:text-slate-300">
                    {e.reason ?? <span className="text-slate-500 dark:text-slate-400">—</span>}
                  </td>
                  <td className="max-w-md px-3 py-2">
                    <Details event={e} />
                  </td>
                </tr>
              );
            })}
          </DividedBody>
        </FramedTable>
      )}
      {page?.nextCursor && (
        <Link href={`/audit?${next.toString()}`} className="inline-block text-sm text-sky-700 dark:text-sky-300 hover:underline">
          Older events →
        </Link>
      )}
    </section>
  );
}
