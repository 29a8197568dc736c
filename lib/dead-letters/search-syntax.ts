import { DEFAULT_MASK_RULES, keyMatches } from "../masking/rules";

// The list's search box (`q`) reads three forms. Each keeps the identifier search (key, key prefix, hash
// prefix, event/device/message id, feature id) and adds a search inside the working payload:
//   words                        free text: every word appears among the payload's values (`fence disputed`)
//   key:value                    a key anywhere in the payload has this value (`sensor:SN-9`)
//   path = value                 the value at a JSON path (`properties.sensor = "SN-9"`, `fare_amount_cents = 275`)
// A value is a JSON string in double quotes, a number, or a bare word. Values under masked keys (card*, pan,
// token, account*; and the deployment's own, REDRIVE_MASK_KEYS: where.ts rechecks) and card-number-like digit runs are
// not searchable by anyone (see the search_doc migrations).

/** A segment of a path: the keys producers use (letters, digits, `_`, `-`). */
const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** `path = value` / `path == value`: the path has no space; the value is the rest. */
const CONDITION = /^([^\s=:"]+)\s*==?\s*(.*)$/s;
/** `key:value`, no space around the colon; a URN-like id (`urn:uuid:…`) also parses, and matches no key. */
const KEY_VALUE = /^([A-Za-z_][A-Za-z0-9_-]*):(\S.*)$/s;
/** `key:` with nothing after the colon: a key:value search missing its value. */
const KEY_ONLY = /^[A-Za-z_][A-Za-z0-9_-]*:$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export type PayloadSearch =
  | { kind: "words"; text: string }
  /** `path` null: the key at any depth (key:value) */
  | { kind: "condition"; path: string[]; anywhere: boolean; value: string | number };

export type SearchParse = { ok: true; search: PayloadSearch } | { ok: false; message: string };

function parseValue(raw: string): { ok: true; value: string | number } | { ok: false; message: string } {
  const text = raw.trim();
  if (text === "") return { ok: false, message: "a condition needs a value after = (a quoted string or a number)" };
  if (text.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v === "string") return { ok: true, value: v };
    } catch {
      // reported below
    }
    return { ok: false, message: 'a quoted value must be one JSON string, e.g. "SN-9" (close the quote; escape " inside it as \\")' };
  }
  if (NUMBER.test(text)) return { ok: true, value: Number(text) };
  return { ok: true, value: text };
}

function maskedKey(path: string[]): string | undefined {
  return path.find((k) => keyMatches(DEFAULT_MASK_RULES, k));
}

/** Reads `q`. Anything that is neither a condition nor key:value is words, so the identifier search keeps working. */
export function parsePayloadSearch(q: string): SearchParse {
  const text = q.trim();
  const condition = CONDITION.exec(text);
  // "abc==" (a base64 id) has no value after "=": an identifier, searched as such, not a broken condition. A path
  // (a dot) or a space around the "=" is no base64 id: that is a condition missing its value.
  if (condition && condition[2]!.trim() === "" && (condition[1]!.includes(".") || /\s/.test(text))) {
    return { ok: false, message: 'a condition needs a value after = (a quoted string or a number), e.g. properties.sensor = "SN-9"' };
  }
  if (condition && condition[2]!.trim() !== "") {
    const path = condition[1]!.split(".");
    if (path.some((k) => !SEGMENT.test(k))) {
      return { ok: false, message: "a path is keys joined by dots (letters, digits, _ and -), e.g. properties.sensor" };
    }
    const value = parseValue(condition[2]!);
    if (!value.ok) return value;
    const masked = maskedKey(path);
    if (masked) return { ok: false, message: `"${masked}" holds masked card data and cannot be searched` };
    return { ok: true, search: { kind: "condition", path, anywhere: false, value: value.value } };
  }
  if (KEY_ONLY.test(text)) return { ok: false, message: "key:value needs a value after the colon, e.g. sensor:SN-9" };
  const keyValue = KEY_VALUE.exec(text);
  if (keyValue) {
    const value = parseValue(keyValue[2]!);
    if (!value.ok) return value;
    const masked = maskedKey([keyValue[1]!]);
    if (masked) return { ok: false, message: `"${masked}" holds masked card data and cannot be searched` };
    return { ok: true, search: { kind: "condition", path: [keyValue[1]!], anywhere: true, value: value.value } };
  }
  if (text.startsWith('"') && (text.length < 2 || !text.endsWith('"'))) {
    return { ok: false, message: "close the quote of a quoted phrase" };
  }
  return { ok: true, search: { kind: "words", text } };
}

/**
 * The jsonpath and its variables for a condition. Keys are quoted (the segment pattern admits no quote or
 * backslash) and the value is a variable, so nothing typed is spliced into the path as syntax. A number also
 * matches its text ("275" in a string field), as producers send both.
 */
export function conditionJsonPath(search: Extract<PayloadSearch, { kind: "condition" }>): {
  path: string;
  vars: Record<string, string | number>;
} {
  const keys = search.path.map((k) => `."${k}"`).join("");
  const target = search.anywhere ? `$.**${keys}` : `$${keys}`;
  if (typeof search.value === "number") {
    return { path: `${target} ? (@ == $n || @ == $s)`, vars: { n: search.value, s: String(search.value) } };
  }
  return { path: `${target} ? (@ == $s)`, vars: { s: search.value } };
}

/** The text the payload's words must contain for a search to match (the index's prefilter). */
export function searchWords(search: PayloadSearch): string {
  return search.kind === "words" ? search.text.replace(/^"(.*)"$/s, "$1") : String(search.value);
}
