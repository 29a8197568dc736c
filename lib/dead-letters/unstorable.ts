import { isJsonObject } from "../afc/json";

// What JSON can carry but PostgreSQL cannot store, in text or jsonb: the NUL character and unpaired UTF-16
// surrogates (both only as escapes, \u0000 and \ud800–\udfff alone). One such value fails the statement that
// stores it — a whole batch of ingest, a whole capture request — so entry points find it first and say where.

/** An escape that may stand for something unstorable: a cheap test before searching a parsed value. */
export const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

function problem(text: string): string | null {
  if (text.includes("\0")) return "contains the NUL character (\\u0000), which cannot be stored";
  if (!text.isWellFormed()) return "contains an unpaired UTF-16 surrogate (\\ud800–\\udfff alone), which is not Unicode text and cannot be stored";
  return null;
}

/** The first string or key (path a.b[0]) holding what PostgreSQL cannot store, and why; null when there is none. */
export function unstorable(value: unknown, path: string): { path: string; message: string } | null {
  if (typeof value === "string") {
    const message = problem(value);
    return message ? { path, message } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorable(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      const message = problem(k);
      if (message) return { path: at, message };
      const found = unstorable(v, at);
      if (found) return found;
    }
  }
  return null;
}
