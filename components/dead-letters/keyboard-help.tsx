"use client";

import { Kbd } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

export const DETAIL_KEYS: [string, string][] = [
  ["j", "next record (older)"],
  ["k", "previous record (newer)"],
  ["a", "approve, then open the next record"],
  ["q", "quarantine (asks for a reason), then open the next record"],
  ["r", "reopen (back to pending)"],
  ["e", "edit the payload"],
  ["Esc", "back to the list; while editing, leave the editor (asks first if you changed something)"],
  ["?", "show these keys"],
];

export const LIST_KEYS: [string, string][] = [
  ["j / k", "move down / up the list"],
  ["Enter or o", "open the highlighted record"],
  ["x", "select or unselect the highlighted record"],
  ["a", "approve the highlighted record (stays on the list)"],
  ["q", "quarantine the highlighted record (asks for a reason)"],
  ["/", "search by key (or its first characters), event, device or feature id, or payload values (words, key:value, path = value)"],
  ["?", "show these keys"],
];

export function KeyboardHelp({ open, onClose, keys }: { open: boolean; onClose: () => void; keys: [string, string][] }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts">
      <dl className="grid grid-cols-[6rem_1fr] gap-y-1.5 text-sm">
        {keys.map(([k, what]) => (
          <div key={k} className="contents">
            <dt>
              {k.split(" ").map((part, i) =>
                part === "/" || part === "or" ? (
                  <span key={i} className="mx-1 text-xs text-slate-500 dark:text-slate-400">
                    {part}
                  </span>
                ) : (
                  <Kbd key={i}>{part}</Kbd>
                ),
              )}
            </dt>
            <dd className="text-slate-700 dark:text-slate-300">{what}</dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-500 dark:text-slate-400">Keys do nothing while you type in a field or the editor.</p>
      <div className="text-right">
        <button type="button" className="text-sm text-slate-700 dark:text-slate-300 underline" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
