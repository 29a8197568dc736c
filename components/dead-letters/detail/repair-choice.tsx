"use client";

import Link from "next/link";
import type { ApprovedRepair, RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import type { LastReplay } from "@/lib/dead-letters/contract/detail";
import { replayedTo } from "@/lib/replay/sinks/registry";
import { REPAIR_METHODS, REPAIR_POLICIES } from "@/lib/vocabulary/record";

// The repair an approval of this record will pin, chosen where it is reviewed: it starts at the source's default
// (what the record was analysed with), the explanation and the maps follow the choice, and Approve sends it with
// the digest of what the analyst saw. An approved record shows the repair it was approved with; a replayed one the
// batch and the repair it was sent with (kept on its replay item), never the source's default again.

export interface RepairSetting {
  method: RepairMethod;
  policy: RepairPolicy;
}

const select =
  "rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-1.5 py-0.5 text-sm disabled:bg-slate-100 dark:disabled:bg-slate-800";

/** "Replayed in batch #7 with structure / accept" and where the settings came from, with the warnings acknowledged. */
export function ReplayedWith({ replay, approved }: { replay: LastReplay; approved: ApprovedRepair | null }) {
  const repair = replay.repair;
  const from = repair
    ? repair.from === "approval"
      ? "the repair it was approved with"
      : "the batch's repair (approved without one)"
    : approved
      ? `approved with ${approved.method} / ${approved.policy}`
      : null;
  const acknowledged = repair?.acknowledged ?? (repair ? [] : (approved?.acknowledged ?? []));
  return (
    <p className="mb-1 text-sm" data-testid="replayed-repair">
      Replayed in{" "}
      <Link href={`/replays/${replay.batchId}`} className="text-sky-800 dark:text-sky-200 underline-offset-2 hover:underline">
        batch #{replay.batchId}
      </Link>
      {repair ? (
        <>
          {" "}
          with <strong>{repair.method}</strong> / <strong>{repair.policy}</strong>
        </>
      ) : null}{" "}
      to {replayedTo(replay.sink)} ({replay.outcome}){from ? ` — ${from}` : ""}
      {acknowledged.length > 0 ? `; acknowledged: ${acknowledged.join("; ")}` : ""}.{" "}
      {replay.geometry !== null
        ? "The map shows the geometry sent."
        : replay.geometryOmitted
          ? "The geometry sent is too large to show here."
          : ""}
    </p>
  );
}

export function RepairChoice({
  value,
  sourceDefault,
  approved,
  replayed = null,
  editable,
  loading,
  onChange,
}: {
  value: RepairSetting;
  sourceDefault: RepairSetting;
  /** the pin of an approved (or replayed) record */
  approved: ApprovedRepair | null;
  /** a replayed record's latest replay: what was sent replaces any choice */
  replayed?: LastReplay | null;
  editable: boolean;
  loading: boolean;
  onChange: (next: RepairSetting) => void;
}) {
  if (replayed) return <ReplayedWith replay={replayed} approved={approved} />;
  if (approved) {
    return (
      <p className="mb-1 text-sm" data-testid="approved-repair">
        Approved with <strong>{approved.method}</strong> / <strong>{approved.policy}</strong>: the replay sends this result (digest{" "}
        <code className="text-xs">{approved.digest.slice(0, 12)}…</code>) and nothing else.
      </p>
    );
  }
  const isDefault = value.method === sourceDefault.method && value.policy === sourceDefault.policy;
  return (
    <div className="mb-1 flex flex-wrap items-center gap-2 text-sm" aria-busy={loading}>
      <span className="text-xs font-medium text-slate-600 dark:text-slate-300">Repair to approve:</span>
      <label className="flex items-center gap-1">
        <span className="text-xs text-slate-500 dark:text-slate-400">Method</span>
        <select
          aria-label="Repair method"
          className={select}
          value={value.method}
          disabled={!editable}
          onChange={(e) => onChange({ ...value, method: e.target.value as RepairMethod })}
        >
          {REPAIR_METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1">
        <span className="text-xs text-slate-500 dark:text-slate-400">Policy</span>
        <select
          aria-label="Repair policy"
          className={select}
          value={value.policy}
          disabled={!editable}
          onChange={(e) => onChange({ ...value, policy: e.target.value as RepairPolicy })}
        >
          {REPAIR_POLICIES.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <span className="text-xs text-slate-500 dark:text-slate-400">
        {isDefault ? "(the source's default)" : `(the source's default is ${sourceDefault.method} / ${sourceDefault.policy})`}
        {loading ? " — previewing…" : ""}
      </span>
    </div>
  );
}
