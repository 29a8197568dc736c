import type { JsonValue } from "@/lib/json/value";
import { keyMatches, type MaskRules } from "./rules";

// Masking of card data (PAN, card token, account ids) in AFC payloads, applied on the server before anything
// leaves it: API responses, exports, the timeline. Pure and client-safe.
//
// Two rules (lib/masking/rules.ts): a value under a key matching a configured glob is masked whatever it is; a
// string or integer of 13–19 digits passing the Luhn check is masked wherever it is, keeping its last 4 digits
// (the last 4 are what a rider quotes on the phone, and what PCI DSS allows to be shown). Booleans and nulls
// carry no card data and are kept, so a masked document still says which fields were set.
//
// "Card-like" (isPanDigits, cardSpans) is the one definition every consumer shares: what is masked here is what
// the search indexes leave out and what a search term may not hold (lib/dead-letters/search-syntax.ts, the notes'
// index). Known false positives, accepted on purpose (masking too much is safe: an auditor can reveal): about one
// in ten 14–19 digit runs passes Luhn by chance. A 13-digit run starting with 1 is an epoch-millisecond time
// (2001 to 2286), which producers put in keys and broker ids; no 13-digit card starts with 1 (they are Visa, 4…),
// so such a run is never a card, nor part of one.

export const MASK = "•••";
const BULLET = "•";

/** The Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** A 13-digit run starting with 1: an epoch-millisecond time, never a card number. */
export function isEpochMillis(digits: string): boolean {
  return digits.length === 13 && digits[0] === "1";
}

/** Card-like: 13–19 digits passing Luhn, not an epoch-millisecond time. */
export function isPanDigits(digits: string): boolean {
  return /^\d{13,19}$/.test(digits) && !isEpochMillis(digits) && luhnValid(digits);
}

/** "4111111111111111" → "••••••••••••1111" */
export function maskPan(digits: string): string {
  return BULLET.repeat(digits.length - 4) + digits.slice(-4);
}

// Card numbers in free text, as people and systems write them: grouped by single spaces, dashes, underscores
// or dots ("4111 1111 1111 1111", "4111.1111.1111.1111"), glued to a word ("card4111…"), followed by more digits
// ("4111111111111111 12/27": an expiry, a CVV). A run of digit groups is searched for every stretch of whole
// groups holding 13–19 digits that passes Luhn (longest first), not only the run as a whole — the expiry made
// the whole run 18–22 digits and the card went through in clear.
// Not card numbers: the fraction of a number (174.4418584872960 — a run never starts right after "<digit>.",
// and a dot separates groups only between two groups of exactly four digits, as printed cards group them), and
// digits inside a hex hash (a SHA-256 event hash "…eeb9da4539…7331a64e" holds long digit runs): a run with hex
// letters on both sides, in a hex token of 24+ characters, is part of that token.
const RUN = /\d+(?:[ _\-.]\d+)*/g;
const HEX = /[0-9a-fA-F]/;

function insideHexToken(text: string, start: number, end: number): boolean {
  const isLetter = (c: string | undefined) => c !== undefined && /[a-fA-F]/.test(c);
  const before = isLetter(text[start - 1]);
  const after = isLetter(text[end]);
  if (!before && !after) return false;
  let a = start,
    b = end;
  while (a > 0 && HEX.test(text[a - 1]!)) a--;
  while (b < text.length && HEX.test(text[b]!)) b++;
  // A run at one end of the token (a digest starting with 13 digits) only counts in a digest-sized token: an MD5,
  // SHA-1 or SHA-256 in hex, never a word with a card number glued to it.
  const isolated = (i: number) => i <= 0 || i >= text.length || !/[0-9A-Za-z]/.test(text[i]!);
  if (before && after) return b - a >= 24;
  return b - a >= 32 && isolated(a - 1) && isolated(b);
}

// A UUID (a job's, a request's id) whose first groups happen to be all digits reads as a dashed digit run
// ("12345678-1234-4123-…"); no card is printed 8-4-4-4-12, and masking one would break the id an answer hands out.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function uuidSpans(text: string): [number, number][] {
  if (!text.includes("-")) return [];
  return [...text.matchAll(UUID)].map((m) => [m.index, m.index + m[0].length]);
}

