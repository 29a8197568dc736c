// PostgreSQL's COPY text format (https://www.postgresql.org/docs/current/sql-copy.html, "Text Format"): one line
// per row, columns separated by a tab, NULL written \N, and backslash, newline, carriage return and tab in a
// value escaped with a backslash. Everything else (any other Unicode character) goes through as it is.
//
// Ingest builds its rows in this format because COPY is PostgreSQL's cheapest way in: no JSON document to parse
// twice (the ::json cast validates, json_to_recordset parses again) and no per-statement parameter arrays.

const SPECIAL_ALL = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A text value as one COPY field; null → \N. */
export function copyField(value: string | null | undefined): string {
  if (value === null || value === undefined) return "\\N";
  // Four substring searches are much cheaper than one regex test on an envelope (most values need no escape).
  const special = value.includes("\\") || value.includes("\t") || value.includes("\n") || value.includes("\r");
  return special ? value.replace(SPECIAL_ALL, (c) => ESCAPES[c] as string) : value;
}

/**
 * JSON text (for a json/jsonb column) as one COPY field. JSON never holds a raw newline, return or tab (they are
 * escaped inside strings), so only its backslashes need doubling.
 */
export function copyJsonText(text: string): string {
  return text.includes("\\") ? text.replaceAll("\\", "\\\\") : text;
}

/** A JSON value (for a json/jsonb column) as one COPY field; null → \N. */
export function copyJson(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  return copyJsonText(JSON.stringify(value));
}

/** A number (int or float8 column) as one COPY field; null → \N. String() is the shortest exact form. */
export function copyNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "\\N" : String(value);
}
