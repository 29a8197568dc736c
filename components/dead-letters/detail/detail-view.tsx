"use client";

import { DecidedByRuleNote } from "@/components/rules/decided-by-rule";
import { useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { ClassBadge, KindBadge, StatusBadge } from "@/components/dead-letters/badges";
import { KeyboardHelp, DETAIL_KEYS } from "@/components/dead-letters/keyboard-help";
import {
  conflictChangedBy,
  conflictCurrent,
  deadLetterKeys,
  useDeadLetter,
  useDeadLetterAction,
  useNeighbor,
  repairPreviewQuery,
  useRepairPreview,
} from "@/components/dead-letters/use-dead-letter-queries";
import { useHotkeys } from "@/components/dead-letters/use-hotkeys";
import { useHydrated } from "@/components/dead-letters/use-hydrated";
import { Button, Kbd } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { rememberOpened } from "@/components/dead-letters/list-position";
import { filterFromParams, filterKey } from "@/lib/dead-letters/filter-url";
import { filterListHref, listReturn, recordHref } from "@/lib/dead-letters/query/record-return";
import type { ActionBody } from "@/lib/dead-letters/contract/decision";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { decide, type TriageAction } from "@/lib/dead-letters/decisions";
import { ConflictDialog, type Conflict } from "./conflict-dialog";
import { DecisionBar } from "./decision-bar";
import { FailedAgainNotice } from "./failed-again-notice";
import { ExplainPanel } from "./explain-panel";
import { NotesPanel } from "@/components/notes/notes-panel";
import { loadMapsPanel } from "./load-maps-panel";
import { OriginPanel } from "./origin-panel";
import { RevealFields } from "@/components/forensics/reveal-fields";
import { PayloadTabs } from "./payload-tabs";
import { ReasonDialog } from "./quarantine-dialog";
import { RepairAckDialog } from "./repair-ack-dialog";
import { RepairChoice, type RepairSetting } from "./repair-choice";
import { isFeaturePayload } from "@/lib/spatial/feature-payload";
import type { RepairPreview } from "@/lib/dead-letters/contract/repair-preview";

// The maps pull in MapLibre and the editor CodeMirror: both load with the parts of the page that show them.
const MapsPanel = dynamic(loadMapsPanel, {
  ssr: false,
  loading: () => (
    <div
      className="h-[21rem] animate-pulse rounded border border-slate-200 dark:border-slate-700 bg-slate-100 dark:bg-slate-800"
      aria-label="Loading maps"
    />
  ),
});
const EditPanel = dynamic(() => import("./edit-panel").then((m) => m.EditPanel), {
  ssr: false,
  loading: () => (
    <div className="h-96 animate-pulse rounded border border-slate-200 dark:border-slate-700 bg-slate-100 dark:bg-slate-800" />
  ),
});

export interface Permissions {
  triage: boolean;
  overrideIdentity: boolean;
  /** dead_letters:unmask: reveal one masked field at a time, audited (the timeline page offers the same) */
  reveal: boolean;
  /** notes:write: add a note to the record's thread (every reader sees it) */
  notes?: boolean;
}

/** What was masked for this reader: the served record says so (maskDetail), a record read otherwise does not. */
const maskedPathsOf = (record: DeadLetterDetail): string[] =>
  "maskedPaths" in record && Array.isArray(record.maskedPaths) ? record.maskedPaths.filter((p) => typeof p === "string") : [];

/** How long a record opened from another one (j, k, the advance after a decision) is shown before a decision key acts. */
const SETTLE_MS = 400;
/**
 * The record a record page just opened (next, previous) and when; read by that record's page, which may be a new
 * component instance: a module variable outlives the navigation. By id, so a navigation that went elsewhere
 * (Escape to the list meanwhile) arms nothing.
 */
let openedFromRecord: { id: string; at: number } | null = null;

export function DetailView({
  initial,
  renderedAt,
  permissions,
}: {
  initial: DeadLetterDetail;
  renderedAt: number;
  permissions: Permissions;
}) {
  const router = useRouter();
  const qc = useQueryClient();
  const params = useSearchParams();
  const filter = useMemo(() => filterFromParams(params).filter, [params]);
  // Opened from a failure group's page, or a list with chosen columns: that list is the way back (record-return.ts).
  const back = listReturn(params.get("back"));
  const listHref = back?.href ?? filterListHref(filter);
  const record = useDeadLetter(initial.id, initial, renderedAt).data ?? initial;
  // The list highlights this record when the analyst goes back to it (j/k may have moved on from the row opened).
  const listKey = filterKey(filter);
  useEffect(() => rememberOpened(listKey, record.id), [listKey, record.id]);
  const next = useNeighbor(filter, record.cursor, "next");
  const prev = useNeighbor(filter, record.cursor, "prev");
  const mutation = useDeadLetterAction(record.id);
  const [dialog, setDialog] = useState<"quarantine" | "help" | null>(null);
  // The version an edit started from (null: not editing), and a counter that restarts the editor's draft.
  const [editBase, setEditBase] = useState<DeadLetterDetail | null>(null);
  const [draftRun, setDraftRun] = useState(0);
  const editing = editBase !== null;
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const hydrated = useHydrated();
  // The repair an approval pins: the source's default until the analyst picks another; an approved record's own;
  // a replayed record's, the one its latest replay was sent with (what was sent stays on the record).
  const sourceDefault: RepairSetting | null = record.analysis ? { method: record.analysis.method, policy: record.analysis.policy } : null;
  const [picked, setPicked] = useState<{ id: string; setting: RepairSetting } | null>(null);
  const replayed = record.status === "replayed" ? (record.lastReplay ?? null) : null;
  const choice: RepairSetting | null =
    record.kind !== "spatial" || !isFeaturePayload(record.payload) || !sourceDefault
      ? null
      : replayed?.repair
        ? { method: replayed.repair.method, policy: replayed.repair.policy }
        : record.approvedRepair
          ? { method: record.approvedRepair.method, policy: record.approvedRepair.policy }
          : picked?.id === record.id
            ? picked.setting
            : sourceDefault;
  const preview = useRepairPreview(record.id, record.version, choice);
  // Once replayed, the right map holds the geometry sent (kept on the replay item), not a new repair of the payload.
  const sentGeometry = replayed?.geometry ?? null;
  const shown = useMemo(() => {
    const base = preview.data ? { ...record, analysis: preview.data.analysis, repairedGeometry: preview.data.geometry } : record;
    return sentGeometry !== null ? { ...base, repairedGeometry: sentGeometry } : base;
  }, [record, preview.data, sentGeometry]);
  const sentTitle =
    replayed && sentGeometry !== null
      ? `Sent in batch #${replayed.batchId}${replayed.repair ? ` (${replayed.repair.method} / ${replayed.repair.policy})` : ""}`
      : null;
  const [ack, setAck] = useState<RepairPreview | null>(null);

  const open = (id: string | null | undefined, dir: string) => {
    if (!id) {
      toast.info(`No ${dir} record under this filter`);
      return;
    }
    openedFromRecord = { id, at: performance.now() };
    router.push(recordHref(id, filter, back?.href ?? null));
  };

  /** The neighbour's id, waiting for it when a key was pressed before its lookup came back. */
  const neighbour = async (q: typeof next): Promise<string | null> => (q.data !== undefined ? q.data : ((await q.refetch()).data ?? null));

  /** After a decision the next record opens; at the end of the list, the list. */
  const advance = async () => {
    const id = await neighbour(next);
    if (id) open(id, "next");
    else {
      toast.info("That was the last record under this filter");
      router.push(listHref);
    }
  };

  const submit = (body: ActionBody, then: () => void) => {
    mutation.mutate(body, {
      onSuccess: then,
      onError: (err) => {
        const current = conflictCurrent(err);
        if (current) {
          setConflict({ attempted: body.action, seen: record, current, changedBy: conflictChangedBy(err) });
          qc.setQueryData(deadLetterKeys.detail(record.id), current);
        }
      },
    });
  };

  // When the record on screen changed: a decision key pressed right after (a double tap on `a` that approved one
  // record and then the next one, seen for 150 ms) is ignored, so every decision is on a record the analyst saw.
  const shownAt = useRef(Number.NEGATIVE_INFINITY);
  // Before paint: the guard must hold from the moment the record can be seen (a key can arrive before effects run).
  useLayoutEffect(() => {
    const opened = openedFromRecord;
    openedFromRecord = null;
    // Opened from the list or a link (no pending open for this record): the analyst chose it.
    if (opened?.id === record.id && performance.now() - opened.at < 10_000) shownAt.current = performance.now();
  }, [record.id]);

  /** `pressedAt`: a key's event time — when it was pressed, which can be well before it is handled (a busy page). */
  const act = (action: TriageAction, pressedAt: number | null = null) => {
    if (!permissions.triage || mutation.isPending) return;
    if (pressedAt !== null && pressedAt - shownAt.current < SETTLE_MS) {
      toast.info(`Key ignored: #${record.id} had only just opened`, { description: "Press it again to decide on this record." });
      return;
    }
    const check = decide(record, action, { reason: "(asked next)" });
    if (!check.ok) {
      toast.error(`Cannot ${action} #${record.id}`, { description: check.message });
      return;
    }
    if (action === "edit") setEditBase(record);
    else if (action === "quarantine") setDialog("quarantine");
    else if (action === "approve") void approve();
    else submit({ action, version: record.version }, () => {});
  };

  /**
   * Approve with the repair shown: its digest pins what the replay sends; warnings are acknowledged first. A key
   * pressed while the preview loads waits for it (the same request), so `a` on a just-opened record still works.
   */
  const approving = useRef(false);
  const approve = async () => {
    if (!choice || !sourceDefault) {
      submit({ action: "approve", version: record.version }, () => void advance());
      return;
    }
    if (approving.current) return;
    approving.current = true;
    let previewed: RepairPreview | null;
    try {
      previewed = await qc.fetchQuery(repairPreviewQuery(record.id, record.version, choice));
    } catch {
      previewed = null;
    } finally {
      approving.current = false;
    }
    if (!previewed) {
      const isDefault = choice.method === sourceDefault.method && choice.policy === sourceDefault.policy;
      // The server pins the source's default itself; another choice is never approved unseen.
      if (isDefault) submit({ action: "approve", version: record.version }, () => void advance());
      else
        toast.error(`Could not preview the ${choice.method} / ${choice.policy} repair`, {
          description: "Try again, or approve with the source's default.",
        });
      return;
    }
    if (!previewed.digest) {
      toast.error(`Cannot approve #${record.id} with ${previewed.method} / ${previewed.policy}`, {
        description: "This repair delivers nothing: choose another method or policy.",
      });
      return;
    }
    if (previewed.warnings.length > 0) setAck(previewed);
    else approveWith(previewed);
  };
  const approveWith = (p: RepairPreview) => {
    const acknowledged = p.warnings.map((w) => w.message);
    submit(
      {
        action: "approve",
        version: record.version,
        repair: { method: p.method, policy: p.policy, digest: p.digest!, ...(acknowledged.length > 0 ? { acknowledged } : {}) },
      },
      () => void advance(),
    );
  };

  useHotkeys(
    {
      j: () => void neighbour(next).then((id) => open(id, "next")),
      k: () => void neighbour(prev).then((id) => open(id, "previous")),
      a: (e) => !e.repeat && act("approve", e.timeStamp),
      q: (e) => !e.repeat && act("quarantine", e.timeStamp),
      r: (e) => !e.repeat && act("reopen", e.timeStamp),
      e: (e) => !e.repeat && act("edit", e.timeStamp),
      "?": () => setDialog("help"),
      Escape: () => router.push(listHref),
    },
    !editing,
  );

  return (
    <article aria-labelledby="record-heading" className="space-y-3" data-hydrated={hydrated}>
      <nav aria-label="Record navigation" className="flex items-center gap-2 text-sm">
        <Link href={listHref} className="text-slate-600 dark:text-slate-300 hover:text-slate-900 dark:hover:text-slate-100">
          {back?.label ?? "← Dead letters"}
        </Link>
        <span className="ml-auto flex items-center gap-1">
          {/* Not while editing: as j/k, they would leave the draft behind without asking. */}
          <Button
            size="sm"
            onClick={() => open(prev.data, "previous")}
            disabled={!prev.data || editing}
            title="The newer record in the list (k)"
          >
            ↑ Newer <Kbd>k</Kbd>
          </Button>
          <Button
            size="sm"
            onClick={() => open(next.data, "next")}
            disabled={!next.data || editing}
            title="The older record in the list (j)"
          >
            ↓ Older <Kbd>j</Kbd>
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setDialog("help")} aria-label="Keyboard shortcuts">
            <Kbd>?</Kbd>
          </Button>
        </span>
      </nav>
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
        <h1 id="record-heading" className="text-lg font-semibold">
          Dead letter #{record.id}
        </h1>
        <KindBadge kind={record.kind} />
        <StatusBadge status={record.status} />
        <ClassBadge failureClass={record.failureClass} title={record.classReason} />
        <span className="min-w-0 text-xs text-slate-500 dark:text-slate-400 wrap-anywhere">
          {record.source} · v{record.version} · observed{" "}
          <time dateTime={record.observedAt}>{record.observedAt.replace("T", " ").slice(0, 19)} UTC</time>
        </span>
        <span className="flex items-center font-mono text-xs text-slate-600 dark:text-slate-300" title={record.idempotencyKey ?? "no key"}>
          {record.kind === "afc" ? "hash" : "key"}{" "}
          {record.idempotencyKey ? (
            `${record.idempotencyKey.slice(0, 16)}${record.idempotencyKey.length > 16 ? "…" : ""}`
          ) : (
            <span className="text-red-600 dark:text-red-400">none</span>
          )}
          {record.idempotencyKey && <CopyButton text={record.idempotencyKey} label="Copy key" />}
        </span>
        <Link
          href={`/lookup/timeline/${record.id}`}
          className="text-xs text-sky-800 dark:text-sky-200 underline-offset-2 hover:underline"
          title="Every decision on this record — who approved, edited or quarantined it, when and why — and its replays"
        >
          Timeline →
        </Link>
        <FailedAgainNotice record={record} />
        {record.decidedBy && <DecidedByRuleNote decidedBy={record.decidedBy} status={record.status} />}
        <div className="w-full">
          <DecisionBar record={record} canTriage={permissions.triage} busy={mutation.isPending} editing={editing} onAction={act} />
        </div>
      </header>
      <div className={record.kind === "spatial" ? "grid gap-3 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]" : "space-y-3"}>
        {/* Beside the maps the origin sits under the failure; stacked (narrower), after the maps, so it never pushes them down. */}
        <div className={record.kind === "spatial" ? "contents xl:block xl:min-w-0 xl:space-y-3" : "space-y-3"}>
          <ExplainPanel
            record={shown}
            areaChangeWarn={preview.data?.areaChangeWarn}
            repairChoice={
              choice &&
              sourceDefault && (
                <RepairChoice
                  value={choice}
                  sourceDefault={sourceDefault}
                  approved={record.approvedRepair ?? null}
                  replayed={replayed}
                  editable={permissions.triage && record.status === "pending" && !editing}
                  loading={preview.isFetching}
                  onChange={(setting) => setPicked({ id: record.id, setting })}
                />
              )
            }
          />
          <NotesPanel recordId={record.id} canWrite={permissions.notes === true} />
          {record.origin !== null && <OriginPanel origin={record.origin} className="order-last xl:order-none" />}
        </div>
        {record.kind === "spatial" && (
          <MapsPanel
            key={`${record.id}:${record.version}`}
            record={shown}
            areaChangeWarn={preview.data?.areaChangeWarn}
            sentTitle={sentTitle}
          />
        )}
      </div>
      {editBase ? (
        <EditPanel
          key={draftRun}
          record={editBase}
          current={record}
          canOverrideIdentity={permissions.overrideIdentity}
          busy={mutation.isPending}
          onCancel={() => setEditBase(null)}
          onSave={(payload, extra) => submit({ action: "edit", version: editBase.version, payload, ...extra }, () => setEditBase(null))}
          onRebase={(discard) => {
            setEditBase(record);
            if (discard) setDraftRun((n) => n + 1);
          }}
        />
      ) : (
        <PayloadTabs record={record} />
      )}
      {permissions.reveal && maskedPathsOf(record).length > 0 && (
        <section aria-label="Card data" className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
          <RevealFields id={record.id} paths={maskedPathsOf(record)} canReveal />
        </section>
      )}
      <ReasonDialog
        key={`q-${record.id}-${dialog === "quarantine"}`}
        open={dialog === "quarantine"}
        title={`Quarantine #${record.id}`}
        confirmLabel="Quarantine"
        busy={mutation.isPending}
        onCancel={() => setDialog(null)}
        onConfirm={(reason) => {
          setDialog(null);
          submit({ action: "quarantine", version: record.version, reason }, () => void advance());
        }}
      />
      <RepairAckDialog
        preview={ack}
        recordId={record.id}
        busy={mutation.isPending}
        onCancel={() => setAck(null)}
        onConfirm={(p) => {
          setAck(null);
          approveWith(p);
        }}
      />
      <KeyboardHelp open={dialog === "help"} onClose={() => setDialog(null)} keys={DETAIL_KEYS} />
      <ConflictDialog conflict={conflict} onClose={() => setConflict(null)} />
    </article>
  );
}
