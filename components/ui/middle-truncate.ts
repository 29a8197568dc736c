// Long identifiers (idempotency keys, message ids) that differ only at the end: `w3-bowtie-1`, `w3-bowtie-2`.
// Cut at their end by CSS, a column of them reads as one key repeated. Split into a head that CSS may cut (with
// an ellipsis) and a tail that is always shown, so what tells them apart stays on screen.

/** The longest tail kept whole: about what a list's narrowest key column shows at its smallest. */
export const MAX_TAIL = 12;
/** The shortest tail: a 1-character last segment alone ("1") would not read as the end of a key. */
export const MIN_TAIL = 6;

const SEPARATOR = /[-_.:/#@|]/;

/**
 * `text` as head + tail: the tail is its end from a separator (`-bowtie-1` of `w3-bowtie-1`, the separator
 * kept), as long as possible up to MAX_TAIL characters and at least MIN_TAIL (a longer last segment — a hash, a
 * uuid — gives its last MIN_TAIL characters). A text of MAX_TAIL characters or fewer is all tail.
 */
export function splitForMiddleTruncation(text: string): { head: string; tail: string } {
  const chars = [...text]; // by code point: a cut never splits a surrogate pair
  if (chars.length <= MAX_TAIL) return { head: "", tail: text };
  let from = chars.length - MIN_TAIL;
  for (let i = chars.length - MAX_TAIL; i < chars.length; i++) {
    if (SEPARATOR.test(chars[i]!)) {
      from = Math.min(from, i);
      break;
    }
  }
  return { head: chars.slice(0, from).join(""), tail: chars.slice(from).join("") };
}
