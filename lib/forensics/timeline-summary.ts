import { settledBy } from "../replay/sinks/registry";
import type { TimelineEvent } from "./forensics-schemas";

// One line per timeline event, in words an investigator reads aloud on a call ("Approved by ana@… (supervisor):
// fixed fare type"). Pure and client-safe; the structured before/after/diff stay on the event for detail.

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);

function who(e: TimelineEvent): string {
  if (!e.actor.email) return "";
  return e.actor.role ? ` by ${e.actor.email} (${e.actor.role})` : ` by ${e.actor.email}`;
}

const withReason = (text: string, reason: string | null) => (reason ? `${text}: ${reason}` : text);

function countChanges(diff: unknown): number {
  if (typeof diff !== "object" || diff === null) return 0;
  if (Array.isArray(diff)) return 1;
  return Object.entries(diff).reduce((n, [k, v]) => (k === "_t" ? n : n + Math.max(1, countChanges(v))), 0);
}

const DECISIONS: Record<string, string> = {
  "dead_letter.approved": "Approved",
  "dead_letter.quarantined": "Quarantined",
  "dead_letter.reopened": "Reopened for triage",
  "dead_letter.released": "Released from quarantine to triage",
};

/** " (class poison: why); geometry repaired" of an ingest event's `after`. */
function classAndRepair(a: unknown): string {
  const cls = str(field(a, "failureClass"));
  const why = str(field(a, "classReason"));
  const outcome = str(field(field(a, "analysis"), "outcome"));
  const repaired = outcome === "repaired" ? "; geometry repaired" : outcome === "dropped" ? "; geometry unusable" : "";
  return `${cls ? ` (class ${cls}${why ? `: ${why}` : ""})` : ""}${repaired}`;
}

/** Past tenses the regular rule gets wrong ("canceled": the product writes "cancelled" everywhere else). */
const PAST: Record<string, string> = { cancel: "cancelled" };

/** What the timeline knows of the record beyond its events: the broker source it was pulled from. */
export interface RecordContext {
  originSource: string | null;
}

