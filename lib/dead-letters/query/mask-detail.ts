import type { DeadLetterDetail } from "../contract/detail";
import { maskEntityKey, maskIdentifier } from "../../masking/identifiers";
import { maskSummary } from "./mask-list";
import { maskFreeText, maskJson, maskText } from "../../masking/mask";
import type { MaskRules } from "../../masking/rules";

// The detail of one record (GET /api/dead-letters/{id}, the detail page, the actions' answers) as a reader
// without dead_letters:unmask may see it. Pure and client-safe; `maskedPaths` lists what was masked
// ("/payload/card_pan", "/rawEnvelope/raw_payload/card_pan") so the UI can offer "reveal" to auditors and keep
// masked values out of an edit.

export function maskDetail(d: DeadLetterDetail, rules: MaskRules | null): DeadLetterDetail & { maskedPaths: string[] } {
  if (!rules) return { ...d, maskedPaths: [] };
  const inPayload: string[] = [];
  const inRaw: string[] = [];
  return {
    // What a list row shows is masked the way list rows are (reasons, class reason, event and device ids).
    ...maskSummary(d, rules),
    sourceMessageId: maskIdentifier(d.sourceMessageId, "source_message_id", rules),
    entityKey: maskEntityKey(d.entityKey, d.kind, rules),
    firstFailureReason: maskFreeText(d.firstFailureReason, rules),
    payload: d.payload === null ? null : maskJson(d.payload, rules, inPayload),
    rawEnvelope: d.rawEnvelope === null ? null : maskText(d.rawEnvelope, rules, inRaw),
    failures: d.failures.map((f) => ({ ...f, reason: maskFreeText(f.reason, rules) })),
    // Broker headers are producer data like the payload: masked the same way.
    origin: d.origin === null ? null : maskJson(d.origin, rules, []),
    maskedPaths: [...inPayload.map((p) => `/payload${p}`), ...inRaw.map((p) => `/rawEnvelope${p}`)],
  };
}
