// One rounding for every coordinate Redrive shows (never for what it stores or sends): the record page, the map
// editor, the change list and the reasons GEOS wrote all print a longitude or latitude through here, so they agree
// to the last digit shown. 5 decimals is about 1.1 m — finer than the positioning that produced the data, and
// coarse enough to hide float noise: 48.855000000000004 (binary float sums), 44.000004 (a float32 round trip in
// the map's drawing: one float32 step at 44 is 3.8e-6). Pure and client-safe.

export const COORDINATE_DECIMALS = 5;
const SCALE = 10 ** COORDINATE_DECIMALS;

/** A longitude or latitude for display: at most 5 decimals, no trailing zeros, never "-0". */
export function formatCoordinate(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Math.round(n * SCALE) / SCALE;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

/** A position for display: "[2.35222, 48.855]". */
export function formatPosition(position: readonly number[]): string {
  return `[${position.map(formatCoordinate).join(", ")}]`;
}

// A decimal number with more fraction digits than are shown (a plain number, not part of a word or an id).
const LONG_DECIMAL = new RegExp(`(?<![\\w.])-?\\d+\\.\\d{${COORDINATE_DECIMALS + 1},}(?:e-?\\d+)?(?![\\w.])`, "g");

/**
 * A text that names coordinates (GEOS's "Self-intersection at or near point (2.3522, 48.855000000000004)"), with
 * each long decimal rounded as formatCoordinate does. Numbers with 5 decimals or fewer are left as written.
 */
export function formatCoordinatesInText(text: string): string {
  return text.replace(LONG_DECIMAL, (n) => formatCoordinate(Number(n)));
}

/**
 * A JSON value for display with the numbers in it rounded as coordinates (a position, a list of them, a bare
 * longitude), for the change list of a geometry.
 */
export function stringifyWithCoordinates(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" ? Number(formatCoordinate(v)) : v));
}
