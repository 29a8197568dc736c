// Runs once when the Next.js server starts (https://nextjs.org/docs/app/guides/instrumentation).

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Ingest's normalization threads take about a second to load; start them now, idle and unreferenced, so the
  // first bulk POST /api/dead-letters after a restart does not wait for them.
  const { sharedNormalizePool } = await import("@/lib/dead-letters/ingest/normalize-pool");
  sharedNormalizePool()?.warm();
}
