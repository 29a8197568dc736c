"use client";

import { useMemo, useState } from "react";
import { JsonView } from "@/components/ui/json-view";
import { formatJson } from "@/lib/json/format";
import { payloadChanges } from "@/lib/dead-letters/query/payload-diff";
import { receivedPayload } from "@/lib/dead-letters/query/received-payload";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { ChangeList } from "./change-list";
import { History } from "./history";

// The evidence: the envelope exactly as received (never edited: a database trigger guards it), the working
// payload, what differs between the two, and every failure attempt.

const TABS = ["Raw envelope", "Current payload", "Changes since received", "Failure history"] as const;
type Tab = (typeof TABS)[number];

export function PayloadTabs({ record }: { record: DeadLetterDetail }) {
  const [tab, setTab] = useState<Tab>("Raw envelope");
  const received = useMemo(() => receivedPayload(record.kind, record.rawEnvelope), [record.kind, record.rawEnvelope]);
  const diff = useMemo(() => (received.ok ? payloadChanges(received.value, record.payload) : null), [received, record.payload]);
  const current = useMemo(() => formatJson(record.payload), [record.payload]);
  return (
    <section aria-label="Payload" className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
      <div role="tablist" aria-label="Payload views" className="flex gap-1 border-b border-slate-200 dark:border-slate-700 px-2 pt-2">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            onClick={() => setTab(t)}
            className={`rounded-t px-3 py-1.5 text-xs font-medium ${tab === t ? "border border-b-white dark:border-b-slate-900 border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 text-slate-900 dark:text-slate-100 -mb-px" : "text-slate-500 dark:text-slate-400 hover:text-slate-800 dark:hover:text-slate-200"}`}
          >
            {t}
            {t === "Changes since received" && diff ? ` (${diff.changes.length}${diff.truncated ? "+" : ""})` : ""}
            {t === "Failure history" ? ` (${record.failures.length})` : ""}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab} className="p-3">
        {tab === "Raw envelope" &&
          (record.rawEnvelope === null ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">
              The raw envelope was removed {record.status === "purged" ? "when the record was purged" : "by retention"}; its timeline keeps
              who did it and when.
            </p>
          ) : (
            <>
              <p className="mb-2 text-xs text-slate-500 dark:text-slate-400">
                Exactly as the producer sent it ({record.rawEnvelope.length.toLocaleString("en")} characters). It never changes.
              </p>
              <JsonView text={record.rawEnvelope} label="Raw envelope" />
            </>
          ))}
        {tab === "Current payload" && <JsonView text={current} label="Current payload" />}
        {tab === "Changes since received" &&
          (diff ? (
            <ChangeList changes={diff.changes} truncated={diff.truncated} empty="The payload is exactly as received." />
          ) : (
            <p className="text-sm text-slate-500 dark:text-slate-400">{!received.ok && received.reason}</p>
          ))}
        {tab === "Failure history" && <History failures={record.failures} />}
      </div>
    </section>
  );
}
