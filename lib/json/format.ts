// JSON for people editing it: like JSON.stringify(v, null, 2), but an array of plain values (a position such as
// [139.716244, 35.716502]) stays on one line, so a polygon reads one vertex per line instead of four lines.

const inline = (v: unknown) => v === null || typeof v !== "object";

export function formatJson(value: unknown, indent = 2, depth = 0): string {
  if (inline(value)) return JSON.stringify(value) ?? "null";
  const pad = " ".repeat(indent * (depth + 1));
  const end = " ".repeat(indent * depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every(inline)) {
      const one = `[${value.map((v) => JSON.stringify(v) ?? "null").join(", ")}]`;
      if (one.length <= 100) return one;
    }
    return `[\n${value.map((v) => pad + formatJson(v, indent, depth + 1)).join(",\n")}\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${formatJson(v, indent, depth + 1)}`).join(",\n")}\n${end}}`;
}
