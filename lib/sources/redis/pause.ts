import { setTimeout as delay } from "node:timers/promises";

/** Resolves after `ms`, or at once when `signal` aborts; never rejects (callers check the signal). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}
