import { z } from "zod";

// What a sink type is to everyone who only configures or shows it: its request schema, its name in lists and
// forms, one line describing a configured one, and what it asks of the records it takes. Pure and client-safe;
// what stores, checks and opens a sink is its server plug (sink-plug.server.ts). Each type's folder exports one
// of each, and registry.ts lists them.

/** The flags of `redrive replay create`, as commander read them (strings, a header record). */
export type SinkFlags = Readonly<Record<string, unknown>>;
/** Reads a numeric flag: undefined when absent; a usage error (naming the flag) when it is not a number. */
export type FlagNumber = (value: unknown, flag: string) => number | undefined;

export interface SinkConfigPlug<T extends string, S extends z.ZodObject, V extends { type: T }> {
  type: T;
  /** its name in the replay form's type list */
  label: string;
  /** what it does, shown under the replay form's type list when it is chosen */
  help: string;
  /** `redrive replay create --sink`'s help for it */
  cliHelp: string;
  /** what `--url` is to it, if it takes one (`redrive replay create --url`'s help: "<type> sink: <this>") */
  urlHelp?: string;
  /** what a supervisor sends (the API, the CLI and the form parse with it) */
  schema: S;
  /** its settings in the replay form, under the type list (a sink whose body is its type alone has none) */
  form?: SinkForm;
  /** its own flags of `redrive replay create` (and of `redrive sink check`, if it has one), besides the shared --url */
  flags?: readonly SinkFlag[];
  /** the sink's body from `redrive replay create`'s flags (undefined fields are dropped, so defaults apply) */
  fromFlags(flags: SinkFlags, num: FlagNumber): Record<string, unknown>;
  /**
   * `redrive sink check --type <it>` inspects its target (its server plug's `inspect`, lib/cli/commands/sink.ts): what
   * the check says, in the command's description ("PostGIS: version, columns, key table, problems")
   */
  checkCommand?: string;
  /** what `redrive replay create` says before the (slow) check of a target, if it checks one */
  checking?(config: z.output<S>): string;
  /** a configured sink in words, from its view (secrets redacted) */
  describe: SinkWords<V>;
  /** where a replayed record's page says it went ("Replayed in batch #7 with structure / accept to <this>") */
  replayedTo: string;
  /** takes spatial features only: a selection holding AFC taps is refused */
  spatialOnly: boolean;
  /** sends each record back where it was pulled from: records without an origin are left out */
  needsOrigin: boolean;
  /**
   * what a record's timeline names as having settled its key ("Settled in the ledger by replay batch 7 (HTTP
   * sink)"), when its ledger entry's origin is this type: every remote sink records its type there. Null only for
   * the built-in ledger, which settles in Redrive's own transaction and records "replay". Required, so a new sink
   * says which it is.
   */
  settledBy: string | null;
}

/** One of a sink's own CLI flags: what commander reads (fromFlags takes it by commander's name for it) and its help. */
export interface SinkFlag {
  /** as commander spells it: "--table <name>" */
  flag: string;
  /** the sink body's field it sets: an error on `sink.<field>` names the flag */
  field: string;
  /** its help (`redrive replay create` puts "<type> sink: " before it) */
  help: string;
  /** repeatable "Name: value", read into a record of headers */
  headers?: true;
}

/** One setting in the replay form: its text becomes the sink body's `<name>`. */
export interface SinkFormField {
  name: string;
  label: string;
  /**
   * How the typed text is sent: text (as typed: the schema judges it), optional (trimmed; blank leaves it out, so
   * its default applies or it stays unset), number (Number(text), for the schema to judge), header-lines ("Name:
   * value" per line, a record of headers; none leaves it out; a line without a colon is a problem, not a header)
   */
  value: "text" | "optional" | "number" | "header-lines";
  /** an http(s) URL: the browser's URL field */
  url?: boolean;
  required?: boolean;
  min?: number;
  max?: number;
  placeholder?: string;
  /** what the field holds before anyone types ("" unless given) */
  initial?: string;
  /** takes the whole row */
  wide?: boolean;
  /** may hold a password: the browser neither fills it in nor spell-checks it */
  secret?: boolean;
}

export interface SinkForm {
  /** a paragraph above the fields */
  note?: string;
  /** after "This selection holds N AFC taps: ", for a spatialOnly sink given a selection holding taps */
  afcNotice?: string;
  /** two to a row, a wide one alone */
  fields: readonly SinkFormField[];
}

export interface SinkWords<V> {
  /** `redrive replay show` */
  cli(view: V): string;
  /** the batch list's Sink column */
  short(view: V): string;
  /** the batch page's Sink entry */
  detail(view: V): string;
}

/** Any sink type's plug (methods are compared bivariantly, so each type's own view fits). */
export type AnySinkConfigPlug = SinkConfigPlug<string, z.ZodObject, { type: string }>;

type SchemasOf<P extends readonly AnySinkConfigPlug[]> = { -readonly [K in keyof P]: P[K]["schema"] };

/** The request schema of every sink in `plugs`, told apart by `type`. */
export function sinkSchemaOf<const P extends readonly [AnySinkConfigPlug, ...AnySinkConfigPlug[]]>(plugs: P) {
  return z.discriminatedUnion("type", plugs.map((p) => p.schema) as unknown as SchemasOf<P>);
}
