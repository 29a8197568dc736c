import { isJsonObject } from "./lossless";

// What JSON can carry but PostgreSQL cannot store, in text or jsonb: the NUL character and unpaired UTF-16
// surrogates (both only as escapes, \u0000 and \ud800–\udfff alone). One such value fails the statement that
// stores it — a whole batch of ingest, a whole capture request — so entry points find it first and say where.

/** An escape that may stand for something unstorable: a cheap test before searching a parsed value. */
export const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Whether JSON text holds an escape that may stand for something unstorable (then search the parsed value).
 * Every record's text is asked: a substring search first, a tenth of the regex's cost, as almost none has one.
 */
export function suspectText(text: string): boolean {
  return text.includes("\\u") && UNSTORABLE_ESCAPE.test(text);
}

/** Why PostgreSQL cannot store this text (NUL, an unpaired surrogate), or null. */
export function unstorableText(text: string): string | null {
  if (text.includes("\0")) return "contains the NUL character (\\u0000), which cannot be stored";
  if (!text.isWellFormed())
    return "contains an unpaired UTF-16 surrogate (\\ud800–\\udfff alone), which is not Unicode text and cannot be stored";
  return null;
}

/** The first string or key (path a.b[0]) holding what PostgreSQL cannot store, and why; null when there is none. */
/** A path in a JSON value and what is wrong there. */
export interface PathProblem {
  path: string;
  message: string;
}

export function unstorable(value: unknown, path: string): PathProblem | null {
  if (typeof value === "string") {
    const message = unstorableText(value);
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
      const message = unstorableText(k);
      if (message) return { path: at, message };
      const found = unstorable(v, at);
      if (found) return found;
    }
  }
  return null;
}

/** A lone high surrogate (no low one after it) or a lone low one (no high one before it). */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` with what PostgreSQL cannot store written as the escape that carried it (`\u0000`, `\ud800`), the rest
 * unchanged: for keeping a trace of a refused value (the audit trail's record of a sign-in attempt).
 */
export function escapeUnstorable(text: string): string {
  if (unstorableText(text) === null) return text;
  const hex = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return text.replaceAll("\0", "\\u0000").replace(UNPAIRED_SURROGATE, hex);
}
