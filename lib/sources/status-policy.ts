import type { SourceState } from "./source-schemas";

// GET /api/sources/{name}/status: every read role may call it, and each question to the broker is a login there
// (a wrong password, a failed login in the broker's log). Only someone who manages sources makes it ask, and
// not while the source backs off after failures; everyone else reads the state the pullers keep up to date.

/** Whether this status request asks the broker now rather than answering from the recorded state. */
export function statusAsksBroker(mayManage: boolean, state: Pick<SourceState, "nextAttemptAt">, now: Date): boolean {
  if (!mayManage) return false;
  return state.nextAttemptAt === null || new Date(state.nextAttemptAt).getTime() <= now.getTime();
}
