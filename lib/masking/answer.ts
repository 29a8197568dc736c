import { isPanDigits, maskFreeText, maskPan } from "./mask";
import type { MaskRules } from "./rules";

// The last masking pass, at the boundary of every read path (API answers in defineRoute, the data a page hands
// to the browser, export records, metric labels, log lines): every string and every object key of the answer
// goes through the free-text card-number rule, whichever field it is. The per-field masking before it (key globs
// in payloads, identifier copies, maskedPaths for reveal) knows what a field means; this pass knows nothing and so
// misses nothing — a card number planted in an event id, an idempotency key, a feature id, a broker message id, a
// property name or a geometry reason leaves masked like one in the payload.
//
// Numbers: an integer of 14–19 digits passing Luhn becomes the masked string (a coordinate a producer set to a
// card number comes back as an error's location). 13-digit integers are left alone: in an answer they are epoch
// milliseconds (chart series, render times), and one in ten would pass Luhn by chance; a 13-digit card number
// still leaves masked wherever it is text. Masked text has no 13-digit run left, so the pass is idempotent and
// running it over already masked fields changes nothing.

export function maskAnswer<T>(value: T, rules: MaskRules): T {
  if (!rules.luhn) return value;
  return walk(value, rules) as T;
}

function walk(value: unknown, rules: MaskRules): unknown {
  if (typeof value === "string") return maskFreeText(value, rules);
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 1e13 || value >= 1e19) return value;
    const digits = String(value);
    return isPanDigits(digits) ? maskPan(digits) : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const m = walk(v, rules);
      if (m !== v) (out ??= value.slice())[i] = m;
    }
    return out ?? value;
  }
  // Only plain data: a Date serializes itself, anything else with a prototype of its own is not an answer's shape.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const k = maskFreeText(key, rules);
    const m = walk(v, rules);
    if (k !== key || m !== v) changed = true;
    // defineProperty: a "__proto__" key stays a plain own property
    Object.defineProperty(out, k, { value: m, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}
