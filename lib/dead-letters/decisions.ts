// The triage state machine: which decision may be taken on a record in which status, and what it leads to.
// Pure and client-safe: the server checks it under the row lock (apply-action.ts, bulk-action.ts), the UI uses the same
// table to show only the buttons that will work.
//
//   pending      ──approve──▶ approved ──(replay engine)──▶ replayed
//      │  ▲                     │  │
//      │  └──────reopen─────────┘  │
//      └──quarantine──▶ quarantined ◀──quarantine
//                          │
//                          └──reopen──▶ pending
//   replayed, purged: no triage decision applies (the ledger / retention own them). A replayed record is not
//   settled for good, though: when its key arrives again (its consumer rejected it again), the store step sends it
//   back to pending, or to quarantine when that failure makes it poison (lib/dead-letters/store/repeat-failure.ts).
//
// Edit is allowed wherever a decision is still open (pending, approved, quarantined). Editing an approved
// record sends it back to pending: the approval covered the payload the analyst saw, not the new one.
//
// Poison: a record whose failure class is poison cannot be approved. Poison is recomputed when the payload is
// edited (spatial: key present, Feature, geometry usable; AFC: identity intact and the tap passes the schema),
// so an analyst who edits a poison record into validity can then approve it — the edit itself is the human
// intervention the class asks for, and it is audited. A spatial record without an idempotency key stays
// poison forever: the key is fixed at ingest and nothing could deduplicate its replay.

import type { DeadLetterKind, DeadLetterStatus, FailureClass } from "../vocabulary/record";

export const TRIAGE_ACTIONS = ["approve", "edit", "quarantine", "reopen"] as const;
export type TriageAction = (typeof TRIAGE_ACTIONS)[number];

/** Target status of each action from each status; absent = not allowed. */
const TRANSITIONS: Record<DeadLetterStatus, Partial<Record<TriageAction, DeadLetterStatus>>> = {
  pending: { approve: "approved", quarantine: "quarantined", edit: "pending" },
  approved: { reopen: "pending", quarantine: "quarantined", edit: "pending" },
  quarantined: { reopen: "pending", edit: "quarantined" },
  replayed: {},
  purged: {},
};

export const MAX_REASON_LENGTH = 1000;

export interface TriageSubject {
  status: DeadLetterStatus;
  failureClass: FailureClass;
  classReason: string | null;
}

export type Refusal = {
  ok: false;
  /** `conflict`: the record's current state forbids it (may change); `validation_failed`: the input is wrong */
  code: "conflict" | "validation_failed";
  /** the field the refusal is about, for the API's issues list */
  field: "action" | "reason";
  message: string;
};

export type Decision = { ok: true; next: DeadLetterStatus } | Refusal;

/** The actions that are possible from a status (ignoring poison, which only blocks approve). */
export function actionsFrom(status: DeadLetterStatus): TriageAction[] {
  return TRIAGE_ACTIONS.filter((a) => TRANSITIONS[status][a] !== undefined);
}

/** Why approve is impossible on this record right now, or null when it is possible. */
export function approveBlocker(subject: TriageSubject): string | null {
  if (subject.failureClass !== "poison") return null;
  const why = subject.classReason ? ` (${subject.classReason})` : "";
  return `poison records cannot be approved${why}: edit the payload into validity first, or quarantine it`;
}

/**
 * Poison that came from delivery — the replay gave up because the sink kept failing (recordEffect's "gave up
 * after N attempts: …") — says nothing against the record itself. A person who reopens or releases it takes it
 * back to its kind's transient class, so it can be approved and replayed again (it would otherwise stay
 * unapprovable with a payload nothing needs to change in). Poison about the record (no key, irreparable,
 * unparseable, replayed too often) stays.
 */
/** The reason an item becomes poison when the replay gives up on it; reopenedClass recognises it. */
export function gaveUpReason(attempts: number, lastError: string): string {
  return `gave up after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${lastError}`;
}
const GAVE_UP = /^gave up after \d+ attempts?: /;

export function reopenedClass(
  kind: DeadLetterKind,
  subject: Pick<TriageSubject, "failureClass" | "classReason">,
): { failureClass: FailureClass; classReason: string } | null {
  if (subject.failureClass !== "poison" || !subject.classReason || !GAVE_UP.test(subject.classReason)) return null;
  return {
    failureClass: kind === "afc" ? "transient_schema" : "transient",
    classReason: `reopened after the replay ${subject.classReason}`,
  };
}

/** Decides one action on one record. `reason` is required for quarantine and trimmed by the caller's schema. */
export function decide(subject: TriageSubject, action: TriageAction, input: { reason?: string | null } = {}): Decision {
  const next = TRANSITIONS[subject.status][action];
  if (next === undefined) {
    const allowed = actionsFrom(subject.status);
    return {
      ok: false,
      code: "conflict",
      field: "action",
      message: `cannot ${action} ${/^[aeiou]/.test(subject.status) ? "an" : "a"} ${subject.status} record (allowed: ${allowed.length ? allowed.join(", ") : "none — it is final"})`,
    };
  }
  if (action === "approve") {
    const blocker = approveBlocker(subject);
    if (blocker) return { ok: false, code: "conflict", field: "action", message: blocker };
  }
  if (action === "quarantine") {
    const reason = input.reason?.trim() ?? "";
    if (reason === "") return { ok: false, code: "validation_failed", field: "reason", message: "a reason is required to quarantine" };
    if (reason.length > MAX_REASON_LENGTH) {
      return { ok: false, code: "validation_failed", field: "reason", message: `must be at most ${MAX_REASON_LENGTH} characters` };
    }
  }
  return { ok: true, next };
}

/** What the UI offers: each action with whether it is possible and, when not, why. */
export function availableActions(subject: TriageSubject): { action: TriageAction; enabled: boolean; why: string | null }[] {
  return TRIAGE_ACTIONS.map((action) => {
    const d = decide(subject, action, { reason: "(checked later)" });
    return { action, enabled: d.ok, why: d.ok ? null : d.message };
  });
}

/** Past-tense audit verb per action (dead_letter.approved, …). */
export const AUDIT_ACTION: Record<TriageAction, string> = {
  approve: "dead_letter.approved",
  edit: "dead_letter.edited",
  quarantine: "dead_letter.quarantined",
  reopen: "dead_letter.reopened",
};
