// RFC 8785 (JCS) canonical JSON, as the `canonicalize` package writes it, in a form that costs less: JCS is
// defined on ECMAScript's own serialization of strings and numbers, so JSON.stringify writes every primitive and
// only objects need their keys sorted (by UTF-16 code units, JavaScript's default sort). The package walked every
// string character by character for lone surrogates; String.prototype.isWellFormed does that natively. On ingest
// this was a tenth of the main thread's time (an audit event per record).
//
// A value already in canonical form can be spliced in whole (CanonicalJson): ingest canonicalizes each record's
// audit content on the worker thread that normalized it, and the main thread only links it into the chain.

/** Text that is already canonical JSON (written by canonicalJson), inserted as is. */
export class CanonicalJson {
  constructor(readonly text: string) {}
  /** JSON.stringify of an object holding one gives back the value, for a jsonb column */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

function fail(message: string): never {
  throw new Error(message);
}

function write(value: unknown, out: string[]): void {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) fail("Lone surrogate is not allowed");
      out.push(JSON.stringify(value));
      return;
    case "number":
      if (!Number.isFinite(value)) fail(Number.isNaN(value) ? "NaN is not allowed" : "Infinity is not allowed");
      out.push(JSON.stringify(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object":
      break;
    default:
      // undefined, functions and symbols: members holding them are skipped by the caller; elsewhere, null
      out.push("null");
      return;
  }
  if (value === null) {
    out.push("null");
    return;
  }
  if (value instanceof CanonicalJson) {
    out.push(value.text);
    return;
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === "function") {
    write(withJson.toJSON(), out);
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      const v: unknown = value[i];
      write(v === undefined || typeof v === "symbol" ? null : v, out);
    }
    out.push("]");
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  out.push("{");
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined || typeof v === "symbol" || typeof v === "function") continue;
    if (!first) out.push(",");
    first = false;
    if (!k.isWellFormed()) fail("Lone surrogate is not allowed");
    out.push(JSON.stringify(k), ":");
    write(v, out);
  }
  out.push("}");
}

/** The RFC 8785 canonical JSON of `value`; throws on NaN, Infinity and lone surrogates, as RFC 8785 requires. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join("");
}
