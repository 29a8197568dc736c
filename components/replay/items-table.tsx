"use client";

import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ColumnHeaders, DividedBody, FramedTable, type Column } from "@/components/ui/table";
import { sendsOf } from "@/lib/replay/batch/send-count";
import { ITEM_STATUSES, type ItemStatus, type ItemView } from "@/lib/replay/batch/batch-schemas";
import { ItemStatusBadge } from "./badges";
import { formatTime } from "./format";
import { useItems } from "./queries";

const COLUMNS: (string | Column)[] = [
  { label: "#", align: "right" },
  "Record",
  "Key",
  "Entity",
  "Observed",
  "Outcome",
  { label: "Sends", align: "right", title: "How many times the record was sent to the sink" },
  "Error",
];

/** An item's last error: red while it decides the outcome; after a retry that succeeded, muted and labelled. */
function ItemError({ item }: { item: ItemView }) {
  if (!item.lastError) return <td className="px-3 py-1.5" />;
  const settled = item.status === "applied" || item.status === "deduped";
  return (
    <td
      className={`max-w-md truncate px-3 py-1.5 text-xs ${settled ? "text-slate-500 dark:text-slate-400" : "text-red-700 dark:text-red-300"}`}
      title={item.lastError}
    >
      {settled ? `earlier send: ${item.lastError}` : item.lastError}
    </td>
  );
}

/** The batch's items in replay order with their outcome and last error; filter by outcome, keyset paging. */
export function ItemsTable({ id, live }: { id: string; live: boolean }) {
  const [status, setStatus] = useState<ItemStatus | null>(null);
  const [cursors, setCursors] = useState<number[]>([0]);
  const cursor = cursors.at(-1) ?? 0;
  const { data, error, isFetching } = useItems(id, status, cursor, live);
  const choose = (s: ItemStatus | null) => {
    setStatus(s);
    setCursors([0]);
  };
  return (
    <section aria-labelledby="items-heading" className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="items-heading" className="text-sm font-semibold">
          Items
        </h2>
        <label className="text-xs text-slate-600 dark:text-slate-300">
          Outcome{" "}
          <select
            className="rounded border border-slate-300 dark:border-slate-600 px-1 py-0.5 text-xs"
            value={status ?? ""}
            onChange={(e) => choose((e.target.value || null) as ItemStatus | null)}
          >
            <option value="">all</option>
            {ITEM_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {isFetching && <span className="text-xs text-slate-500 dark:text-slate-400">refreshing…</span>}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Could not load items: {error.message}
        </p>
      )}
      <FramedTable
        after={
          data &&
          data.items.length === 0 && (
            <p className="p-4 text-center text-sm text-slate-500 dark:text-slate-400">No items{status ? ` with outcome ${status}` : ""}.</p>
          )
        }
      >
        <ColumnHeaders columns={COLUMNS} />
        <DividedBody>
          {(data?.items ?? []).map((i) => (
            <tr key={i.id}>
              <td className="px-3 py-1.5 text-right tabular-nums text-slate-500 dark:text-slate-400">{i.seq}</td>
              <td className="px-3 py-1.5">
                <Link href={`/dead-letters/${i.deadLetterId}`} className="underline-offset-2 hover:underline">
                  {i.deadLetterId}
                </Link>
              </td>
              <td className="px-3 py-1.5 font-mono text-xs" title={i.idempotencyKey}>
                {i.idempotencyKey.slice(0, 16)}
              </td>
              <td className="px-3 py-1.5 text-slate-600 dark:text-slate-300">{i.entityKey ?? "—"}</td>
              <td className="whitespace-nowrap px-3 py-1.5 text-slate-600 dark:text-slate-300">
                <time dateTime={i.observedAt}>{formatTime(i.observedAt)}</time>
              </td>
              <td className="px-3 py-1.5">
                <ItemStatusBadge status={i.status} />
                {i.status === "retry" && (
                  <span className="ml-1 text-xs text-slate-500 dark:text-slate-400">at {formatTime(i.runAt).slice(11)}</span>
                )}
              </td>
              <td className="px-3 py-1.5 text-right tabular-nums">{sendsOf(i)}</td>
              <ItemError item={i} />
            </tr>
          ))}
        </DividedBody>
      </FramedTable>
      <div className="flex gap-2">
        <Button size="sm" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Previous
        </Button>
        <Button
          size="sm"
          disabled={!data?.nextCursor}
          onClick={() => data?.nextCursor && setCursors((c) => [...c, data.nextCursor as number])}
        >
          Next →
        </Button>
      </div>
    </section>
  );
}
