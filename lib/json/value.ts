/** A JSON value as stored (jsonb) and served: what every parsed payload is typed as. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/**
 * Whether `value` is plain JSON: strings, finite numbers, booleans, null, arrays and plain objects of them. A loop
 * over an explicit stack, not a recursive schema: zod's recursive union holds the request thread for a large edit
 * in one turn, and its cost grows faster than the number of values walked.
 */
export function isJsonValue(value: unknown): value is JsonValue {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    if (typeof v !== "object") return false;
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key in v) if (Object.hasOwn(v, key)) stack.push((v as Record<string, unknown>)[key]);
  }
  return true;
}
