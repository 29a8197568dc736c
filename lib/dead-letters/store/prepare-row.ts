import { reasonGroup } from "../../afc/reason-group";
import { canonicalJson } from "../../json/canonical";
import { copyField, copyJson, copyNumber } from "../../db/copy-text";
import { storedBox } from "./stored-box";
import type { DeadLetterKind, NewDeadLetter } from "../../vocabulary/record";
import type { ArrivalFacts } from "./arrival-facts";

/**
 * A record ready to store, serialized where it was normalized — on an ingest worker thread, in parallel with
 * the thread that stores: the dead_letter row as a line of COPY text (without its id, which is taken at store time) and
 * its entry in the batch's ingest audit event in canonical JSON. The few fields the store itself reads sit beside
 * them. A handful of strings, so handing it from a thread costs a copy rather than a structured clone of the
 * payload, analysis and geometry (which, with serializing them again here, was a third of ingest's main thread).
 */
export interface PreparedRecord {
  kind: DeadLetterKind;
  idempotencyKey: string | null;
  failureReason: string;
  failureClass: NewDeadLetter["failureClass"];
  /** the record's failure group (lib/dead-letters/groups): its arrival marks the group seen */
  source: string;
  reasonGroup: string;
  firstSeenAt: Date;
  replayCount: number;
  /** its status as it arrives (a poison record is held for a human), unless a triage rule decides it at the store */
  status: "pending" | "quarantined";
  /**
   * The row's columns ROW_COLUMNS in PostgreSQL's COPY text format (lib/db/copy-text.ts), tab-separated, without
   * the id in front and the three timestamps behind, which the store adds when it knows them. UTF-8 bytes for a
   * large record prepared on a thread (rowAsBytes): a large string costs the storing thread its receiving and
   * its encoding for the socket, bytes are moved and written as they are.
   */
  row: string | Uint8Array;
  /**
   * The record's entry in its batch's ingest audit event, canonical JSON (lib/json/canonical.ts) split
   * where its id goes ("id" sorts between "failureReason" and "idempotencyKey"): `{<head>,"id":"…",<tail>}`.
   */
  audit: { head: string; tail: string };
  /** what the active triage rules will ask of the record at the store step (arrival-facts.ts), when ingest gathered it */
  facts?: ArrivalFacts;
}

/** The dedup identity of a record (kind + stored key); null for a record without a key. */
export const keyOf = (r: Pick<NewDeadLetter, "kind" | "idempotencyKey">) =>
  r.idempotencyKey === null ? null : `${r.kind}\u0000${r.idempotencyKey}`;

/** The dead_letter columns of PreparedRecord.row, in order. */
export const ROW_COLUMNS = [
  "kind",
  "source",
  "idempotency_key",
  "entity_key",
  "event_id",
  "device_id",
  "source_message_id",
  "observed_at",
  "first_seen_at",
  "raw_envelope",
  "payload",
  "first_failure_reason",
  "reason",
  "reason_group",
  "failure_class",
  "class_reason",
  "replay_count",
  "analysis",
  "repaired_geometry",
  "bbox",
  "origin_source",
  "origin_message_id",
  "origin",
] as const;

export function prepareRecord(r: NewDeadLetter): PreparedRecord & { row: string } {
  const bbox = r.spatial?.bbox ? storedBox(r.spatial.bbox) : null;
  const observedAt = r.observedAtExact ?? r.observedAt.toISOString(); // once: Date → ISO text is a microsecond each time
  const reason = copyField(r.failureReason);
  const group = reasonGroup(r.failureReason);
  // The analysis is serialized once, canonically: the row's jsonb column and the audit entry share the text.
  const analysis = r.spatial ? canonicalJson(r.spatial.analysis) : null;
  const row = [
    r.kind,
    copyField(r.source),
    copyField(r.idempotencyKey),
    copyField(r.entityKey),
    copyField(r.eventId),
    copyField(r.deviceId),
    copyField(r.sourceMessageId),
    observedAt,
    r.firstSeenAt.toISOString(),
    copyField(r.rawEnvelope),
    copyJson(r.payload),
    reason,
    reason,
    copyField(group),
    r.failureClass,
    copyField(r.classReason),
    copyNumber(r.replayCount),
    copyField(analysis),
    copyJson(r.spatial?.repairedGeometry ?? null),
    bbox ? `(${bbox[0]},${bbox[1]}),(${bbox[2]},${bbox[3]})` : "\\N",
    copyField(r.origin?.source ?? null),
    copyField(r.origin?.messageId ?? null),
    r.origin ? copyJson(r.origin.origin) : "\\N",
  ].join("\t");
  // Canonical member order puts "analysis" first, so it goes in front of the rest as it is.
  const rest = canonicalJson({ failureReason: r.failureReason, failureClass: r.failureClass, classReason: r.classReason }).slice(1, -1);
  const head = analysis === null ? rest : `"analysis":${analysis},${rest}`;
  const tail = { kind: r.kind, source: r.source, idempotencyKey: r.idempotencyKey, observedAt };
  return {
    kind: r.kind,
    idempotencyKey: r.idempotencyKey,
    failureReason: r.failureReason,
    failureClass: r.failureClass,
    source: r.source,
    reasonGroup: group,
    firstSeenAt: r.firstSeenAt,
    replayCount: r.replayCount,
    status: r.failureClass === "poison" ? "quarantined" : "pending",
    row,
    audit: { head, tail: canonicalJson(tail).slice(1, -1) },
  };
}

/**
 * The `after` of a batch's ingest audit event — `{"count": n, "records": [{…, "id": "…", …}, …]}`, canonical —
 * from its records' prepared entries. One event per stored batch rather than one per record: a producer's
 * request is one action (and an audit log of one line per record buried every human action under them), and
 * per record it cost as much as storing the record itself. A record's timeline finds its entry through
 * failure_attempt.audit_event_id (lib/forensics/timeline.ts). `rules`: the triage rules' decisions at arrival.
 */
export function batchAuditAfter(entries: { id: string; record: PreparedRecord }[], rules: string | null = null): string {
  const records = entries.map(({ id, record }) => `{${record.audit.head},"id":${JSON.stringify(id)},${record.audit.tail}}`);
  // "rules" (canonical JSON: the triage rules' decisions on these records) sorts after "records".
  return `{"count":${entries.length},"records":[${records.join(",")}]${rules === null ? "" : `,"rules":${rules}`}}`;
}