function insideUuid(spans: [number, number][], start: number, end: number): boolean {
  return spans.some(([a, b]) => start >= a && end <= b);
}

/** The run's digit groups with their offsets in `text`; a dot only joins two groups of four digits. */
function groupsOf(run: string, offset: number): { digits: string; start: number; end: number }[][] {
  const parts: { digits: string; start: number; end: number; sep: string }[] = [];
  const re = /\d+/g;
  for (let m = re.exec(run); m; m = re.exec(run)) {
    parts.push({ digits: m[0], start: offset + m.index, end: offset + m.index + m[0].length, sep: m.index > 0 ? run[m.index - 1]! : "" });
  }
  const runs: { digits: string; start: number; end: number }[][] = [];
  for (const p of parts) {
    const prev = runs.at(-1)?.at(-1);
    const joined = prev !== undefined && (p.sep !== "." || (prev.digits.length === 4 && p.digits.length === 4));
    if (joined) runs.at(-1)!.push(p);
    else runs.push([p]);
  }
  return runs;
}

export interface CardSpan {
  start: number;
  end: number;
  /** the card number's digits, separators left out */
  digits: string;
}

/**
 * Where free text holds card-like numbers, as offsets into `text`: what masking hides, what the notes' index
 * leaves out and what a search term may not hold.
 */
export function cardSpans(text: string): CardSpan[] {
  if (!/\d{4}/.test(text)) return [];
  const spans: CardSpan[] = [];
  const uuids = uuidSpans(text);
  for (const m of text.matchAll(RUN)) {
    for (const groups of groupsOf(m[0], m.index)) {
      // the fraction of a number: right after "<digit>." (a dot that did not join two four-digit groups)
      const start = groups[0]!.start;
      if (text[start - 1] === "." && /\d/.test(text[start - 2] ?? "")) continue;
      for (let s = 0; s < groups.length; s++) {
        let best = -1;
        let digits = "";
        for (let e = s; e < groups.length && digits.length + groups[e]!.digits.length <= 19; e++) {
          // An epoch-millisecond group is a time whatever follows it ("msg-1796571817221-1"), never part of a card.
          if (isEpochMillis(groups[e]!.digits)) break;
          digits += groups[e]!.digits;
          if (isPanDigits(digits)) best = e;
        }
        if (best === -1) continue;
        const start = groups[s]!.start,
          end = groups[best]!.end;
        if (insideHexToken(text, start, end) || insideUuid(uuids, start, end)) continue;
        spans.push({
          start,
          end,
          digits: groups
            .slice(s, best + 1)
            .map((g) => g.digits)
            .join(""),
        });
        s = best;
      }
    }
  }
  return spans;
}

/** Whether free text holds a card-like number (a search term that does is refused). */
export function holdsCardNumber(text: string): boolean {
  return cardSpans(text).length > 0;
}

function replaceSpans(text: string, spans: CardSpan[], by: (span: CardSpan) => string): string {
  if (spans.length === 0) return text;
  let out = "";
  let last = 0;
  for (const e of spans) {
    out += text.slice(last, e.start) + by(e);
    last = e.end;
  }
  return out + text.slice(last);
}

/** Masks every card-like number inside free text (reasons, unparseable envelopes, strings). */
export function maskDigitRuns(text: string): string {
  return replaceSpans(text, cardSpans(text), (span) => maskPan(span.digits));
}

/**
 * Free text as a search index holds it: every card-like number left out (a space in its place), so neither its
 * digits nor a substring of them can be found.
 */
export function withoutCardNumbers(text: string): string {
  return replaceSpans(text, cardSpans(text), () => " ");
}

/** Free text (a failure reason, an audit reason): only the Luhn rule applies, there are no keys. */
export function maskFreeText(text: string, rules: MaskRules): string {
  return rules.luhn ? maskDigitRuns(text) : text;
}

const escapePointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

