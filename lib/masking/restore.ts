import type { JsonValue } from "../dead-letters/types";
import { MASK, maskJson } from "./mask";
import type { MaskRules } from "./rules";

// An analyst edits an AFC tap from the masked view (card data as •••…1111). Saving that view must neither write
// the placeholders into the record nor refuse the whole edit: every value the analyst left as it was shown is
// put back to the stored value; a placeholder that was changed (or moved to another field) is refused by path.

export interface Restored {
  payload: JsonValue;
  /** JSON pointers ("/card_pan") of placeholders that are not the masked view of the stored value there */
  changed: string[];
}

function child(value: JsonValue | undefined, key: string): JsonValue | undefined {
  if (value === null || value === undefined || typeof value !== "object") return undefined;
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

const pointerPart = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

export function restoreMasked(submitted: JsonValue, stored: JsonValue | null, rules: MaskRules): Restored {
  const shown = stored === null ? undefined : maskJson(stored, rules);
  const original = stored ?? undefined;
  const changed: string[] = [];
  const walk = (value: JsonValue, seen: JsonValue | undefined, was: JsonValue | undefined, pointer: string): JsonValue => {
    if (typeof value === "string") {
      if (seen !== undefined && value === seen && seen !== was && was !== undefined) return was; // left as shown
      if (value.includes(MASK)) changed.push(pointer || "/");
      return value;
    }
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((v, i) => walk(v, child(seen, String(i)), child(was, String(i)), `${pointer}/${i}`));
    const out: { [key: string]: JsonValue } = {};
    for (const [key, v] of Object.entries(value)) out[key] = walk(v, child(seen, key), child(was, key), `${pointer}/${pointerPart(key)}`);
    return out;
  };
  return { payload: walk(submitted, shown, original, ""), changed };
}
