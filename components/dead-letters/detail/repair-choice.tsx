"use client";

import type { ApprovedRepair, RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import { REPAIR_METHODS, REPAIR_POLICIES } from "@/lib/vocabulary/record";

// The repair an approval of this record will pin, chosen where it is reviewed: it starts at the source's default
// (what the record was analysed with), the explanation and the maps follow the choice, and Approve sends it with
// the digest of what the analyst saw. An approved record shows the repair it was approved with.

export interface RepairSetting {
  method: RepairMethod;
  policy: RepairPolicy;
}

const select =
  "rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-1.5 py-0.5 text-sm disabled:bg-slate-100 dark:disabled:bg-slate-800";

export function RepairChoice({
  value,
  sourceDefault,
  approved,
  editable,
  loading,
  onChange,
}: {
  value: RepairSetting;
  sourceDefault: RepairSetting;
  /** the pin of an approved record */
  approved: ApprovedRepair | null;
  editable: boolean;
  loading: boolean;
  onChange: (next: RepairSetting) => void;
}) {
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
