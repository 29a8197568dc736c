// Small words the broker types use to say their options in a few words (each type's summary). Pure and client-safe.

const fmt = (n: number) => n.toLocaleString("en");

/** 500 → "500 ms", 60000 → "60 s", 120000 → "2 min", 43200000 → "12 h". */
export function duration(ms: number): string {
  if (ms < 1000) return `${fmt(ms)} ms`;
  const s = ms / 1000;
  if (s < 120 || s % 60 !== 0) return `${fmt(Math.round(s * 10) / 10)} s`;
  if (s < 7200 || s % 3600 !== 0) return `${fmt(s / 60)} min`;
  return `${fmt(s / 3600)} h`;
}

/** A stored option as text, or null when it is not a non-empty string. */
export const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
/** A stored option as a number, or null when it is not a finite one. */
export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
