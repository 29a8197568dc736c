"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { KindBadge } from "@/components/dead-letters/badges";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { sourceLocations } from "@/lib/sources/registry";
import type { SourceView } from "@/lib/sources/source-schemas";
import { EditSource } from "./edit-source";
import { usePullSource, useRemoveSource, useSetSourceEnabled, useSources } from "./queries";
import { conditionOf, optionsSummary, typeLabel, utc, type SourceCondition } from "./source-text";

// The broker sources as cards: where each reads, what the last attempts found, and (admins) pull now, pause or
// resume, edit, remove. Refreshed every 5 s: workers pull in the background and move the numbers on their own.

const CONDITION_TONE: Record<SourceCondition, Tone> = { connected: "green", error: "red", paused: "amber", "never tried": "slate" };

const fmt = (n: number) => n.toLocaleString("en");

function Stat({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="tabular-nums text-slate-800 dark:text-slate-200">{children}</dd>
    </div>
  );
}

function Time({ iso }: { iso: string | null }) {
  return iso ? <time dateTime={iso}>{utc(iso)}</time> : <>never</>;
}

function SourceCard({ source, canManage, onRemove }: { source: SourceView; canManage: boolean; onRemove: () => void }) {
  const heading = useId();
  const pull = usePullSource();
  const toggle = useSetSourceEnabled();
  const { state } = source;
  const condition = conditionOf(source);
  const pulling = pull.isPending || state.pulling;
  return (
    <article
      aria-labelledby={heading}
      className="flex h-full flex-col gap-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm wrap-anywhere"
    >
      <header className="flex flex-wrap items-center gap-2">
        <h2 id={heading} className="font-semibold text-slate-900 dark:text-slate-100">
          {source.name}
        </h2>
        <Badge>{typeLabel(source.type)}</Badge>
        <KindBadge kind={source.kind} />
        <Badge tone={CONDITION_TONE[condition]}>{condition}</Badge>
        {state.pulling && <Badge tone="blue">pulling now</Badge>}
      </header>
      <p className="font-mono text-xs text-slate-600 dark:text-slate-300">{source.url}</p>
      <p className="text-xs text-slate-600 dark:text-slate-300">{optionsSummary(source.type, source.options).join(" · ")}</p>
      <dl className="grid grid-cols-2 gap-x-3 gap-y-1.5 md:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_minmax(0,1fr)_minmax(0,1.6fr)]">
        <Stat term="Waiting in the broker">
          {state.waiting === null ? "unknown" : fmt(state.waiting)}
          {state.waitingAt && (
            <span className="block text-xs text-slate-500 dark:text-slate-400">
              as of <Time iso={state.waitingAt} />
            </span>
          )}
        </Stat>
        <Stat term="Pulled today (UTC)">{fmt(state.pulledToday)}</Stat>
        <Stat term="Last pull">
          <Time iso={state.lastPullAt} />
        </Stat>
        <Stat term="In total">
          <span title="every message pulled · stored as new records · already stored · unreadable (stored as poison)">
            {fmt(state.totals.pulled)} pulled · {fmt(state.totals.created)} new · {fmt(state.totals.duplicates)} already stored
            {state.totals.unreadable > 0 && ` · ${fmt(state.totals.unreadable)} unreadable`}
          </span>
        </Stat>
      </dl>
      {state.lastError !== null && (
        <p className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 px-2 py-1 text-xs text-red-800 dark:text-red-200">
          <span className="font-medium">
            Last error
            {state.lastErrorAt && (
              <>
                {" "}
                at <Time iso={state.lastErrorAt} />
              </>
            )}
            :
          </span>{" "}
          {state.lastError}
        </p>
      )}
      {source.enabled && state.failures > 0 && state.nextAttemptAt && (
        <p className="text-xs text-amber-800 dark:text-amber-200">
          Backing off after {fmt(state.failures)} failed {state.failures === 1 ? "attempt" : "attempts"} in a row: next attempt not before{" "}
          <Time iso={state.nextAttemptAt} />.
        </p>
      )}
      <div className="mt-auto flex flex-wrap items-center gap-2 pt-1">
        <Link
          href={`/dead-letters?origin=${encodeURIComponent(source.name)}`}
          className="text-sky-800 dark:text-sky-200 underline-offset-2 hover:underline"
          title={`The dead-letter list filtered to what was pulled from ${source.name}`}
        >
          Records →
        </Link>
        {canManage && (
          <span className="ml-auto flex flex-wrap gap-2">
            <Button size="sm" variant="primary" disabled={pulling} onClick={() => pull.mutate(source.name)}>
              {pulling ? "Pulling…" : "Pull now"}
            </Button>
            <Button size="sm" disabled={toggle.isPending} onClick={() => toggle.mutate({ name: source.name, enabled: !source.enabled })}>
              {source.enabled ? "Pause" : "Resume"}
            </Button>
            <EditSource source={source} />
            <Button size="sm" variant="danger" onClick={onRemove}>
              Remove
            </Button>
          </span>
        )}
      </div>
    </article>
  );
}

export function SourceList({ initial, renderedAt, canManage }: { initial: SourceView[]; renderedAt: number; canManage: boolean }) {
  const { data: sources = [], error } = useSources(initial, renderedAt);
  const remove = useRemoveSource();
  const [removing, setRemoving] = useState<string | null>(null);
  return (
    <>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Could not refresh the sources: {error.message}
        </p>
      )}
      {sources.length === 0 ? (
        <EmptyNotice>
          No broker sources yet.{" "}
          {canManage
            ? `“Add source” connects ${sourceLocations()} whose dead letters Redrive should pull.`
            : "An admin adds them; they will show here with what waits in each broker."}
        </EmptyNotice>
      ) : (
        <ul aria-label="Sources" className="grid gap-3 2xl:grid-cols-2">
          {sources.map((s) => (
            <li key={s.name}>
              <SourceCard source={s} canManage={canManage} onRemove={() => setRemoving(s.name)} />
            </li>
          ))}
        </ul>
      )}
      <Dialog open={removing !== null} onClose={() => setRemoving(null)} title={`Remove source ${removing ?? ""}?`}>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Redrive stops pulling from it and removes what it created on the broker (its Redis consumer, its NATS advisory stream). The
          records already pulled stay, with their origin, but cannot go back to origin until a source of this name exists again.
        </p>
        <div className="flex justify-end gap-2">
          <Button onClick={() => setRemoving(null)}>Keep it</Button>
          <Button
            variant="danger"
            disabled={remove.isPending}
            onClick={() => {
              if (removing) remove.mutate(removing);
              setRemoving(null);
            }}
          >
            Remove source
          </Button>
        </div>
      </Dialog>
    </>
  );
}
