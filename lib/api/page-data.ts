import "server-only";
import { maskAnswer } from "../masking/answer";
import { configuredMaskRules } from "../masking/config";

// What a server component hands to the browser goes through the same last masking pass as an API answer
// (lib/masking/answer.ts): the data a page renders is an answer too, only delivered as props. A page that shows
// card data in clear on an auditor's audited request (the timeline with unmask=1) passes `clear`.

export function forReader<T>(data: T, opts: { clear?: boolean } = {}): T {
  return opts.clear ? data : maskAnswer(data, configuredMaskRules());
}
