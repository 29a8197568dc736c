import { MASK } from "./mask";
import type { MaskRules } from "./rules";

// A record's identifiers are also copied out of its payload into columns (event_id, device_id, the source's
// message id, and for a tap the entity key, which is its device_id), shown in lists, lookups and CSV. When an
// operator's key globs (REDRIVE_MASK_KEYS) name one of those fields, its copy is masked like the field itself:
// `device*` hid payload.device_id while the list showed deviceId. The default globs name none of them.

export type IdentifierField = "event_id" | "device_id" | "source_message_id";

/** Whether the rules mask this field name. */
export function masksField(rules: MaskRules | null, field: IdentifierField): boolean {
  return rules !== null && rules.keys.some((k) => k.test(field));
}

export function maskIdentifier(value: string | null, field: IdentifierField, rules: MaskRules | null): string | null {
  return value !== null && masksField(rules, field) ? MASK : value;
}

/** The entity key: a tap's is its device_id; a feature's is its id (or a configured property), not masked. */
export function maskEntityKey(value: string | null, kind: string, rules: MaskRules | null): string | null {
  return kind === "afc" ? maskIdentifier(value, "device_id", rules) : value;
}
