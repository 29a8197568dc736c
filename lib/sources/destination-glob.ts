// A source's `options.destinations`: glob patterns over the destination a replay to origin publishes to
// (lib/sources/destinations.ts says what that text is per broker type). `*` stands for any run of characters,
// empty included, `/` and `.` too; every other character stands for itself. A pattern matches the whole text.
// Pure: the source form checks patterns with it, batch creation applies them.

/** At most this many patterns per source, each at most this long: a pattern list is read once per batch. */
export const MAX_DESTINATION_PATTERNS = 100;
export const MAX_DESTINATION_PATTERN_LENGTH = 500;

/** Whether `text` is matched by `pattern` (`*`: any run of characters). Linear: no backtracking regex. */
export function globMatches(pattern: string, text: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === text;
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  // The middle parts in order, each as early as it fits (greedy leftmost is exact for `*`-only globs).
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] ?? "";
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** Whether every one of `texts` is matched by some pattern; no pattern list (undefined) allows everything. */
export function destinationsAllowed(patterns: readonly string[] | undefined, texts: readonly string[]): boolean {
  if (patterns === undefined) return true;
  return texts.length > 0 && texts.every((t) => patterns.some((p) => globMatches(p, t)));
}
