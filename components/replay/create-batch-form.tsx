"use client";

import { useRouter } from "next/navigation";
import { Suspense, use, useState } from "react";
import { Button } from "@/components/ui/button";
import { REPAIR_METHODS, REPAIR_POLICIES, type BatchPreview, type CreateBatchRequest } from "@/lib/replay/batch/batch-schemas";
import { CreateBatchBody, repairConflicts } from "@/lib/replay/batch/batch-schemas";
import { isUnpaced } from "@/lib/replay/pacing/gcra";
import { fmt, formatDuration, formatTime } from "./format";
import { HttpError } from "@/lib/api/client";
import { defaultSink, previewForSink, sinkChoices, sinkHelp, type SinkType } from "./preview-for-sink";
import { sinkPlug } from "@/lib/replay/sinks/registry";
import { initialSinkInputs, sinkBodyOf } from "./sink-form";
import { field, SinkFields } from "./sink-fields";
import { useCreateBatch } from "./queries";
import { DestinationsList } from "./destinations-list";

// /replays/new: what will be replayed (count, order, spread) and how long it takes at the chosen rate, then
// the batch's settings. Creating makes a draft; another supervisor approves it on the batch's page.

export type SelectionInput = { ids: string[] } | { filter: Record<string, string | string[]> };

type TapFailures = { failing: number; checked: number; complete: boolean };

function TapFailureNotice({ result }: { result: Promise<TapFailures | null> }) {
  const taps = use(result);
  if (!taps || taps.failing === 0) return null;
  return (
    <p role="status" data-testid="tap-failures" className="text-amber-800 dark:text-amber-200">
      {taps.complete ? fmt(taps.failing) : `At least ${fmt(taps.failing)}`} of these AFC taps still fail the tap schema
      {taps.complete ? "" : ` (of the first ${fmt(taps.checked)} checked)`}: the replay will drop them. Edit them first, or leave them out.
    </p>
  );
}

