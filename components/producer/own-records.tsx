"use client";

import { useState } from "react";
import { ClassBadge, KindBadge, StatusBadge } from "@/components/dead-letters/badges";
import { Button } from "@/components/ui/button";
import type { OwnRecordsPage } from "@/lib/dead-letters/contract/own-records";
import { STATUSES } from "@/lib/vocabulary/record";
import { useOwnRecords } from "./queries";
import { Panel } from "@/components/ui/panel";

// What the producer's tokens sent: counts by status and reason over all of it, and its records newest first.

function Counts({ title, rows }: { title: string; rows: { value: string; count: number }[] }) {
  return (
    <div className="min-w-48 flex-1">
      <h3 className="mb-1 text-xs font-semibold text-slate-600 dark:text-slate-300">{title}</h3>
      {rows.length === 0 ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">none yet</p>
      ) : (
        <ul className="space-y-0.5 text-xs">
          {rows.map((r) => (
            <li key={r.value} className="flex justify-between gap-3">
              <span className="break-all">{r.value}</span>
              <span className="font-mono tabular-nums">{r.count.toLocaleString("en")}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function OwnRecords({ initial }: { initial: OwnRecordsPage }) {
  const [status, setStatus] = useState("");
  // the cursors of the pages before this one, to go back
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const page = useOwnRecords(status, cursor, initial);
  const data = page.data;

  return (
    <Panel
      id="own-records"
      title="Records you sent"
      description={
        <>Every record your API tokens or this sign-in sent, with what Redrive made of it. Card numbers in keys and reasons are masked.</>
      }
    >
      {data && (
        <div className="flex flex-wrap gap-6">
          <Counts title={`By status (${data.counts.total.toLocaleString("en")} in all)`} rows={data.counts.status} />
          <Counts title="By reason" rows={data.counts.reason} />
        </div>
      )}
      <div className="flex items-end gap-2">
        <label className="space-y-1 text-xs font-medium text-slate-700 dark:text-slate-300">
          <span className="block">Status</span>
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              setCursors([null]);
            }}
            className="rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-800"
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {page.error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {page.error.message}
        </p>
      )}
      {data && data.items.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">No records{status ? ` with status ${status}` : ""}.</p>
      ) : (
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Your records, newest observation first</caption>
          <thead className="text-slate-500 dark:text-slate-400">
            <tr>
              {["Id", "Kind", "Key", "Status", "Class", "Reason", "Failures", "Observed (UTC)", "Received (UTC)"].map((h) => (
                <th key={h} scope="col" className="py-1 pr-3 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data?.items.map((r) => (
              <tr key={r.id} className="border-t border-slate-100 align-top dark:border-slate-800">
                <td className="py-1 pr-3 font-mono">{r.id}</td>
                <td className="py-1 pr-3">
                  <KindBadge kind={r.kind} />
                </td>
                <td className="max-w-48 py-1 pr-3 font-mono break-all">{r.idempotencyKey ?? "—"}</td>
                <td className="py-1 pr-3">
                  <StatusBadge status={r.status} />
                </td>
                <td className="py-1 pr-3">
                  <ClassBadge failureClass={r.failureClass} />
                </td>
                <td className="py-1 pr-3 break-words">{r.reason}</td>
                <td className="py-1 pr-3 font-mono tabular-nums">{r.failureCount}</td>
                <td className="py-1 pr-3 font-mono whitespace-nowrap">{r.observedAt.slice(0, 19).replace("T", " ")}</td>
                <td className="py-1 font-mono whitespace-nowrap">{r.receivedAt.slice(0, 19).replace("T", " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="flex gap-2">
        <Button size="sm" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </Button>
        <Button size="sm" disabled={!data?.nextCursor} onClick={() => data?.nextCursor && setCursors((c) => [...c, data.nextCursor])}>
          Older
        </Button>
      </div>
    </Panel>
  );
}
