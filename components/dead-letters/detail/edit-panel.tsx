"use client";

import type { Diagnostic } from "@codemirror/lint";
import dynamic from "next/dynamic";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { checkDraft } from "@/lib/dead-letters/triage/check-draft";
import { formatJson } from "@/lib/json/format";
import { locateMembers, rangeOf } from "@/lib/json/paths";
import { payloadChanges } from "@/lib/dead-letters/query/payload-diff";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import type { JsonValue } from "@/lib/json/value";
import { readDisplayGeometry } from "@/lib/spatial/display";
import { formatCoordinatesInText } from "@/lib/spatial/format-coordinate";
import type { Geometry } from "@/lib/spatial/geojson";
import { ChangeList } from "./change-list";
import { JsonEditor } from "./json-editor";

// Editing the working payload: CodeMirror checks it against the record's schema as you type; spatial records
// can also be edited on the map, with validity and its reason updating live. Saving sends the payload with
// the version it was based on; the server re-validates (GEOS) and the raw envelope is never touched.

const GeometryEditor = dynamic(() => import("./geometry-editor").then((m) => m.GeometryEditor), { ssr: false });

export interface SaveExtra {
  reason?: string;
  overrideIdentity?: boolean;
}

/**
 * `record`: the version the draft started from, which a save names (so a save never overwrites a change it did
 * not see); `current`: the record as it is now. When someone else saved in between (`current` is newer, learnt
 * from a refetch or a 409), saving waits until the analyst says what the draft is based on: `onRebase(false)`
 * keeps the draft on the current version (its "Your changes" then list what it takes back of theirs),
 * `onRebase(true)` discards it and starts from the current version. Before, the draft quietly became "based
 * on" the newer version after a conflict, and the next Save undid the other person's change.
 */
