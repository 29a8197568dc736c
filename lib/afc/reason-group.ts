// Grouping key for failure reasons on the dead-letter list: reasons that differ only in concrete values
// (coordinates, ids, counts, quoted input) belong to one group. Used for every kind of reason (GEOS-style
// spatial reasons as well as AFC schema reasons), so it knows nothing about either. Framework-free and
// dependency-free so the list page can also run it in the browser.

export const PLACEHOLDER = "…";

// Order matters: timestamps, UUIDs and hex runs contain digits and must be taken whole before numbers are.
const RULES: readonly (readonly [RegExp, string])[] = [
  // RFC 3339 / ISO 8601 timestamps and dates
  [/\b\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?\b/g, PLACEHOLDER],
  // UUIDs
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, PLACEHOLDER],
  // hex hashes / ids: 8+ hex characters with at least one digit (so plain words like "deadbeef" survive)
  [/\b(?:0x)?(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, PLACEHOLDER],
  // quoted strings: "…" and '…' (a quote inside a word, as in "can't", is not an opening quote)
  [/"(?:[^"\\]|\\.)*"/g, `"${PLACEHOLDER}"`],
  [/(?<![\p{L}\p{N}])'[^'\n]*'(?![\p{L}\p{N}])/gu, `'${PLACEHOLDER}'`],
  // numbers not glued to a word ("v2", "utf8", "EPSG:4326" keeps its prefix but loses the code)
  // (one way to read each digit: "\d+\.?\d*" could split a run anywhere, and a long run glued to a letter took
  // seconds to refuse)
  [/(?<![\p{L}\d_])[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?![\p{L}\d_])/gu, PLACEHOLDER],
];

// After substitution a coordinate tuple reads "(…, …)" or "(… …)": one placeholder stands for the whole tuple.
const TUPLE = new RegExp(`([([])${PLACEHOLDER}(?:[\\s,;]+${PLACEHOLDER})+([)\\]])`, "g");

/**
 * The grouping pattern of a failure reason, e.g.
 * "Self-intersection at or near point (1.5, 2)" → "Self-intersection at or near point (…)",
 * "exhausted retries: 4 errors" → "exhausted retries: … errors".
 * Reasons without concrete values (most AFC schema reasons) come back unchanged apart from whitespace.
 */
export function reasonGroup(reason: string): string {
  const known = groups.get(reason);
  if (known !== undefined) return known;
  // Dead letters arrive in bursts of one failure (the same schema message, the same HTTP error): the six
  // patterns cost microseconds per record on ingest, a lookup costs nothing. Bounded: cleared when full.
  if (groups.size >= GROUPS_KEPT) groups.clear();
  const group = groupOf(reason);
  groups.set(reason, group);
  return group;
}

const GROUPS_KEPT = 10_000;
const groups = new Map<string, string>();

/**
 * Longest group, in UTF-16 units (≤ 1,500 bytes of UTF-8): the group is indexed, and an index entry over ~2,700
 * bytes fails the statement storing it. A reason may be a whole stack trace; its first 500 characters group it.
 */
export const MAX_GROUP_LENGTH = 500;

/**
 * How much of a reason is grouped. The group keeps at most MAX_GROUP_LENGTH characters anyway, and the patterns
 * above cost up to quadratic time in what they read (a quote followed by 40,000 escaped quotes): unbounded, one
 * producer's 40 kB reason would hold the server's event loop for seconds.
 */
export const GROUPED_PREFIX = 2_000;

function groupOf(reason: string): string {
  let out = reason;
  if (out.length > GROUPED_PREFIX) {
    const code = out.charCodeAt(GROUPED_PREFIX - 1);
    out = out.slice(0, code >= 0xd800 && code <= 0xdbff ? GROUPED_PREFIX - 1 : GROUPED_PREFIX);
  }
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  out = out.replace(TUPLE, `$1${PLACEHOLDER}$2`).replace(/\s+/g, " ").trim();
  if (out.length <= MAX_GROUP_LENGTH) return out;
  // Not split inside a surrogate pair (a lone surrogate cannot be stored).
  const code = out.charCodeAt(MAX_GROUP_LENGTH - 2);
  return `${out.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_GROUP_LENGTH - 2 : MAX_GROUP_LENGTH - 1)}${PLACEHOLDER}`;
}
