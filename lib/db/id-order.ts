// Rows are locked in id order everywhere (lib/replay/engine/claim-items.ts): two transactions that lock overlapping
// sets of records in the same order wait for each other instead of deadlocking. Ids travel as decimal strings
// (bigint), so the order is numeric, not the strings' ("10" after "9").

/** Numeric order of bigint ids written as decimal strings (leading zeros allowed, as the id schemas allow them). */
export function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
