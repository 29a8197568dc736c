import type { Metadata } from "next";
import { CreateBatchForm, type SelectionInput } from "@/components/replay/create-batch-form";
import { AppError } from "@/lib/errors/app-error";
import { searchParamsToObject } from "@/lib/net/search-params";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { isBigintId } from "@/lib/db/column-limits";
import { ListFilterSchema } from "@/lib/dead-letters/filters";
import { eligibleIds, freshenReplayStatistics, previewBatch, tapSchemaFailures } from "@/lib/replay/batch/create-batch";
import type { Selection } from "@/lib/replay/batch/batch-schemas";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "New replay batch" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function toParams(sp: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const one of Array.isArray(v) ? v : v ? [v] : []) params.append(k, one);
  return params;
}

function Problem({ children }: { children: React.ReactNode }) {
  return (
    <p
      role="alert"
      className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-3 text-sm text-red-800 dark:text-red-200"
    >
      {children}
    </p>
  );
}

/** /replays/new?ids=1,2,3 or /replays/new?status=approved&kind=afc… (the dead-letter list's filters). */
export default async function NewReplayPage({ searchParams }: { searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("replays:manage");
  const raw = searchParamsToObject(toParams(await searchParams));
  let selection: Selection;
  let input: SelectionInput;
  if (raw.ids !== undefined) {
    const ids = (Array.isArray(raw.ids) ? raw.ids : raw.ids.split(",")).map((s) => s.trim()).filter(Boolean);
    if (ids.length === 0 || !ids.every(isBigintId)) return <Problem>ids: expected record ids separated by commas.</Problem>;
    selection = { ids, scope: principal.scope };
    input = { ids };
  } else {
    const { cursor: _c, limit: _l, order: _o, ...filterRaw } = raw;
    const parsed = ListFilterSchema.safeParse(filterRaw);
    if (!parsed.success)
      return <Problem>Invalid filter: {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}</Problem>;
    selection = { filter: parsed.data, scope: principal.scope };
    // Only the filter's own keys go on to POST /api/replays, which refuses unknown ones (the list's URL may
    // carry others, e.g. the open record).
    input = { filter: Object.fromEntries(Object.entries(filterRaw).filter(([k]) => k in ListFilterSchema.shape)) };
  }
  let preview;
  // Streamed to the form (Suspense): the count, order and estimate show without waiting for thousands of taps
  // to be validated. A failure only leaves the notice out.
  await freshenReplayStatistics(getDb().pool);
  const taps = tapSchemaFailures(getDb().pool, selection).catch(() => null);
  try {
    // The sample's entity keys come masked (previewBatch); the rest of it through the last pass, as an answer.
    preview = forReader(await previewBatch(getDb().pool, selection));
    // The preview leaves out what cannot be replayed; the form submits the same (the API would refuse the rest).
    if ("ids" in input) input = { ids: await eligibleIds(getDb().pool, principal.scope, input.ids) };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return <Problem>{err.message}</Problem>;
    throw err;
  }
  return (
    <section aria-labelledby="new-heading" className="space-y-3">
      <h1 id="new-heading" className="text-lg font-semibold">
        New replay batch
      </h1>
      <CreateBatchForm selection={input} preview={preview} tapFailures={taps} />
    </section>
  );
}
