// The instants Redrive accepts: what RFC 3339 can write and PostgreSQL's timestamptz can hold.

/**
 * Times are taken within years 0001–9999 (RFC 3339's four-digit years): JavaScript dates reach ±275,760 and
 * PostgreSQL's timestamptz 4713 BC to 294,276 AD, so anything outside would otherwise fail in the query.
 */
export function inTimeRange(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

/** "YYYY-MM-DD…" whose day does not exist in that month (2026-02-30): JavaScript would roll it over. */
export function isImpossibleCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return true;
  return day > new Date(Date.UTC(year, month, 0)).getUTCDate();
}
