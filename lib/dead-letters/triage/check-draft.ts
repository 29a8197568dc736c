import { validateTap } from "../../afc/tap-schema";
import { liveValidity, type LiveValidity } from "../../spatial/live-validity";
import { identityChanges, identityRefusal } from "./identity-guard";
import type { JsonValue } from "@/lib/json/value";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// What the editor says about a draft payload as it is typed, before the server decides: the record's schema
// (AFC: the tap schema and the identity rule; spatial: a GeoJSON Feature and its geometry's validity). The
// server re-checks everything on save; this only saves the round trip. Pure and client-safe.

export interface Finding {
  path: string;
  message: string;
  severity: "error" | "warning" | "info";
}

export interface DraftCheck {
  /** the parsed draft, or null when it is not JSON */
  value: JsonValue | null;
  findings: Finding[];
  /** AFC: identity fields the draft changes */
  identity: string[];
  /** spatial: validity of the draft's geometry */
  validity: LiveValidity | null;
  /** whether the server can accept it as is (JSON, an object, no identity change without an override) */
  savable: boolean;
}

export function checkDraft(
  kind: DeadLetterKind,
  original: JsonValue | null,
  text: string,
  opts: { key: string | null; override: boolean },
): DraftCheck {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (err) {
    return {
      value: null,
      findings: [{ path: "", message: `Not valid JSON: ${(err as Error).message}`, severity: "error" }],
      identity: [],
      validity: null,
      savable: false,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = kind === "afc" ? "an AFC tap" : "a GeoJSON Feature";
    return {
      value,
      findings: [{ path: "", message: `Must be ${what} (a JSON object)`, severity: "error" }],
      identity: [],
      validity: null,
      savable: false,
    };
  }
  const findings: Finding[] = [];
  if (kind === "afc") {
    const identity = identityChanges(original, value);
    if (identity.length) {
      const message = identityRefusal(identity, opts.key);
      for (const field of identity) findings.push({ path: field, message, severity: opts.override ? "warning" : "error" });
    }
    const gate = validateTap(value);
    if (!gate.ok)
      for (const e of gate.errors)
        findings.push({ path: e.path, message: `${e.message} (the tap will fail the gate again)`, severity: "warning" });
    return { value, findings, identity, validity: null, savable: identity.length === 0 || opts.override };
  }
  if (value.type !== "Feature")
    findings.push({
      path: "type",
      message: 'A GeoJSON Feature has "type": "Feature" (the server refuses anything else)',
      severity: "error",
    });
  const validity = liveValidity(value.geometry ?? null);
  if (validity.valid === false) {
    findings.push({
      path: "geometry",
      message: `Invalid: ${validity.reason}. On save the server repairs it with the source's method and policy.`,
      severity: "warning",
    });
  } else if (validity.valid === null) {
    findings.push({
      path: "geometry",
      message: `${validity.reason ?? "Not a geometry"}: the record stays poison (nothing can be replayed)`,
      severity: "error",
    });
  }
  // A bad geometry saves (the record then says why it is poison); a payload that is not a Feature does not.
  return { value, findings, identity: [], validity, savable: value.type === "Feature" };
}
