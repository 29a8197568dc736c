"use client";

import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { fetchJson } from "@/lib/api/client";

// The masked fields of a record, each with "Reveal" for auditors: one POST per field, audited on the server
// as dead_letter.field_revealed. The value is shown here and nowhere else, and is gone on reload.

export function RevealFields({ id, paths, canReveal }: { id: string; paths: string[]; canReveal: boolean }) {
  const [values, setValues] = useState<Record<string, string>>({});
  if (paths.length === 0) return null;
  const reveal = async (path: string) => {
    try {
      const r = await fetchJson<{ path: string; value: unknown }>(`/api/dead-letters/${id}/reveal`, { method: "POST", body: { path } });
      setValues((v) => ({ ...v, [path]: JSON.stringify(r.value) }));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <div className="space-y-1 text-sm">
      <p className="text-xs text-slate-600 dark:text-slate-300">
        {paths.length} masked field{paths.length === 1 ? "" : "s"} (card data){canReveal ? ": revealing one is audited" : ""}
      </p>
      <ul className="space-y-0.5">
        {paths.map((p) => (
          <li key={p} className="flex items-center gap-2">
            <code className="text-xs">{p}</code>
            {values[p] !== undefined ? (
              <code
                aria-label={`value of ${p}`}
                className="rounded bg-amber-50 dark:bg-amber-950/40 px-1 text-xs text-amber-900 dark:text-amber-100"
              >
                {values[p]}
              </code>
            ) : canReveal ? (
              <Button size="sm" onClick={() => void reveal(p)} aria-label={`Reveal ${p}`}>
                Reveal
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
