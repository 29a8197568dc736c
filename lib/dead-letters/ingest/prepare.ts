import { reasonGroup } from "../../afc/reason-group";
import { canonicalJson } from "../../audit/canonical-json";
import { storedBox } from "../stored-box";
import type { DeadLetterKind, NewDeadLetter } from "../types";

/**
 * A record ready to store, serialized where it was normalized — on an ingest worker thread, in parallel with
 * the thread that stores: the dead_letter row as JSON text (without its id, which is taken at store time) and
 * its entry in the batch's ingest audit event in canonical JSON. The few fields the store itself reads sit beside
 * them. A handful of strings, so handing it from a thread costs a copy rather than a structured clone of the
 * payload, analysis and geometry (which, with serializing them again here, was a third of ingest's main thread).
 */
export interface PreparedRecord {
  kind: DeadLetterKind;
  idempotencyKey: string | null;
  failureReason: string;
  firstSeenAt: Date;
  replayCount: number;
  /** JSON object text of the row's columns (json_to_recordset's names below), without `id` */
  row: string;
  /**
   * The record's entry in its batch's ingest audit event, canonical JSON (lib/audit/canonical-json.ts) split
   * where its id goes ("id" sorts between "failureReason" and "idempotencyKey"): `{<head>,"id":"…",<tail>}`.
   */
  audit: { head: string; tail: string };
}

export function prepareRecord(r: NewDeadLetter): PreparedRecord {
  const bbox = r.spatial?.bbox ? storedBox(r.spatial.bbox) : null;
  const observedAt = r.observedAt.toISOString(); // once: Date → ISO text is a microsecond each time
  const row = {
    kind: r.kind, source: r.source, key: r.idempotencyKey, entity: r.entityKey, event_id: r.eventId,
    device_id: r.deviceId, msg_id: r.sourceMessageId, observed_at: observedAt, first_seen_at: r.firstSeenAt.toISOString(), raw: r.rawEnvelope,
    payload: r.payload, reason: r.failureReason, rgroup: reasonGroup(r.failureReason), fclass: r.failureClass, creason: r.classReason,
    status: r.failureClass === "poison" ? "quarantined" : "pending", replays: r.replayCount, analysis: r.spatial?.analysis ?? null,
    repaired: r.spatial?.repairedGeometry ?? null, x1: bbox?.[0] ?? null, y1: bbox?.[1] ?? null, x2: bbox?.[2] ?? null, y2: bbox?.[3] ?? null,
  };
  const head = { failureReason: r.failureReason, failureClass: r.failureClass, classReason: r.classReason, ...(r.spatial ? { analysis: r.spatial.analysis } : {}) };
  const tail = { kind: r.kind, source: r.source, idempotencyKey: r.idempotencyKey, observedAt };
  return {
    kind: r.kind, idempotencyKey: r.idempotencyKey, failureReason: r.failureReason, firstSeenAt: r.firstSeenAt,
    replayCount: r.replayCount, row: JSON.stringify(row),
    audit: { head: canonicalJson(head).slice(1, -1), tail: canonicalJson(tail).slice(1, -1) },
  };
}

/**
 * The `after` of a batch's ingest audit event — `{"count": n, "records": [{…, "id": "…", …}, …]}`, canonical —
 * from its records' prepared entries. One event per stored batch rather than one per record: a producer's
 * request is one action (and an audit log of one line per record buried every human action under them), and
 * per record it cost as much as storing the record itself. A record's timeline finds its entry through
 * failure_attempt.audit_event_id (lib/forensics/timeline.ts).
 */
export function batchAuditAfter(entries: { id: string; record: PreparedRecord }[]): string {
  const records = entries.map(({ id, record }) => `{${record.audit.head},"id":${JSON.stringify(id)},${record.audit.tail}}`);
  return `{"count":${entries.length},"records":[${records.join(",")}]}`;
}
