import type { BatchStatus } from "./batch-schemas";

// The batch life cycle in one table: draft → approved (by a different supervisor) → running ⇄ paused →
// completed | cancelled | failed. Pure and client-safe: the server enforces it inside the state-change
// transaction, the UI uses it to decide which buttons to show.

export const BATCH_ACTIONS = ["approve", "start", "pause", "resume", "cancel"] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

const TRANSITIONS: Record<BatchAction, { from: readonly BatchStatus[]; to: BatchStatus }> = {
  approve: { from: ["draft"], to: "approved" },
  start: { from: ["approved"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  cancel: { from: ["draft", "approved", "running", "paused"], to: "cancelled" },
};

/** Permission each action needs (approve also needs a different person than the creator: four-eyes). */
export const ACTION_PERMISSION: Record<BatchAction, "replays:manage" | "replays:approve"> = {
  approve: "replays:approve",
  start: "replays:manage",
  pause: "replays:manage",
  resume: "replays:manage",
  cancel: "replays:manage",
};

export const FINISHED_BATCH_STATUSES: readonly BatchStatus[] = ["completed", "cancelled", "failed"];

/** The status after `action`, or null when the action is not allowed from `status`. */
export function nextStatus(status: BatchStatus, action: BatchAction): BatchStatus | null {
  const t = TRANSITIONS[action];
  return t.from.includes(status) ? t.to : null;
}

/** The statuses an action may start from (for messages: "pause needs a running batch"). */
export function allowedFrom(action: BatchAction): readonly BatchStatus[] {
  return TRANSITIONS[action].from;
}

/**
 * Whether the creator alone may approve a batch of `total` records under the admin's limit (0: never, four eyes
 * for every batch). The server decides this in the approving transaction; the UI asks it to show the button.
 */
export function singleApproverAllowed(total: number, limit: number): boolean {
  return limit > 0 && total > 0 && total <= limit;
}

/** Actions to offer a user: allowed from the status, permitted to the role, and not approving one's own batch (unless `selfApprove`). */
export function availableActions(
  status: BatchStatus,
  opts: { canManage: boolean; canApprove: boolean; isCreator: boolean; selfApprove?: boolean },
): BatchAction[] {
  return BATCH_ACTIONS.filter((a) => {
    if (nextStatus(status, a) === null) return false;
    if (a === "approve") return opts.canApprove && (!opts.isCreator || opts.selfApprove === true);
    return opts.canManage;
  });
}

const DONE: Record<BatchAction, string> = {
  approve: "approved",
  start: "started",
  pause: "paused",
  resume: "resumed",
  cancel: "cancelled",
};

/** What a supervisor reads after an action succeeded, as a sentence: "Batch 1 cancelled." */
export function actionToast(id: string, action: BatchAction): string {
  return `Batch ${id} ${DONE[action]}.`;
}
