import type { JsonValue } from "./types";

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

/** Identity fields whose value differs between two taps (in IDENTITY_FIELDS order). */
export function identityChanges(before: JsonValue | null | undefined, after: JsonValue | null | undefined): string[] {
  return IDENTITY_FIELDS.filter((field) => identityOf(before, field) !== identityOf(after, field));
}

export function identityRefusal(fields: readonly string[], key: string | null): string {
  const keyText = key ? ` (its key ${key.slice(0, 12)}… stays)` : "";
  return `${fields.join(", ")} ${fields.length === 1 ? "is an identity field" : "are identity fields"}: changing ${
    fields.length === 1 ? "it" : "them"
  } makes this a different tap${keyText}; a supervisor must override with a reason`;
}
