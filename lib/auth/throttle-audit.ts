import "server-only";
import type pg from "pg";
import { postgresRateLimitStore } from "./rate-limit-store";

// Sign-in attempts refused by the rate limiter (429) never reach better-auth's hooks, so lib/auth/auth.ts's
// after-hook cannot audit them. Auditing every one would turn a flood of guesses into a flood of audit events
// (each serialised on the hash chain); one event per client address per limiter window says what an auditor
// needs — this address was throttled, when — and costs at most one event per address per window, as its
// failed attempts before the limit already do.
//
// The gate is a limit of one per window in the limiter's own table, so it holds for every server on the database
// together (a gate per process audited the same flood once per server behind the load balancer), and the
// maintenance loop prunes it with the limiter's windows.

const RULE = { window: 60, max: 1 };

/** True when `address` being throttled now should be audited: the first time in a window, on any server. */
export async function admitThrottleAudit(pool: pg.Pool, address: string): Promise<boolean> {
  return (await postgresRateLimitStore(pool).consume(`throttle-audit|${address}`, RULE)).allowed;
}
