"use client";

import { useDeadLetter } from "../use-dead-letter-queries";
import { DetailView, type Permissions } from "./detail-view";

/**
 * A heavy record's page (past 256 KB stored: a 1,000,000-vertex polygon kept as poison). The server does not
 * inline it in the page, which would serialize megabytes on the thread that answers every request; the browser
 * asks the API for it, which builds the answer on a worker thread.
 */
export function HeavyDetailView({ id, storedBytes, permissions }: { id: string; storedBytes: number; permissions: Permissions }) {
  const { data, error, dataUpdatedAt } = useDeadLetter(id);
  if (data) return <DetailView key={data.id} initial={data} renderedAt={dataUpdatedAt} permissions={permissions} />;
  const size = `${(storedBytes / 1024 / 1024).toFixed(1)} MB stored`;
  if (error)
    return (
      <p
        role="alert"
        className="m-6 rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-3 text-sm text-red-800 dark:text-red-200"
      >
        Dead letter #{id} ({size}) could not be loaded: {error.message}
      </p>
    );
  return (
    <p role="status" className="m-6 text-sm text-slate-600 dark:text-slate-300">
      Loading dead letter #{id}, a large record ({size})…
    </p>
  );
}
