// Which values count as card data. Pure and client-safe: the server builds the rules from the environment
// (lib/masking/config.ts) and applies them; nothing here reads process.env.

/** Key globs (case-insensitive, `*` = any run of characters) whose values are masked wherever they appear. */
export const DEFAULT_MASK_KEYS: readonly string[] = ["card*", "pan", "token", "account*"];

export interface MaskRules {
  /** a key matching any of these masks every string/number below it */
  keys: readonly RegExp[];
  /** mask any string/number value (or digit run inside a string) of 13–19 digits that passes the Luhn check */
  luhn: boolean;
  /**
   * Cheap test on JSON text for a key that could match (`"card…":`), so text without one and without a long
   * digit run is returned untouched without being tokenized (most envelopes: the export's hot path).
   */
  keyProbe: RegExp | null;
}

export function globToRegExp(glob: string): RegExp {
  const body = glob
    .trim()
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "i");
}

/** Rules from a list of key globs (the default list when `keys` is undefined). */
export function maskRules(keys: readonly string[] = DEFAULT_MASK_KEYS, luhn = true): MaskRules {
  const globs = keys.map((k) => k.trim()).filter((k) => k !== "");
  // In JSON text a key is a string followed by a colon; `*` cannot cross the key's closing quote.
  const alternatives = globs.map((g) =>
    g
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join('[^"]*'),
  );
  return {
    keys: globs.map(globToRegExp),
    luhn,
    keyProbe: alternatives.length ? new RegExp(`"(?:${alternatives.join("|")})\\\\?"\\s*:`, "i") : null,
  };
}

/** "card*, pan" → ["card*", "pan"]; the env form of the key list. */
export function parseMaskKeys(value: string): string[] {
  return value
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
}

export const DEFAULT_MASK_RULES: MaskRules = maskRules();

export function keyMatches(rules: MaskRules, key: string): boolean {
  return rules.keys.some((re) => re.test(key));
}

/**
 * The keys these rules mask beyond the defaults, as one case-insensitive regular expression PostgreSQL reads (the
 * globs' RegExp sources: `^…$`, `.*` for `*`, metacharacters escaped with a backslash, as ARE reads them); null when
 * the defaults cover every key (the stored search document already leaves their values out).
 */
export function extraMaskedKeysPattern(rules: MaskRules): string | null {
  const defaults = new Set(DEFAULT_MASK_RULES.keys.map((k) => k.source.toLowerCase()));
  const extra = rules.keys.filter((k) => !defaults.has(k.source.toLowerCase()));
  return extra.length === 0 ? null : extra.map((k) => `(?:${k.source})`).join("|");
}