export function EditPanel({
  record,
  current,
  canOverrideIdentity,
  busy,
  onCancel,
  onSave,
  onRebase,
}: {
  record: DeadLetterDetail;
  current: DeadLetterDetail;
  canOverrideIdentity: boolean;
  busy: boolean;
  onCancel: () => void;
  onSave: (payload: JsonValue, extra: SaveExtra) => void;
  onRebase: (discard: boolean) => void;
}) {
  const [text, setText] = useState(() => formatJson(record.payload));
  const [override, setOverride] = useState(false);
  const [reason, setReason] = useState("");
  const check = useMemo(
    () => checkDraft(record.kind, record.payload, text, { key: record.idempotencyKey, override }),
    [record, text, override],
  );
  const changes = useMemo(
    () => (check.value === null ? null : payloadChanges(record.payload, check.value, 50)),
    [record.payload, check.value],
  );
  const geometry = useMemo(() => {
    if (record.kind !== "spatial" || check.value === null) return null;
    const g = readDisplayGeometry(check.value);
    return g.ok ? g.geometry : null;
  }, [record.kind, check.value]);

  const lint = useCallback(
    (doc: string): Diagnostic[] => {
      const result = checkDraft(record.kind, record.payload, doc, { key: record.idempotencyKey, override });
      const members = locateMembers(doc);
      return result.findings.map((f) => ({ ...rangeOf(members, f.path, doc.length), severity: f.severity, message: f.message }));
    },
    [record.kind, record.payload, record.idempotencyKey, override],
  );

  const onGeometry = useCallback((g: Geometry) => {
    setText((prev) => {
      try {
        const feature = JSON.parse(prev) as Record<string, unknown>;
        return formatJson({ ...feature, geometry: g });
      } catch {
        return prev;
      }
    });
  }, []);

  // Opened below the maps: bring the panel into view (the editor takes the focus itself).
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    panel.current?.scrollIntoView({ block: "start" });
  }, []);

  // Leaving the editor (Cancel, or Escape anywhere in the panel) asks first when the draft changes something
  // (or no longer parses): a stray Escape must not throw away a repair someone spent minutes on.
  const [discarding, setDiscarding] = useState(false);
  // `changes` is null while the draft does not parse, and empty when it parses to the record's own payload.
  const dirty = changes === null || changes.changes.length > 0;
  const leave = () => (dirty ? setDiscarding(true) : onCancel());
  const onKeyDown = (e: React.KeyboardEvent) => {
    // The editor keeps its own Escape (closing a completion or the search panel, collapsing a selection): it
    // marks those handled. A map drawing in progress is not cancelled from here either.
    if (e.key !== "Escape" || e.defaultPrevented || busy || discarding) return;
    if (e.target instanceof Element && e.target.closest(".maplibregl-map")) return;
    e.preventDefault();
    leave();
  };

  const needsReason = check.identity.length > 0 && override;
  const unchanged = changes !== null && changes.changes.length === 0;
  const stale = current.version !== record.version;
  const canSave = check.savable && !unchanged && !busy && !stale && (!needsReason || reason.trim() !== "");

  // Leaving the page (reload, closing the tab, another site) with a draft asks the browser's own question; so
  // does following a link inside the app (the header, "← Dead letters", Timeline), which does not unload the page.
  // Captured on the document, before React's root listener (Next's Link) sees the click.
  useEffect(() => {
    if (!dirty) return;
    const hold = (e: BeforeUnloadEvent) => e.preventDefault();
    const onLink = (e: MouseEvent) => {
      const link = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!link || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || link.getAttribute("target") === "_blank")
        return;
      if (window.confirm("Leave the editor? Your unsaved changes to this record will be lost.")) return;
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener("beforeunload", hold);
    document.addEventListener("click", onLink, true);
    return () => {
      window.removeEventListener("beforeunload", hold);
      document.removeEventListener("click", onLink, true);
    };
  }, [dirty]);
  const validity = check.validity;

  return (
    <section
      ref={panel}
      aria-labelledby="edit-heading"
      onKeyDown={onKeyDown}
      className="scroll-mt-2 space-y-3 rounded border border-sky-200 dark:border-sky-800 bg-white dark:bg-slate-900 p-3"
    >
      <div className="flex items-center gap-2">
        <h2 id="edit-heading" className="text-sm font-semibold">
          Edit payload
        </h2>
        <span className="text-xs text-slate-500 dark:text-slate-400">
          based on version {record.version}; the raw envelope stays as received · <kbd className="font-mono">Esc</kbd> leaves the editor
        </span>
      </div>
      {stale && (
        <div
          role="alert"
          className="space-y-2 rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 p-2 text-sm text-amber-900 dark:text-amber-100"
        >
          <p>
            Someone saved version {current.version} while you were editing version {record.version}. Saving waits until you choose: keep
            your draft on version {current.version} (then check &ldquo;Your changes&rdquo;: whatever of theirs your draft does not have is
            listed as yours to undo), or start again from version {current.version}.
          </p>
          <div className="flex gap-2">
            <Button size="sm" onClick={() => onRebase(false)}>
              Keep my draft on version {current.version}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => onRebase(true)}>
              Discard my draft, edit version {current.version}
            </Button>
          </div>
        </div>
      )}
      <div className={record.kind === "spatial" ? "grid gap-3 lg:grid-cols-2" : ""}>
        <JsonEditor value={text} onChange={setText} check={lint} label="Payload JSON" autoFocus />
        {record.kind === "spatial" &&
          (geometry ? (
            <GeometryEditor geometry={geometry} location={validity?.location ?? null} onChange={onGeometry} />
          ) : (
            <p className="grid place-items-center rounded border border-dashed border-slate-300 dark:border-slate-600 p-4 text-xs text-slate-500 dark:text-slate-400">
              No drawable geometry in the draft: fix it in the JSON.
            </p>
          ))}
      </div>
      <div role="status" aria-live="polite" className="text-sm">
        {validity &&
          (validity.valid ? (
            <p className="text-emerald-800 dark:text-emerald-200">✓ Valid geometry</p>
          ) : (
            <p className="text-amber-800 dark:text-amber-200">✗ {formatCoordinatesInText(validity.reason ?? "")}</p>
          ))}
        {/* Errors block saving; warnings (a tap still failing its schema) save, and are listed too, not only
            underlined in the editor, so one kind of problem never hides the other (the geometry's is the line above). */}
        {check.findings
          .filter((f) => f.severity === "error")
          .map((f) => (
            <p key={`e:${f.path}:${f.message}`} className="text-red-700 dark:text-red-300">
              {f.path ? <code className="text-xs">{f.path}</code> : null}
              {f.path ? ": " : ""}
              {f.message}
            </p>
          ))}
        {check.findings
          .filter((f) => f.severity === "warning" && f.path !== "geometry")
          .map((f) => (
            <p key={`w:${f.path}:${f.message}`} className="text-amber-800 dark:text-amber-200">
              {f.path ? <code className="text-xs">{f.path}</code> : null}
              {f.path ? ": " : ""}
              {f.message}
            </p>
          ))}
      </div>
      {check.identity.length > 0 &&
        (canOverrideIdentity ? (
          <fieldset className="space-y-2 rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 p-2">
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={override} onChange={(e) => setOverride(e.target.checked)} />
              Override the identity rule (supervisor): change {check.identity.join(", ")} and keep the stored key
            </label>
            {override && (
              <div>
                <label htmlFor="override-reason" className="block text-xs font-medium text-slate-700 dark:text-slate-300">
                  Why (required, audited)
                </label>
                <input
                  id="override-reason"
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  className="w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm"
                />
              </div>
            )}
          </fieldset>
        ) : (
          <p className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-2 text-sm text-red-800 dark:text-red-200">
            Changing {check.identity.join(", ")} makes this a different tap. Only a supervisor can override that; undo the change to save.
          </p>
        ))}
      {changes && (
        <details open className="text-sm">
          <summary className="cursor-pointer text-xs font-medium text-slate-600 dark:text-slate-300">
            Your changes ({changes.changes.length}
            {changes.truncated ? "+" : ""})
          </summary>
          <ChangeList changes={changes.changes} truncated={changes.truncated} empty="No changes yet." />
        </details>
      )}
      <div className="flex justify-end gap-2">
        <Button onClick={leave}>Cancel</Button>
        <Button
          variant="primary"
          disabled={!canSave}
          onClick={() => check.value !== null && onSave(check.value, needsReason ? { overrideIdentity: true, reason: reason.trim() } : {})}
        >
          {busy ? "Saving…" : "Save"}
        </Button>
      </div>
      <Dialog open={discarding} onClose={() => setDiscarding(false)} title="Discard your changes?">
        <p className="text-sm text-slate-700 dark:text-slate-300">
          The payload you edited is not saved. Discarding keeps #{record.id} as it is.
        </p>
        <div className="flex justify-end gap-2">
          <Button onClick={() => setDiscarding(false)}>Keep editing</Button>
          <Button
            variant="danger"
            onClick={() => {
              setDiscarding(false);
              onCancel();
            }}
          >
            Discard
          </Button>
        </div>
      </Dialog>
    </section>
  );
}
