"use client";

import { baseVersionOf, diffRuleVersions } from "@/lib/rules/rule-diff";
import type { RuleView } from "@/lib/rules/rule-schemas";
import { useRule } from "./queries";

// The approval view's "what changed": the version waiting for approval against the last approved one (or the one
// before it), field by field, so the second supervisor reviews the change and not only the whole rule again.

const shown = (v: string | null) => (v === null ? <span className="italic text-slate-500 dark:text-slate-400">not set</span> : v);

export function VersionChanges({ rule }: { rule: RuleView }) {
  const full = useRule(rule.id, true);
  const versions = full.data?.versions;
  if (full.isError) return <p className="text-xs text-red-700 dark:text-red-300">{full.error.message}</p>;
  if (!versions) return <p className="text-xs text-slate-500 dark:text-slate-400">Reading the earlier versions…</p>;
  const target = versions.find((v) => v.version === rule.version);
  const base = baseVersionOf(versions, rule.version);
  if (!target || !base) return null;
  const changes = diffRuleVersions(base, target);
  return (
    <section aria-label={`Changes in v${rule.version}`} className="rounded border border-slate-200 p-2 dark:border-slate-700">
      <h3 className="text-xs font-semibold">
        What v{rule.version} changes from v{base.version} ({base.approvedAt ? "the last approved" : "the previous version"})
      </h3>
      {changes.length === 0 ? (
        <p className="text-xs text-slate-600 dark:text-slate-300">Nothing in its match, action or standing replay.</p>
      ) : (
        <table className="mt-1 text-xs" data-testid="version-changes">
          <thead className="text-left text-slate-500 dark:text-slate-400">
            <tr>
              <th className="py-0.5 pr-3 font-medium">Field</th>
              <th className="pr-3 font-medium">v{base.version}</th>
              <th className="font-medium">v{rule.version}</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.field} className="border-t border-slate-100 align-top dark:border-slate-800">
                <th scope="row" className="py-0.5 pr-3 text-left font-mono font-normal">
                  {c.field}
                </th>
                <td className="pr-3 wrap-anywhere text-red-800 dark:text-red-300">{shown(c.before)}</td>
                <td className="wrap-anywhere text-green-800 dark:text-green-300">{shown(c.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