export function summarize(e: TimelineEvent, targetId: string | null, record?: RecordContext): string {
  const a = e.after;
  switch (e.action) {
    case "dead_letter.ingested":
    case "dead_letter.pulled":
    case "dead_letter.captured": {
      const source = str(field(a, "source"));
      const broker = record?.originSource;
      if (e.action === "dead_letter.pulled")
        // The envelope's source (the producer's name) is not the broker source the record came through.
        return (
          `Pulled from ${broker ? `the broker source ${broker}` : "a broker"}${source && source !== broker ? ` (source ${source})` : ""}` +
          `${who(e)}: ${str(field(a, "failureReason")) ?? "no reason"}${classAndRepair(a)}`
        );
      const verb = e.action === "dead_letter.captured" ? "Captured at the AFC boundary" : "Received";
      return `${verb}${source ? ` from ${source}` : ""}${who(e)}: ${str(field(a, "failureReason")) ?? "no reason"}${classAndRepair(a)}`;
    }
    case "dead_letter.failure_recorded":
      return (
        `Failed again (failure #${str(field(a, "failureCount")) ?? "?"}): ${str(field(a, "reason")) ?? "no reason"}` +
        `${field(a, "failureClass") === "poison" && field(e.before, "failureClass") !== "poison" ? " — now poison" : ""}`
      );
    case "dead_letter.failed_after_replay": {
      const batch = str(field(a, "replayBatchId"));
      const back = field(a, "status") === "quarantined" ? " — now poison, in quarantine" : " — back in triage";
      return (
        `Failed again after replay${batch ? ` in batch #${batch}` : ""} (failure #${str(field(a, "failureCount")) ?? "?"})${who(e)}: ` +
        `${str(field(a, "reason")) ?? "no reason"}${back}`
      );
    }
    case "dead_letter.key_sent_by_other":
      return `The same key was also sent${who(e) || " by another sender"}: ${str(field(a, "reason")) ?? "no reason"} — the record was left as it is`;
    case "dead_letter.edited": {
      const n = countChanges(e.diff);
      const before = str(field(e.before, "outcome"));
      const after = str(field(a, "outcome"));
      const repair = after && after !== before ? `; geometry ${after}` : "";
      return withReason(`Edited${who(e)}: ${n} change${n === 1 ? "" : "s"}${repair}`, e.reason);
    }
    case "dead_letter.identity_overridden":
      return withReason(`Identity fields overridden${who(e)}`, e.reason);
    case "dead_letter.purged":
      return withReason(`Purged${who(e)}: payload and raw envelope removed`, e.reason);
    case "dead_letter.retention_applied":
      return `Payload removed by retention (${str(field(a, "retentionDays")) ?? "?"} days after settlement)`;
    case "dead_letter.archived":
      return `Moved to the archive (${str(field(a, "archiveAfterDays")) ?? "?"} days after settlement): identity, key and timeline kept`;
    case "dead_letter.unarchived": {
      const at = str(field(e.before, "archivedAt"));
      return `Back from the archive${at ? ` (archived ${at.slice(0, 10)})` : ""}: its key arrived again after its replay`;
    }
    case "dead_letter.archived_key_received":
      return withReason(
        `Its key arrived again after it was archived${who(e)}: counted as a duplicate, nothing changed`,
        str(field(a, "reason")) ?? null,
      );
    case "dead_letter.note_added":
      return `Note${who(e)}: ${str(field(a, "text")) ?? ""}`;
    case "dead_letter.field_revealed":
      return `Masked field ${str(field(a, "path")) ?? "?"} revealed${who(e)}`;
    case "ledger.settled": {
      const origin = str(field(a, "origin"));
      const batch = str(field(a, "batchId"));
      if (origin === "import") return "Settled key found in the ledger (imported from an external ledger)";
      const sink = origin === null ? null : settledBy(origin);
      return `Settled in the ledger${batch ? ` by replay batch ${batch}` : ""}${sink ? ` (${sink})` : ""}`;
    }
  }
  if (DECISIONS[e.action]) return withReason(`${DECISIONS[e.action]}${who(e)}`, e.reason);
  if (e.action.startsWith("replay.")) {
    const outcome = e.action.slice("replay.".length);
    const batch = str(field(a, "batchId"));
    const error = str(field(a, "error"));
    const retryAt = str(field(a, "retryAt"));
    return `Replay${batch ? ` in batch ${batch}` : ""}: ${outcome}${error ? ` — ${error}` : ""}${retryAt ? ` (retry at ${retryAt})` : ""}`;
  }
  if (e.action.startsWith("replay_batch.")) {
    const verb = e.action.slice("replay_batch.".length);
    const past = PAST[verb] ?? `${verb}${verb.endsWith("e") ? "d" : verb.endsWith("ed") ? "" : "ed"}`;
    return withReason(`Replay batch ${targetId ?? "?"} ${past}${who(e)}`, e.reason);
  }
  return withReason(`${e.action}${who(e)}`, e.reason);
}

/** Outcomes a record keeps whatever its batch does afterwards. */
const SETTLED = new Set(["applied", "deduped", "dropped", "poison"]);

/**
 * A batch cancelled or failed after this record's turn in it did not undo what happened to the record: its line
 * says what that was ("… after this record was applied in it; the record stays applied"), so a timeline that ends
 * with the cancel is not read as "this record was cancelled". `batchId` is the batch an event belongs to (the
 * batch event's target, an outcome's after.batchId); events come in timeline order.
 */
export function noteRecordFateInEndedBatches(entries: { event: TimelineEvent; batchId: string | null }[]): void {
  const last = new Map<string, string>();
  for (const { event, batchId } of entries) {
    if (batchId === null) continue;
    if (event.action.startsWith("replay.")) last.set(batchId, event.action.slice("replay.".length));
    else if (event.action === "replay_batch.cancel" || event.action === "replay_batch.fail") {
      const outcome = last.get(batchId);
      const ended = event.action === "replay_batch.cancel" ? "cancelled" : "failed";
      if (outcome !== undefined && SETTLED.has(outcome))
        event.summary += ` — after this record was ${outcome} in it (the batch was ${ended} later; the record stays ${outcome})`;
      else if (outcome === undefined || outcome === "cancelled") event.summary += ` — this record was not sent in it`;
    }
  }
}
