// Which database errors mean "try again in a moment" (the server restarted, a connection dropped, a deadlock
// victim) rather than "this is a bug". Workers ride out the first kind — a PostgreSQL restart must not fail a
// batch — and stop a batch on the second.

const TRANSIENT_CODES = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "55P03", // lock_not_available
  "53300", // too_many_connections
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up / shutting down)
  "08000",
  "08001",
  "08003",
  "08004",
  "08006", // connection exceptions
]);

const TRANSIENT_MESSAGES =
  /Connection terminated|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|database system is (starting up|shutting down|in recovery mode)|terminating connection/i;

export function isTransientDbError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e && typeof e.code === "string" && TRANSIENT_CODES.has(e.code)) return true;
  return typeof e?.message === "string" && TRANSIENT_MESSAGES.test(e.message);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
