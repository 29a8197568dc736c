import type { z } from "zod";

// What a broker type is to everyone who configures or shows its sources: its options and URL rule, where its
// dead letters go back to (as text for `options.destinations`, as terms for the record page), its options in a
// few words, and the fields of the add form and the CLI. Pure and client-safe: the connector that reaches the
// broker is the server registry's (registry.server.ts). Each type's folder exports one; registry.ts lists them.

/** One term of where a message was going, in the broker's own words (the record page's Origin panel). */
export interface DestinationPart {
  term: string;
  value: string;
  /** context rather than the address itself */
  minor?: boolean;
}

/** One option in the add form and its `redrive source` flag. */
export interface SourceOptionField {
  /** the option's name: the body's options.<name> */
  name: string;
  label: string;
  /** shown under the field; per mode when it differs */
  hint?: string | Readonly<Record<string, string>>;
  /**
   * How the typed text is sent: optional (trimmed; blank leaves it out, so its default applies or it stays unset),
   * required (trimmed; blank sent as "" for the schema to name), verbatim (as typed: the schema judges white space),
   * number (as a number; text that is not one as typed, for the schema to name; blank left out)
   */
  value: "optional" | "required" | "verbatim" | "number";
  min?: number;
  /** what the field holds before anyone types ("" unless given) */
  initial?: string;
  /** `redrive source add|update`'s flag for it (the option's name in kebab case): its argument and this type's help */
  cli: { arg: string; help: string };
  /** holds a URL that may carry credentials: sealed at rest like the source's URL, shown redacted (sealed-options.ts) */
  sealed?: boolean;
  /** shown, and sent, only in this mode of the type (modes below) */
  mode?: string;
}

export interface SourceForm {
  /** a paragraph above the fields */
  note?: string;
  /** ways the type can be set up, one chosen with radio buttons; each mode's fields are `mode`d */
  modes?: { label: string; choices: readonly { name: string; label: string; description: string }[] };
  /** the fields, a row per grid of `columns` */
  rows: readonly { columns: 1 | 2 | 3; fields: readonly SourceOptionField[] }[];
}

export interface SourceConfigPlug<T extends string, O extends z.ZodObject, D extends { type: T }> {
  type: T;
  /** its name on the page ("RabbitMQ") */
  label: string;
  /** where such a source's dead letters wait, with its article ("a RabbitMQ queue"): the /sources page and the API say what a source can be with these */
  location: string;
  /** the URL field's placeholder */
  urlPlaceholder: string;
  /** the options its connector takes (every type also takes `destinations`, added by the registry) */
  options: O;
  /** why `url` cannot reach such a broker (scheme, host, encoding), or ok; never repeats a password */
  urlRule(url: string): { ok: true } | { ok: false; message: string };
  /** where its dead letters go back to, as stored in origin.destination, read leniently for the record page */
  destination: z.ZodType<D>;
  /** that destination as text, as `options.destinations` patterns see it (one or more) */
  destinationTexts(d: D): string[];
  /** that destination in the broker's terms, for the record page */
  destinationParts(d: D): DestinationPart[];
  /** the options that say where the dead letters are read, in a few words each */
  summary(options: Readonly<Record<string, unknown>>): string[];
  form: SourceForm;
  /** what the stored URL's user name and password are to this type, if not a user's ("the access key") */
  secretHint?: string;
  /** a create body's options given in this type's own terms, moved into the URL before parsing (SQS's queueUrl, key) */
  bodyIntoUrl?(body: unknown): unknown;
}

/** Any broker type's plug (methods are compared bivariantly, so each type's own destination fits). */
export type AnySourceConfigPlug = SourceConfigPlug<string, z.ZodObject, { type: string }>;
