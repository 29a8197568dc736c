import "server-only";
import { maskAnswer } from "../masking/answer";
import { configuredMaskRules } from "../masking/config";

// What a command prints of the app's data — its table, its lines, its --json — is an answer like the API's, and
// goes through the same last masking pass defineRoute gives every answer (lib/masking/answer.ts): every string and
// key, whichever field it is, through the card-number rule. The text is made from the masked data, not masked
// after: a table cuts long values (a reason to 60 characters), and a card number cut in two is no longer found.
// It is masked again as text all the same, for what a renderer joins (an id next to a key).
//
// Not here, on purpose: the one clear read, `export --unmask --as <auditor>`, audited, which streams through the
// export's own masking (lib/forensics/export); and what is not the records' data but must reach the operator
// exactly — a new password or API token (user, token), the audit chain's hashes and checkpoint (audit), the
// output of the stdin tools (afc, geometry), which is the operator's own input transformed.

/**
 * Prints `value` masked: as JSON (indented, or one line with `compact`), or as the text `text` makes of the masked
 * value when `json` is not set and `text` is given.
 */
export function printAnswer<T>(value: T, opts: { json?: boolean; compact?: boolean; text?: (masked: T) => string } = {}): void {
  const rules = configuredMaskRules();
  const masked = maskAnswer(value, rules);
  if (!opts.json && opts.text) {
    process.stdout.write(maskAnswer(opts.text(masked), rules));
    return;
  }
  process.stdout.write(`${opts.compact ? JSON.stringify(masked) : JSON.stringify(masked, null, 2)}\n`);
}

/** Prints each of `values` as the line `line` makes of it, masked (a lookup's rows, an import's results). */
export function printLines<T>(values: readonly T[], line: (masked: T) => string): void {
  if (values.length === 0) return;
  const rules = configuredMaskRules();
  const masked = maskAnswer(values, rules);
  process.stdout.write(maskAnswer(`${masked.map(line).join("\n")}\n`, rules));
}
