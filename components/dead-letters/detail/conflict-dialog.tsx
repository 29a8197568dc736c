"use client";

import Link from "next/link";
import { useMemo } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { payloadChanges } from "@/lib/dead-letters/query/payload-diff";
import type { ChangedBy } from "@/lib/dead-letters/contract/decision";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { ChangeList } from "./change-list";

// A decision answered 409: someone else changed the record since it was loaded. Nothing was overwritten; this
// shows what changed between the version the analyst saw and the current one, so they can decide again.

export interface Conflict {
  attempted: string;
  /** what the analyst decided on: the record's page (with its payload), or a list row (without one) */
  seen: Pick<DeadLetterDetail, "id" | "status" | "failureClass" | "version"> & Partial<Pick<DeadLetterDetail, "updatedAt" | "payload">>;
  current: DeadLetterDetail;
  /** who made the latest change, when the server could tell */
  changedBy?: ChangedBy | null;
}

/** "ana@… (supervisor), dead_letter.approved at 12:01:05 UTC", or "someone" when the server could not tell. */
function whoChanged(by: ChangedBy | null | undefined): string {
  if (!by) return "someone";
  const who = by.email ?? "the system";
  return `${who}${by.role ? ` (${by.role})` : ""} — ${by.action.replace(/^dead_letter\./, "")} at ${by.at.replace("T", " ").slice(0, 19)} UTC —`;
}

function Field({ name, before, after }: { name: string; before: string; after: string }) {
  const changed = before !== after;
  return (
    <tr className={changed ? "bg-amber-50 dark:bg-amber-950/40" : undefined}>
      <th scope="row" className="py-1 pr-3 text-left text-xs font-medium text-slate-500 dark:text-slate-400">
        {name}
      </th>
      <td className="py-1 pr-3 text-sm">{before}</td>
      <td className={`py-1 text-sm ${changed ? "font-semibold text-amber-900 dark:text-amber-100" : ""}`}>{after}</td>
    </tr>
  );
}

export function ConflictDialog({
  conflict,
  onClose,
  closeLabel = "Show the current version",
}: {
  conflict: Conflict | null;
  onClose: () => void;
  closeLabel?: string;
}) {
  const diff = useMemo(
    () => (conflict && conflict.seen.payload !== undefined ? payloadChanges(conflict.seen.payload, conflict.current.payload) : null),
    [conflict],
  );
  if (!conflict) return null;
  const { seen, current } = conflict;
  return (
    <Dialog open onClose={onClose} title={`#${current.id} changed while you were looking at it`} wide>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Your <strong>{conflict.attempted}</strong> was not applied: {whoChanged(conflict.changedBy)} saved version {current.version} after
        you loaded version {seen.version}. Nothing was overwritten.
      </p>
      <table className="w-full">
        <thead>
          <tr className="text-left text-xs text-slate-500 dark:text-slate-400">
            <th />
            <th className="font-medium">You saw</th>
            <th className="font-medium">Now</th>
          </tr>
        </thead>
        <tbody>
          <Field name="Status" before={seen.status} after={current.status} />
          <Field name="Class" before={seen.failureClass} after={current.failureClass} />
          <Field name="Version" before={String(seen.version)} after={String(current.version)} />
          {seen.updatedAt !== undefined && (
            <Field
              name="Updated"
              before={seen.updatedAt.replace("T", " ").slice(0, 19)}
              after={current.updatedAt.replace("T", " ").slice(0, 19)}
            />
          )}
        </tbody>
      </table>
      <div>
        <h3 className="mb-1 text-xs font-semibold text-slate-700 dark:text-slate-300">Payload changes</h3>
        {diff ? (
          <ChangeList changes={diff.changes} truncated={diff.truncated} empty="The payload did not change." />
        ) : (
          <p className="text-sm text-slate-500 dark:text-slate-400">
            The list does not load payloads, so it cannot show how this one changed:{" "}
            <Link href={`/dead-letters/${current.id}`} className="text-sky-700 dark:text-sky-300 underline">
              open #{current.id}
            </Link>{" "}
            to see it.
          </p>
        )}
      </div>
      <div className="flex justify-end">
        <Button variant="primary" onClick={onClose} autoFocus>
          {closeLabel}
        </Button>
      </div>
    </Dialog>
  );
}
