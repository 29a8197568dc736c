// How deeply parsed JSON nests, counted without recursion. JSON.parse takes thousands of levels, but the code
// that walks a value afterwards (canonical JSON for the audit chain, masking, diffs) recurses and would overflow
// the stack on a hostile body: such input is refused where it arrives instead.

/** Deepest nesting accepted in a JSON body or record; GeoJSON needs about ten. */
export const MAX_JSON_DEPTH = 128;

/** Whether `value` nests arrays/objects more than `max` levels deep. */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
