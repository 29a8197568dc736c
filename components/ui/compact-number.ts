const COMPACT = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/**
 * 1,000,000 → "1M", 220,000 → "220K", 12,500 → "12.5K", 900 → "900": chart axis labels that fit their ~48 px
 * (a six-digit label lost its first digit to the chart's left edge: 110000 read as 10000).
 */
export function compactNumber(n: number): string {
  return COMPACT.format(n);
}
