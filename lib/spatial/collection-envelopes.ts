// A GeoJSON FeatureCollection whose features are dead-letter envelopes, split into one NDJSON line per feature,
// so a file written for GIS tools goes through ingest exactly as NDJSON does (the dashboard's import). Each line is
// the member's own text (number lexemes untouched: an AFC hash and "007"-style ids depend on them), with line
// breaks between tokens turned into spaces (a JSON string never holds a raw one). Pure: runs in the browser.

export type CollectionSplit = { ok: true; lines: string[] } | { ok: false; error: string };

const WHITESPACE = new Set([" ", "\n", "\r", "\t"]);

/** The end (exclusive) of the JSON string starting at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') return i + 1;
  }
  return text.length;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  return i;
}

/**
 * The texts of the top-level `features` array's members. `text` is known to be valid JSON whose top level is an
 * object with a `features` array: only strings and nesting are tracked. The last `features` key wins, as in JSON.parse.
 */
function featureTexts(text: string): string[] {
  let found: string[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      const end = stringEnd(text, i);
      const after = skipSpace(text, end);
      if (depth === 1 && text[after] === ":" && JSON.parse(text.slice(i, end)) === "features") {
        const open = skipSpace(text, after + 1);
        if (text[open] === "[") {
          const members = arrayMembers(text, open);
          found = members.texts;
          i = members.end;
          continue;
        }
      }
      i = end;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return found;
}

/** The members of the array opening at `open`, and where it ends. */
function arrayMembers(text: string, open: number): { texts: string[]; end: number } {
  const texts: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      if (start < 0) start = i;
      i = stringEnd(text, i) - 1;
    } else if (c === "{" || c === "[") {
      if (start < 0) start = i;
      depth++;
    } else if ((c === "}" || c === "]") && depth > 0) depth--;
    else if (depth === 0 && (c === "," || c === "]")) {
      if (start >= 0)
        texts.push(
          text
            .slice(start, i)
            .trim()
            .replace(/[\r\n]+/g, " "),
        );
      start = -1;
      if (c === "]") return { texts, end: i + 1 };
    } else if (start < 0 && !WHITESPACE.has(c)) start = i;
  }
  return { texts, end: text.length };
}

/** Splits a FeatureCollection's text into one line per feature; says what is wrong with anything else. */
export function splitFeatureCollection(text: string): CollectionSplit {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not valid JSON (${(e as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || (value as { type?: unknown }).type !== "FeatureCollection") {
    return { ok: false, error: 'not a GeoJSON FeatureCollection: expected an object with "type": "FeatureCollection"' };
  }
  const features = (value as { features?: unknown }).features;
  if (!Array.isArray(features)) return { ok: false, error: "features: must be an array of envelopes" };
  const lines = featureTexts(text);
  // The scan and JSON.parse must agree; a disagreement would send records other than those in the file.
  if (lines.length !== features.length) return { ok: false, error: "features: could not be split into records" };
  return { ok: true, lines };
}
