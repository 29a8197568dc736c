import "server-only";
import { after } from "next/server";
import type pg from "pg";
import { runBulkJob } from "../dead-letters/triage/bulk-jobs";

/**
 * Runs a job after the response went out (Next's after(): the server keeps the work alive past the request).
 * Failures are recorded on the job by runBulkJob and logged; nothing is thrown at the request.
 */
export function runInBackground(pool: pg.Pool, id: string): void {
  after(() =>
    runBulkJob(pool, id, { now: () => new Date() }).then(
      () => undefined,
      () => undefined,
    ),
  );
}
