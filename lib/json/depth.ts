// How deeply parsed JSON nests. JSON.parse takes thousands of levels, but the code that walks a value afterwards
// (canonical JSON for the audit chain, masking, diffs) recurses and would overflow the stack on a hostile body:
// such input is refused where it arrives instead. The check itself recurses at most MAX_JSON_DEPTH + 1 deep.

/** Deepest nesting accepted in a JSON body or record; GeoJSON needs about ten. */
export const MAX_JSON_DEPTH = 128;

/** What a body or record nested too deeply is told. */
export const TOO_DEEP = `nested more than ${MAX_JSON_DEPTH} levels deep`;

/** Whether `value` nests arrays/objects more than `max` levels deep. lossless-json's numbers are leaves. */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object" || (value as { isLosslessNumber?: unknown }).isLosslessNumber === true) return false;
  if (max === 0) return true;
  // Ingest asks this of every record: a for loop over arrays (coordinates), Object.values only for objects.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeperThan(value[i], max - 1)) return true;
    return false;
  }
  for (const child of Object.values(value)) if (nestsDeeperThan(child, max - 1)) return true;
  return false;
}

/**
 * Why a JSON text failed to parse, in words: a recursive parser (lossless-json) overflows the stack on a few
 * thousand levels before nestsDeeperThan can look, which is the same "too deep", not a parser's internals.
 */
export function isTooDeep(error: unknown): boolean {
  // V8's stack overflow; another RangeError (a string too long to build) is not about nesting.
  return error instanceof RangeError && /call stack/i.test(error.message);
}

export function parseProblem(error: unknown): string {
  return isTooDeep(error) ? TOO_DEEP : `not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
}
