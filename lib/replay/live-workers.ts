// Shared by the engine (which sweeps the leases of dead workers) and the batch views (which count live ones).

/**
 * A worker (`w`) is alive while it has beaten within two of its own leases (it beats every third of one), so a
 * slow beat is not a death. Compared on the database's clock, as the heartbeats are written. The sweeper and the
 * batch views (live workers) judge it the same way.
 */
export const WORKER_ALIVE = `w.heartbeat_at > now() - 2 * w.lease_ms * interval '1 millisecond'`;