function maskUnderKey(value: string): string {
  const digits = value.replace(/[ -]/g, "");
  return isPanDigits(digits) ? maskPan(digits) : MASK;
}

function looksLikeJsonText(s: string): boolean {
  const c = s.trimStart()[0];
  return c === "{" || c === "[";
}

/** A string value outside masked keys: JSON text inside it (producers store payloads as text) or digit runs. */
function maskLooseString(s: string, rules: MaskRules): string {
  if (looksLikeJsonText(s)) {
    const nested = tryMaskText(s, rules);
    if (nested !== null) return nested;
  }
  return rules.luhn ? maskDigitRuns(s) : s;
}

function integerDigits(n: number): string | null {
  return Number.isInteger(n) && n >= 0 && n < 1e21 ? n.toString() : null;
}

/**
 * A masked copy of a parsed JSON value. `found` collects the JSON pointer of every masked value (the UI offers
 * "reveal" on them). Object key order is kept; a masked number becomes a string.
 */
export function maskJson(value: JsonValue, rules: MaskRules, found?: string[]): JsonValue {
  return walk(value, rules, found, "", false);
}

function walk(value: JsonValue, rules: MaskRules, found: string[] | undefined, path: string, under: boolean): JsonValue {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") {
    const out = under ? maskUnderKey(value) : maskLooseString(value, rules);
    if (out !== value) found?.push(path);
    return out;
  }
  if (typeof value === "number") {
    if (under) {
      found?.push(path);
      return maskUnderKey(integerDigits(value) ?? "");
    }
    const digits = rules.luhn ? integerDigits(value) : null;
    if (digits !== null && isPanDigits(digits)) {
      found?.push(path);
      return maskPan(digits);
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => walk(v, rules, found, `${path}/${i}`, under));
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value)) {
    const child = walk(value[key] as JsonValue, rules, found, `${path}/${escapePointer(key)}`, under || keyMatches(rules, key));
    // A card number used as a key (a map keyed by card) is masked like one in a value (restore.ts maps it back).
    const shownKey = maskKey(key, rules);
    // defineProperty: a "__proto__" key stays a plain own property
    Object.defineProperty(out, shownKey, { value: child, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** An object key as a reader without clear access sees it: the Luhn rule only (key globs name keys, not hide them). */
export function maskKey(key: string, rules: MaskRules): string {
  return rules.luhn ? maskDigitRuns(key) : key;
}

/**
 * Masks JSON text (a raw envelope) in place: only the masked tokens change, everything else — whitespace, key
 * order, duplicate keys, number lexemes — stays byte for byte, so the evidence still reads as received. Text
 * that is not JSON gets the free-text rule.
 */
export function maskText(text: string, rules: MaskRules, found?: string[]): string {
  if (!mayNeedMasking(text, rules)) return text;
  return tryMaskText(text, rules, found) ?? maskFreeText(text, rules);
}

// A pre-filter only (see maskDigitRuns for what is masked): 13 digits, maybe grouped.
const LONG_DIGIT_RUN = /\d(?:[ _\-]?\d){12}|\d{4}\.\d{4}\.\d{4}/;

/**
 * False when no rule can apply to this text: no key that could match and no run of 13+ digits. A key written
 * with \u escapes cannot be recognised without decoding, so any escape sends the text to the full scan.
 * This pre-check is what keeps the export's throughput: tokenizing every envelope costs as much as the rest.
 */
function mayNeedMasking(text: string, rules: MaskRules): boolean {
  if (rules.luhn && LONG_DIGIT_RUN.test(text)) return true;
  if (rules.keys.length === 0) return false;
  return rules.keyProbe === null || rules.keyProbe.test(text) || text.includes("\\u");
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

class Scanner {
  i = 0;
  readonly edits: Edit[] = [];
  constructor(
    readonly text: string,
    readonly rules: MaskRules,
    readonly found: string[] | undefined,
  ) {}

  ws(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i] as string)) this.i++;
  }

  fail(): never {
    throw new SyntaxError(`not JSON at ${this.i}`);
  }

  expect(ch: string): void {
    if (this.text[this.i] !== ch) this.fail();
    this.i++;
  }

  stringToken(): { raw: string; value: string } {
    const start = this.i;
    this.expect('"');
    while (this.i < this.text.length) {
      const ch = this.text[this.i];
      if (ch === "\\") this.i += 2;
      else if (ch === '"') break;
      else this.i++;
    }
    this.expect('"');
    const raw = this.text.slice(start, this.i);
    return { raw, value: JSON.parse(raw) as string };
  }

  replace(start: number, text: string, path: string): void {
    this.edits.push({ start, end: this.i, text: JSON.stringify(text) });
    this.found?.push(path);
  }

  value(path: string, under: boolean): void {
    this.ws();
    const start = this.i;
    const ch = this.text[this.i];
    if (ch === "{") return this.object(path, under);
    if (ch === "[") return this.array(path, under);
    if (ch === '"') {
      const { value } = this.stringToken();
      const out = under ? maskUnderKey(value) : maskLooseString(value, this.rules);
      if (out !== value) this.replace(start, out, path);
      return;
    }
    const num = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    num.lastIndex = this.i;
    const m = num.exec(this.text);
    if (m) {
      this.i += m[0].length;
      const integer = /^\d+$/.test(m[0]) ? m[0] : null;
      if (under) this.replace(start, maskUnderKey(integer ?? ""), path);
      else if (this.rules.luhn && integer !== null && isPanDigits(integer)) this.replace(start, maskPan(integer), path);
      return;
    }
    for (const lit of ["true", "false", "null"]) {
      if (this.text.startsWith(lit, this.i)) {
        this.i += lit.length;
        return;
      }
    }
    this.fail();
  }

  object(path: string, under: boolean): void {
    this.expect("{");
    this.ws();
    if (this.text[this.i] === "}") {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      const keyStart = this.i;
      const key = this.stringToken().value;
      // A card number used as an object key (a map keyed by card) is masked like one in a value.
      const maskedKey = maskKey(key, this.rules);
      if (maskedKey !== key) this.edits.push({ start: keyStart, end: this.i, text: JSON.stringify(maskedKey) });
      this.ws();
      this.expect(":");
      this.value(`${path}/${escapePointer(key)}`, under || keyMatches(this.rules, key));
      this.ws();
      if (this.text[this.i] === ",") this.i++;
      else return this.expect("}");
    }
  }

  array(path: string, under: boolean): void {
    this.expect("[");
    this.ws();
    if (this.text[this.i] === "]") {
      this.i++;
      return;
    }
    for (let n = 0; ; n++) {
      this.value(`${path}/${n}`, under);
      this.ws();
      if (this.text[this.i] === ",") this.i++;
      else return this.expect("]");
    }
  }
}

/** The masked text, or null when `text` is not one JSON value. */
function tryMaskText(text: string, rules: MaskRules, found?: string[]): string | null {
  const collected: string[] = [];
  const scanner = new Scanner(text, rules, collected);
  try {
    scanner.value("", false);
    scanner.ws();
    if (scanner.i !== text.length) return null;
  } catch {
    return null;
  }
  found?.push(...collected);
  if (scanner.edits.length === 0) return text;
  let out = "";
  let at = 0;
  for (const e of scanner.edits) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

const PLACEHOLDER = BULLET.repeat(3);

/**
 * Whether a document still holds a masked placeholder ("•••", "••••••••••••1111"): an edit built from a masked
 * view must not write placeholders over the real values. Edit handlers refuse such a payload.
 */
export function containsMaskPlaceholder(value: JsonValue): boolean {
  if (typeof value === "string") return value.startsWith(PLACEHOLDER);
  if (value === null || typeof value !== "object") return false;
  // Loops, not closures: an edit's 140,000-vertex ring is 420,000 values, on the thread answering requests.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      if (typeof item === "object" || typeof item === "string") if (containsMaskPlaceholder(item)) return true;
    }
    return false;
  }
  for (const key in value) if (key.startsWith(PLACEHOLDER) || containsMaskPlaceholder(value[key]!)) return true;
  return false;
}
