// What a broker source's last failure is called for those who may read sources but not manage them: a category,
// never the broker's own words. The raw text (a broker's refusal, a host, a queue URL, an HTML page an SQS endpoint
// answered with) stays for the admins who configure the connection. Each connector's error carries a code
// (lib/sources/<type>/errors.ts); the category is taken from it when the failure is recorded. Pure.

export const SOURCE_ERROR_CATEGORIES = {
  unreachable: "the broker could not be reached",
  refused: "the broker refused the source's credentials or permissions",
  not_found: "the queue, stream or topic the source reads does not exist",
  busy: "the broker is throttling or failing on its side",
  config: "the source's configuration cannot be used",
  other: "the broker refused a request",
} as const;

export type SourceErrorCategory = keyof typeof SOURCE_ERROR_CATEGORIES;

const BY_CODE: Record<string, SourceErrorCategory> = {
  unreachable: "unreachable",
  connect_failed: "unreachable",
  connection_lost: "unreachable",
  timeout: "unreachable",
  closed: "unreachable",
  auth_failed: "refused",
  refused: "refused",
  not_found: "not_found",
  not_provisioned: "not_found",
  throttled: "busy",
  invalid_url: "config",
  invalid_config: "config",
};

/** The category of a connector's failure, from its error's code; "other" for anything without a known one. */
export function sourceErrorCategory(err: unknown): SourceErrorCategory {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && Object.hasOwn(BY_CODE, code)) return BY_CODE[code] as SourceErrorCategory;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return "unreachable";
  return "other";
}

/** The text shown to a reader for a stored category (one recorded before categories were kept: "other"). */
export function sourceErrorText(category: string | null): string {
  return category && Object.hasOwn(SOURCE_ERROR_CATEGORIES, category)
    ? SOURCE_ERROR_CATEGORIES[category as SourceErrorCategory]
    : SOURCE_ERROR_CATEGORIES.other;
}
