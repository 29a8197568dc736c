import type { RuleVersionView } from "./rule-schemas";

// What a rule version changes from another: the approval view shows the second supervisor what is new in the version
// they approve (match, action, standing replay), field by field. Pure and client-safe.

/** One field that differs: its dotted path (match.repair.maxAreaChange) and its text before and after; null: not set. */
export interface RuleFieldChange {
  field: string;
  before: string | null;
  after: string | null;
}

type Compared = Pick<RuleVersionView, "version" | "match" | "action" | "replay">;

/** A value as the approver reads it: text as it is, lists comma-separated, anything else as JSON. */
function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(text).join(", ");
  return JSON.stringify(v);
}

/** Fields the API keeps as fractions and the editor asks for in per cent: said both ways ("1% (0.01)"). */
const FRACTIONS = /\.(maxAreaChange|maxFailureRate)$/;

/** Leaves of `value` by dotted path, in the order they appear; an array is one leaf. */
function leaves(value: unknown, path: string, into: Map<string, string>): Map<string, string> {
  if (value === undefined || value === null) return into;
  if (typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, `${path}.${k}`, into);
  } else if (typeof value === "number" && FRACTIONS.test(path)) into.set(path, `${Number((value * 100).toPrecision(12))}% (${value})`);
  else into.set(path, text(value));
  return into;
}

/**
 * The version's fields compared; a version without a standing replay has none of replay.*. The replay's words
 * (sinkText) are its sink's fields said again, so they are left out.
 */
function fields(v: Compared): Map<string, string> {
  const out = new Map<string, string>();
  leaves(v.match, "match", out);
  leaves(v.action, "action", out);
  if (v.replay) {
    const { sinkText: _words, ...replay } = v.replay;
    leaves(replay, "replay", out);
  }
  return out;
}

/** The fields `after` changes from `before`: set, changed or cleared, in the order `after` (then `before`) lists them. */
export function diffRuleVersions(before: Compared, after: Compared): RuleFieldChange[] {
  const a = fields(before);
  const b = fields(after);
  const paths = [...b.keys(), ...[...a.keys()].filter((k) => !b.has(k))];
  return paths.flatMap((field) => {
    const was = a.get(field) ?? null;
    const is = b.get(field) ?? null;
    return was === is ? [] : [{ field, before: was, after: is }];
  });
}

/**
 * The version a new one is compared with: the latest approved before it (what was in force, or last was), else the
 * one just before it; null for a first version.
 */
export function baseVersionOf<V extends Pick<RuleVersionView, "version" | "approvedAt">>(
  versions: readonly V[],
  version: number,
): V | null {
  const older = versions.filter((v) => v.version < version).sort((x, y) => y.version - x.version);
  return older.find((v) => v.approvedAt !== null) ?? older[0] ?? null;
}