export function CreateBatchForm({
  selection,
  preview,
  tapFailures,
}: {
  selection: SelectionInput;
  preview: BatchPreview;
  /** AFC taps in the batch that still fail their schema: the replay will drop them (lib/replay/batch/create-batch.ts) */
  /** streamed: validating thousands of taps takes a second or two, the rest of the page need not wait */
  tapFailures?: Promise<TapFailures | null>;
}) {
  const router = useRouter();
  const create = useCreateBatch();
  const [sinkType, setSinkType] = useState<SinkType>(() => defaultSink(selection));
  // The origin sink leaves out the records without an origin: its count and the reasons follow the sink.
  const { count, leftOut } = previewForSink(preview, sinkType);
  // Every sink's settings, kept while another sink is chosen (switching back finds them as typed).
  const [sinkInputs, setSinkInputs] = useState(() => initialSinkInputs());
  const setSinkInput = (key: string, value: string) => setSinkInputs((inputs) => ({ ...inputs, [key]: value }));
  const [rate, setRate] = useState("50");
  const [pageSize, setPageSize] = useState("100");
  const [maxReplays, setMaxReplays] = useState("3");
  const [maxAttempts, setMaxAttempts] = useState("5");
  const [threshold, setThreshold] = useState("50");
  const [method, setMethod] = useState<(typeof REPAIR_METHODS)[number]>("linework");
  const [policy, setPolicy] = useState<(typeof REPAIR_POLICIES)[number]>("accept");
  // Records approved with another repair keep theirs unless the supervisor explicitly overrides (audited).
  const [override, setOverride] = useState(false);
  const conflicts = repairConflicts(preview.pinnedRepairs, { method, policy });
  const overriding = override && conflicts > 0;
  // Problems are shown once the user tried to create, and follow the fields from then on (a fixed field's
  // message goes away as it is fixed, not at the next click).
  const [attempted, setAttempted] = useState(false);

  const rateN = Number(rate);
  const rateOk = rate.trim() !== "" && Number.isFinite(rateN) && rateN > 0;
  const seconds = rateOk ? count / rateN : null;
  const plug = sinkPlug(sinkType);
  const sinkBody = sinkBodyOf(plug, sinkInputs);
  const body: CreateBatchRequest = {
    ...selection,
    // Checked whole by CreateBatchBody below: each sink's schema names what its fields got wrong.
    sink: sinkBody.sink as CreateBatchRequest["sink"],
    ratePerSecond: rateN,
    pageSize: Number(pageSize),
    maxReplays: Number(maxReplays),
    maxAttempts: Number(maxAttempts),
    failureThreshold: Number(threshold) / 100,
    repair: { method, policy, ...(overriding ? { override: true, confirmedConflicts: conflicts } : {}) },
    expectedCount: count,
  };

  const checked = CreateBatchBody.safeParse(body);
  const problems = [...sinkBody.problems, ...(checked.success ? [] : checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`))];
  const issues = attempted ? problems : [];

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setAttempted(true);
    if (problems.length > 0) return;
    create.mutate(body, {
      onSuccess: (batch) => router.push(`/replays/${batch.id}`),
      // The selection changed since this preview was read (records approved or batched meanwhile): read it again.
      onError: (err) => {
        if (err instanceof HttpError && err.status === 409) router.refresh();
      },
    });
  }

  return (
    <form onSubmit={submit} className="grid gap-4 lg:grid-cols-[1fr_1fr]">
      <section
        aria-labelledby="sel-heading"
        className="space-y-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm"
      >
        <h2 id="sel-heading" className="font-semibold">
          What will be replayed
        </h2>
        <p data-testid="preview-count">
          <strong>{fmt(preview.count)}</strong> approved records ({fmt(preview.byKind.spatial)} spatial, {fmt(preview.byKind.afc)} AFC),{" "}
          {fmt(preview.entities)} entities.
        </p>
        {count === 0 ? (
          <p role="status" className="text-amber-800 dark:text-amber-200">
            {preview.count === 0
              ? "Nothing to replay: no record in this selection is approved and free to replay."
              : "Nothing to replay back to origin: none of these records was pulled from a broker source."}
          </p>
        ) : (
          <>
            <p>
              Order: oldest observation first ({formatTime(preview.firstObservedAt)} → {formatTime(preview.lastObservedAt)}); per entity
              strictly one after another.
            </p>
            <p data-testid="estimate">
              {!rateOk ? (
                "Set a rate to see how long it takes."
              ) : isUnpaced(rateN, Number(pageSize) || 100) ? (
                <>
                  At {fmt(rateN)}/s the rate does not hold the batch back: it goes as fast as the workers and the sink take it (the rate is
                  only a ceiling).
                </>
              ) : (
                <>
                  At {fmt(rateN)}/s: about <strong>{formatDuration(seconds)}</strong> (more if the sink slows the batch down or items are
                  retried).
                </>
              )}
            </p>
          </>
        )}
        {tapFailures && (
          <Suspense fallback={<p className="text-xs text-slate-500 dark:text-slate-400">Checking the AFC taps against the tap schema…</p>}>
            <TapFailureNotice result={tapFailures} />
          </Suspense>
        )}
        {leftOut.length > 0 && <p className="text-amber-800 dark:text-amber-200">Left out: {leftOut.join(", ")}.</p>}
        {plug.needsOrigin && (preview.destinations?.length ?? 0) > 0 && (
          <DestinationsList destinations={preview.destinations ?? []} caption="Where they go back to" />
        )}
        {preview.sample.length > 0 && (
          <ol className="list-decimal pl-5 font-mono text-xs text-slate-600 dark:text-slate-300">
            {preview.sample.map((s) => (
              <li key={s.id}>
                {formatTime(s.observedAt)} · {s.kind} · {s.entityKey ?? "—"} · {s.idempotencyKey.slice(0, 16)}
              </li>
            ))}
          </ol>
        )}
      </section>

      <section
        aria-labelledby="cfg-heading"
        className="space-y-3 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm"
      >
        <h2 id="cfg-heading" className="font-semibold">
          Settings
        </h2>
        <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
          <legend className="mb-1 text-xs text-slate-500 dark:text-slate-400">Sink</legend>
          {sinkChoices().map(({ type, label }) => (
            <label key={type}>
              <input
                type="radio"
                name="sink"
                checked={sinkType === type}
                onChange={() => setSinkType(type as SinkType)}
                aria-describedby={sinkType === type ? "sink-help" : undefined}
              />{" "}
              {label}
            </label>
          ))}
        </fieldset>
        <p id="sink-help" data-testid="sink-help" className="text-xs text-slate-500 dark:text-slate-400">
          {sinkHelp(sinkType)}
        </p>
        <SinkFields plug={plug} inputs={sinkInputs} onInput={setSinkInput} afcTaps={preview.byKind.afc} />
        <div className="grid gap-2 sm:grid-cols-3">
          <label>
            Rate (records/s){" "}
            <input
              className={field}
              type="number"
              min={0.01}
              step="any"
              required
              value={rate}
              onChange={(e) => setRate(e.target.value)}
              aria-invalid={!rateOk}
              aria-describedby={rateOk ? undefined : "rate-problem"}
            />
            {!rateOk && (
              <span id="rate-problem" className="text-xs text-red-700 dark:text-red-300">
                a number of records per second above 0
              </span>
            )}
          </label>
          <label>
            Page size{" "}
            <input className={field} type="number" min={1} max={1000} value={pageSize} onChange={(e) => setPageSize(e.target.value)} />
          </label>
          <label>
            Pause above (% failures){" "}
            <input
              className={field}
              type="number"
              min={1}
              max={100}
              value={threshold}
              onChange={(e) => setThreshold(e.target.value)}
              aria-describedby="threshold-help"
            />
            <span id="threshold-help" className="text-xs text-slate-500 dark:text-slate-400">
              share of the last 100 submitted items whose latest attempt failed (429/503 too), from 20 answered
            </span>
          </label>
          <label>
            Max replays per record{" "}
            <input className={field} type="number" min={1} value={maxReplays} onChange={(e) => setMaxReplays(e.target.value)} />
          </label>
          <label>
            Max attempts per item{" "}
            <input className={field} type="number" min={1} value={maxAttempts} onChange={(e) => setMaxAttempts(e.target.value)} />
          </label>
        </div>
        <div className="grid gap-2 sm:grid-cols-2">
          <label>
            Repair method{" "}
            <select className={field} value={method} onChange={(e) => setMethod(e.target.value as typeof method)}>
              {REPAIR_METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <label>
            Repair policy{" "}
            <select className={field} value={policy} onChange={(e) => setPolicy(e.target.value as typeof policy)}>
              {REPAIR_POLICIES.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </label>
        </div>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          Each record is replayed with the repair it was approved with; this setting applies to records approved without one.
        </p>
        {conflicts > 0 && (
          <div
            role="alert"
            aria-label="Approved repairs"
            className="space-y-1 rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 p-2 text-amber-900 dark:text-amber-100"
          >
            <p data-testid="repair-conflicts">
              {fmt(conflicts)} {conflicts === 1 ? "record was" : "records were"} approved with another repair: {method} / {policy} would
              replay {conflicts === 1 ? "it" : "them"} differently from what the analyst approved. They keep their approved repair unless
              you override.
            </p>
            <label className="flex items-start gap-2">
              <input type="checkbox" checked={override} onChange={(e) => setOverride(e.target.checked)} className="mt-0.5" />
              <span>
                Override: replay {conflicts === 1 ? "it" : `these ${fmt(conflicts)}`} with {method} / {policy} instead (recorded in the
                audit log)
              </span>
            </label>
          </div>
        )}
        {issues.length > 0 && (
          <ul role="alert" className="list-disc pl-5 text-red-700 dark:text-red-300">
            {issues.map((i) => (
              <li key={i}>{i}</li>
            ))}
          </ul>
        )}
        <Button type="submit" variant="primary" disabled={create.isPending || count === 0}>
          {create.isPending ? "Creating…" : `Create draft batch of ${fmt(count)}`}
        </Button>
      </section>
    </form>
  );
}
