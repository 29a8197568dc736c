import { getEnv } from "../env";
import { DEFAULT_MASK_KEYS, maskRules, parseMaskKeys, type MaskRules } from "./rules";

// The deployment's masking rules: REDRIVE_MASK_KEYS replaces the default key globs (the Luhn rule always
// applies). Read once per process, like the rest of the environment.

let cached: MaskRules | undefined;

export function configuredMaskRules(): MaskRules {
  if (cached) return cached;
  const keys = getEnv().REDRIVE_MASK_KEYS;
  cached = maskRules(keys === undefined ? DEFAULT_MASK_KEYS : parseMaskKeys(keys));
  return cached;
}
