import { describe, expect, it } from "vitest";
import { DEFAULT_MASK_KEYS, extraMaskedKeysPattern, maskRules } from "./rules";

describe("extraMaskedKeysPattern", () => {
  it("is null when the defaults cover every masked key (the stored search document leaves them out)", () => {
    expect(extraMaskedKeysPattern(maskRules())).toBeNull();
    expect(extraMaskedKeysPattern(maskRules(["PAN", "card*"]))).toBeNull();
  });

  it("names only the keys beyond the defaults, anchored, with * as .* and metacharacters escaped", () => {
    const pattern = extraMaskedKeysPattern(maskRules([...DEFAULT_MASK_KEYS, "rider*", "e.mail"]));
    expect(pattern).toBe("(?:^rider.*$)|(?:^e\\.mail$)");
    const re = new RegExp(pattern!, "i");
    expect(["Rider_Email", "rider", "e.mail"].every((k) => re.test(k))).toBe(true);
    expect(["email", "provider", "card_pan"].some((k) => re.test(k))).toBe(false);
  });
});
