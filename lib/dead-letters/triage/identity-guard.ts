import type { JsonValue } from "@/lib/json/value";

// The AFC identity rule for edits. A tap's identity (event_id, device_id, tap_timestamp, fare_amount_cents) is
// what its event hash — the idempotency key the ledger deduplicates on — was computed from. Editing one of them
// turns the record into a different tap that still carries the old tap's key, so the ledger could swallow a
// real charge or let a duplicate through. Such an edit is refused unless a supervisor overrides it with a
// reason; either way the stored key never changes (a database trigger also refuses that).
// Client-safe (the editor warns as you type); lib/afc/hash.ts holds the same list (a test keeps them equal).

export const IDENTITY_FIELDS = ["event_id", "device_id", "tap_timestamp", "fare_amount_cents"] as const;

const isObject = (v: JsonValue | null | undefined): v is { [key: string]: JsonValue } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The hash reads a missing field as null, so missing and null are the same identity. */
const identityOf = (tap: JsonValue | null | undefined, field: string): string =>
  JSON.stringify(isObject(tap) && Object.hasOwn(tap, field) ? tap[field] : null);

const DECIMAL = /^\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;

/**
 * A string fare coerced to the number it spells ("275" → 275) is the same tap: issue #4 lists "coerce a string
 * fare" among the fixes an analyst may make. Only plain decimal text counts ("0x113" is not 275 to anyone).
 */
function isFareCoercion(before: JsonValue | null | undefined, after: JsonValue | null | undefined): boolean {
  if (!isObject(before) || !isObject(after)) return false;
  const was = before["fare_amount_cents"];
  const now = after["fare_amount_cents"];
  return typeof was === "string" && typeof now === "number" && DECIMAL.test(was) && Number(was) === now;
}

/** Identity fields whose value differs between two taps (in IDENTITY_FIELDS order). */
export function identityChanges(before: JsonValue | null | undefined, after: JsonValue | null | undefined): string[] {
  return IDENTITY_FIELDS.filter(
    (field) => identityOf(before, field) !== identityOf(after, field) && !(field === "fare_amount_cents" && isFareCoercion(before, after)),
  );
}

export function identityRefusal(fields: readonly string[], key: string | null): string {
  const keyText = key ? ` (its key ${key.slice(0, 12)}… stays)` : "";
  return `${fields.join(", ")} ${fields.length === 1 ? "is an identity field" : "are identity fields"}: changing ${
    fields.length === 1 ? "it" : "them"
  } makes this a different tap${keyText}; a supervisor must override with a reason`;
}
