import type { JsonValue } from "@/lib/json/value";
import { MASK, maskJson, maskKey } from "./mask";
import type { MaskRules } from "./rules";

// An analyst edits an AFC tap from the masked view (card data as •••…1111). Saving that view must neither write
// the placeholders into the record nor refuse the whole edit: every value the analyst left as it was shown is
// put back to the stored value; a placeholder that was changed (or moved to another field) is refused by path.

export interface Restored {
  payload: JsonValue;
  /** where placeholders are that are not the masked view of the stored value there, as key paths (["card_pan"]) */
  changed: string[][];
}

function child(value: JsonValue | undefined, key: string): JsonValue | undefined {
  if (value === null || value === undefined || typeof value !== "object") return undefined;
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

export function restoreMasked(submitted: JsonValue, stored: JsonValue | null, rules: MaskRules): Restored {
  const shown = stored === null ? undefined : maskJson(stored, rules);
  const original = stored ?? undefined;
  const changed: string[][] = [];
  const walk = (value: JsonValue, seen: JsonValue | undefined, was: JsonValue | undefined, path: string[]): JsonValue => {
    if (typeof value === "string") {
      // Left as shown: the stored value (also text that was never masked but holds "•••" of its own).
      if (seen !== undefined && was !== undefined && value === seen) return was;
      if (value.includes(MASK)) changed.push(path);
      return value;
    }
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      // Positions only match while the array keeps its length: every masked token reads "•••", so after removing
      // one element the next would take the removed one's value. Otherwise placeholders in it are refused.
      const aligned = Array.isArray(was) && was.length === value.length;
      return value.map((v, i) =>
        walk(v, aligned ? child(seen, String(i)) : undefined, aligned ? child(was, String(i)) : undefined, [...path, String(i)]),
      );
    }
    const out: { [key: string]: JsonValue } = {};
    // A key shown masked (a card number used as a key) goes back to the stored key it stands for.
    const storedKeys = new Map<string, string>();
    if (was !== null && was !== undefined && typeof was === "object" && !Array.isArray(was)) {
      for (const k of Object.keys(was)) storedKeys.set(maskKey(k, rules), k);
    }
    for (const [shownKey, v] of Object.entries(value)) {
      const key = shownKey.includes(MASK) ? (storedKeys.get(shownKey) ?? shownKey) : shownKey;
      if (key === shownKey && shownKey.includes(MASK)) changed.push([...path, shownKey]);
      // defineProperty: a "__proto__" key stays a plain own property (assignment would set the prototype and drop it)
      Object.defineProperty(out, key, {
        // The path names the key as the analyst sees it: a refusal must not spell out a card number used as a key.
        value: walk(v, child(seen, shownKey), child(was, key), [...path, shownKey]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return { payload: walk(submitted, shown, original, []), changed };
}
