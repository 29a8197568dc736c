import "server-only";
import { redactUrlSecrets } from "../masking/url";
import { configKey } from "../secrets/config-key";
import { isSealed, seal, unseal } from "../secrets/seal";
import { SOURCES, type SourceType } from "./registry";

// Options that hold a URL are kept like the source's own URL: sealed at rest with the configuration key, shown and
// audited only redacted, unsealed only to open a connection. An SQS endpoint or source queue URL (say) may carry an access
// key in its userinfo or a signed query, as the queue URL does. A value stored before this rule (plain) is read as
// it is and sealed at the source's next change.

/** Each type's options marked `sealed` (lib/sources/<type>/, listed in registry.ts). */
const SEALED = new Map<string, readonly string[]>(
  SOURCES.map((p) => [p.type, p.form.rows.flatMap((row) => row.fields.filter((f) => f.sealed).map((f) => f.name))]),
);

type Options = Record<string, unknown>;

function mapSealed(type: SourceType, options: Options, f: (value: string) => string): Options {
  const keys = SEALED.get(type);
  if (!keys?.length) return options;
  const out: Options = { ...options };
  for (const key of keys) {
    const value = out[key];
    if (typeof value === "string") out[key] = f(value);
  }
  return out;
}

/** What the options column stores: each URL option sealed. */
export function sealOptions(type: SourceType, options: Options): Options {
  return mapSealed(type, options, (v) => (isSealed(v) ? v : seal(v, configKey())));
}

/** The options in the clear, for opening a connection; never served. */
export function openOptions(type: SourceType, options: Options): Options {
  return mapSealed(type, options, (v) => (isSealed(v) ? unseal(v, configKey()) : v));
}

/** The options as shown and audited: each URL option unsealed and its secrets redacted. */
export function shownOptions(type: SourceType, options: Options): Options {
  return mapSealed(type, options, (v) => {
    try {
      return redactUrlSecrets(isSealed(v) ? unseal(v, configKey()) : v);
    } catch (err) {
      return `(cannot be read: ${(err as Error).message})`;
    }
  });
}

/**
 * An edit's options with every URL option that comes back exactly as it was shown (redacted) replaced by the stored
 * value: a form that sends the options it was shown keeps the secrets, as the source's URL keeps its credentials
 * unless they are replaced.
 */
export function keepShownSealed(type: SourceType, stored: Options, edited: Options): Options {
  const shown = shownOptions(type, stored);
  const keys = SEALED.get(type) ?? [];
  const out: Options = { ...edited };
  for (const key of keys) {
    if (typeof out[key] === "string" && out[key] === shown[key] && stored[key] !== undefined) out[key] = stored[key];
  }
  return out;
}
