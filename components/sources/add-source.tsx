"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { HttpError } from "@/lib/api/client";
import { CreateSourceBody, SOURCE_TYPES, sourceUrlProblem, type SourceType } from "@/lib/sources/source-schemas";
import { KINDS, type DeadLetterKind } from "@/lib/vocabulary/record";
import { useCreateSource, type CreateSourceRequest } from "./queries";
import { TYPE_LABEL } from "./source-text";

// "Add source" (admins): name, type, URL, kind and the type's options, checked in the browser with the schema
// the server applies (CreateSourceBody); what the server still refuses (a taken name, a 422) shows next to the
// field it names.

const URL_PLACEHOLDER: Record<SourceType, string> = {
  rabbitmq: "amqp://user:password@host:5672/vhost",
  nats: "nats://host:4222",
  redis: "redis://host:6379/0",
  kafka: "kafka://user:password@broker1:9092,broker2:9092",
  sqs: "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq",
};

/** Every option as typed, per type, so switching the type back and forth keeps what was typed. */
const INITIAL_OPTIONS = {
  queue: "",
  natsStream: "",
  natsConsumer: "",
  ackWaitMs: "30000",
  redisMode: "claim" as "claim" | "dlqStream",
  stream: "",
  group: "",
  minIdleMs: "60000",
  maxDeliveries: "3",
  dlqStream: "",
  dlqGroup: "redrive",
  consumer: "redrive",
  field: "body",
  gatePrefix: "redrive:gate:",
  kafkaTopic: "",
  kafkaGroup: "redrive",
  sqsRegion: "",
  sqsEndpoint: "",
  sourceQueueUrl: "",
  visibilityTimeoutSeconds: "60",
};
type OptionInputs = typeof INITIAL_OPTIONS;

/** A typed number, or the text itself (the schema then says it is not a number); blank leaves the default. */
const numberOf = (v: string): number | string | undefined => (v.trim() === "" ? undefined : Number.isFinite(Number(v)) ? Number(v) : v);
/** Blank leaves the option out: the schema's default applies, or the option is unset. */
const textOf = (v: string): string | undefined => (v.trim() === "" ? undefined : v.trim());

function optionsOf(type: SourceType, o: OptionInputs): Record<string, unknown> {
  const raw: Record<string, unknown> =
    type === "kafka"
      ? { topic: o.kafkaTopic.trim(), group: textOf(o.kafkaGroup) }
      : type === "rabbitmq"
        ? { queue: o.queue }
        : type === "nats"
          ? { stream: o.natsStream.trim(), consumer: textOf(o.natsConsumer), ackWaitMs: numberOf(o.ackWaitMs) }
          : type === "sqs"
            ? {
                region: textOf(o.sqsRegion),
                endpoint: textOf(o.sqsEndpoint),
                sourceQueueUrl: textOf(o.sourceQueueUrl),
                visibilityTimeoutSeconds: numberOf(o.visibilityTimeoutSeconds),
              }
            : {
                stream: o.stream.trim(),
                group: o.group.trim(),
                ...(o.redisMode === "claim"
                  ? { minIdleMs: numberOf(o.minIdleMs), maxDeliveries: numberOf(o.maxDeliveries) }
                  : { dlqStream: o.dlqStream.trim(), dlqGroup: textOf(o.dlqGroup) }),
                consumer: textOf(o.consumer),
                field: textOf(o.field),
                gatePrefix: textOf(o.gatePrefix),
              };
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
}

/** Issues by field path ("name", "options.stream"); the first one per field. */
export function byPath(issues: readonly { path: string; message: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of issues) if (!out.has(i.path)) out.set(i.path, i.message);
  return out;
}

export function serverIssues(err: unknown): { path: string; message: string }[] {
  if (!(err instanceof HttpError) || typeof err.body !== "object" || err.body === null || !("error" in err.body)) return [];
  const inner = err.body.error;
  if (typeof inner !== "object" || inner === null || !("issues" in inner) || !Array.isArray(inner.issues)) return [];
  return inner.issues.filter(
    (i): i is { path: string; message: string } =>
      typeof i === "object" && i !== null && typeof i.path === "string" && typeof i.message === "string",
  );
}

const inputClass = "block w-full rounded border px-2 py-1 text-sm";

/** What a source's messages are: the Kind field of the add and edit forms. */
export function KindField({
  kind,
  onChange,
  problem,
}: {
  kind: DeadLetterKind;
  onChange: (kind: DeadLetterKind) => void;
  problem: string | undefined;
}) {
  return (
    <Field label="Kind" problem={problem} hint="What its messages are: spatial envelopes or AFC taps.">
      {(p) => (
        <select {...p} value={kind} onChange={(e) => onChange(e.target.value as DeadLetterKind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k === "afc" ? "AFC taps" : "spatial envelopes"}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function Field({
  label,
  hint,
  problem,
  children,
  className = "",
}: {
  label: string;
  hint?: string;
  problem: string | undefined;
  children: (props: { id: string; "aria-invalid": boolean; "aria-describedby": string | undefined; className: string }) => React.ReactNode;
  className?: string;
}) {
  const id = useId();
  const described = [problem ? `${id}-problem` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`space-y-0.5 ${className}`}>
      <label htmlFor={id} className="block text-xs font-medium text-slate-700 dark:text-slate-300">
        {label}
      </label>
      {children({
        id,
        "aria-invalid": problem !== undefined,
        "aria-describedby": described,
        className: `${inputClass} ${problem ? "border-red-400 dark:border-red-600" : "border-slate-300 dark:border-slate-600"}`,
      })}
      {problem && (
        <p id={`${id}-problem`} className="text-xs text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      )}
    </div>
  );
}

function AddSourceForm({ onDone }: { onDone: () => void }) {
  const create = useCreateSource();
  const [name, setName] = useState("");
  const [type, setType] = useState<SourceType>("rabbitmq");
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<DeadLetterKind>("spatial");
  const [enabled, setEnabled] = useState(true);
  const [o, setO] = useState<OptionInputs>(INITIAL_OPTIONS);
  // Problems show once the admin tried to add, and follow the fields from then on.
  const [attempted, setAttempted] = useState(false);
  // What the server refused: its issues by field, and its message when it named no field (a broker, a conflict).
  const [refused, setRefused] = useState<{ issues: Map<string, string>; message: string | null } | null>(null);

  const body = { name, type, url, kind, enabled, options: optionsOf(type, o) } as CreateSourceRequest;
  const checked = CreateSourceBody.safeParse(body);
  const client = byPath(checked.success ? [] : checked.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  // The URL rule runs after the fields' own rules pass; checked here as well so it shows with the others.
  const urlProblem = url.trim() === "" ? undefined : (sourceUrlProblem(type, url.trim()) ?? undefined);
  if (urlProblem && !client.has("url")) client.set("url", urlProblem);

  const problem = (path: string) => refused?.issues.get(path) ?? (attempted ? client.get(path) : undefined);
  /** Editing a field takes back what the server said about it. */
  const edited = (...paths: string[]) => {
    if (refused && paths.some((p) => refused.issues.has(p))) {
      const issues = new Map(refused.issues);
      for (const p of paths) issues.delete(p);
      setRefused({ ...refused, issues });
    }
  };
  const option = (key: keyof OptionInputs, path: string) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setO((prev) => ({ ...prev, [key]: e.target.value }));
    edited(path);
  };

  const fieldPaths = new Set([
    "name",
    "type",
    "url",
    "kind",
    ...(type === "kafka"
      ? ["options.topic", "options.group"]
      : type === "rabbitmq"
        ? ["options.queue"]
        : type === "nats"
          ? ["options.stream", "options.consumer", "options.ackWaitMs"]
          : type === "sqs"
            ? ["options.region", "options.endpoint", "options.sourceQueueUrl", "options.visibilityTimeoutSeconds"]
            : [
                "options.stream",
                "options.group",
                ...(o.redisMode === "claim" ? ["options.minIdleMs", "options.maxDeliveries"] : ["options.dlqStream", "options.dlqGroup"]),
                "options.consumer",
                "options.field",
                "options.gatePrefix",
              ]),
  ]);
  const shown = new Map([...(attempted ? client : []), ...(refused?.issues ?? [])]);
  const elsewhere = [...shown].filter(([path]) => !fieldPaths.has(path));

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setAttempted(true);
    setRefused(null);
    if (!checked.success || urlProblem) return;
    create.mutate(body, {
      onSuccess: onDone,
      onError: (err) => {
        const issues = byPath(serverIssues(err));
        setRefused({ issues, message: issues.size === 0 ? err.message : null });
      },
    });
  }

  const optionField = (
    key: keyof OptionInputs,
    path: string,
    label: string,
    extra: { hint?: string; type?: string; min?: number } = {},
  ) => (
    <Field label={label} hint={extra.hint} problem={problem(path)}>
      {(p) => <input {...p} type={extra.type ?? "text"} min={extra.min} value={String(o[key])} onChange={option(key, path)} />}
    </Field>
  );

  return (
    <form onSubmit={submit} noValidate className="space-y-3 text-sm">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" problem={problem("name")} hint="Letters, digits, '.', '_' or '-'. Records keep it as their origin.">
          {(p) => (
            <input
              {...p}
              autoFocus
              value={name}
              maxLength={64}
              onChange={(e) => {
                setName(e.target.value);
                edited("name");
              }}
              placeholder="e.g. parcels-dlq"
            />
          )}
        </Field>
        <Field label="Type" problem={problem("type")}>
          {(p) => (
            <select
              {...p}
              value={type}
              onChange={(e) => {
                setType(e.target.value as SourceType);
                edited("type", "url");
              }}
            >
              {SOURCE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TYPE_LABEL[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="URL"
          problem={problem("url")}
          hint="Stored sealed; shown afterwards with its password hidden."
          className="sm:col-span-2"
        >
          {(p) => (
            <input
              {...p}
              value={url}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => {
                setUrl(e.target.value);
                edited("url");
              }}
              placeholder={URL_PLACEHOLDER[type]}
            />
          )}
        </Field>
        <KindField kind={kind} onChange={setKind} problem={problem("kind")} />
        <label className="flex items-center gap-2 self-center text-sm">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Workers pull it at once (else it starts
          paused)
        </label>
      </div>

      <fieldset className="space-y-3 rounded border border-slate-200 dark:border-slate-700 p-3">
        <legend className="px-1 text-xs font-medium text-slate-600 dark:text-slate-300">{TYPE_LABEL[type]} options</legend>
        {type === "rabbitmq" &&
          optionField("queue", "options.queue", "Dead-letter queue", { hint: "The queue dead letters are routed to." })}
        {type === "nats" && (
          <div className="grid gap-3 sm:grid-cols-3">
            {optionField("natsStream", "options.stream", "Stream", { hint: "Whose consumers' dead letters to pull." })}
            {optionField("natsConsumer", "options.consumer", "Consumer", { hint: "Blank: every consumer of the stream." })}
            {optionField("ackWaitMs", "options.ackWaitMs", "Ack wait (ms)", { type: "number", min: 100 })}
          </div>
        )}
        {type === "kafka" && (
          <div className="grid gap-3 sm:grid-cols-2">
            {optionField("kafkaTopic", "options.topic", "Dead-letter topic", {
              hint: "Where Spring's recoverer or Kafka Connect writes the failed records.",
            })}
            {optionField("kafkaGroup", "options.group", "Redrive's consumer group", {
              hint: "Its committed offsets say how far Redrive has stored.",
            })}
          </div>
        )}
        {type === "sqs" && (
          <>
            <p className="text-xs text-slate-500 dark:text-slate-400">
              The URL is the dead-letter queue&apos;s. Credentials come from the AWS chain (environment, profile, instance role), or from an
              access key in the URL: https://AKID:SECRET@host/account/queue (the secret %-encoded).
            </p>
            <div className="grid gap-3 sm:grid-cols-2">
              {optionField("sqsRegion", "options.region", "Region", { hint: "Blank: the one the URL's host names." })}
              {optionField("sqsEndpoint", "options.endpoint", "Endpoint", { hint: "An SQS-compatible server; blank: the URL's host." })}
              {optionField("sourceQueueUrl", "options.sourceQueueUrl", "Source queue URL", {
                hint: "Where dead letters go back when SQS does not name their queue.",
              })}
              {optionField("visibilityTimeoutSeconds", "options.visibilityTimeoutSeconds", "Visibility timeout (s)", {
                type: "number",
                min: 10,
              })}
            </div>
          </>
        )}
        {type === "redis" && (
          <>
            <div role="radiogroup" aria-label="Where the dead letters are" className="flex flex-wrap gap-x-4 gap-y-1">
              <label>
                <input
                  type="radio"
                  name="redis-mode"
                  checked={o.redisMode === "claim"}
                  onChange={() => setO((prev) => ({ ...prev, redisMode: "claim" }))}
                />{" "}
                Claimed from the application&apos;s group
              </label>
              <label>
                <input
                  type="radio"
                  name="redis-mode"
                  checked={o.redisMode === "dlqStream"}
                  onChange={() => setO((prev) => ({ ...prev, redisMode: "dlqStream" }))}
                />{" "}
                Read from a dead-letter stream
              </label>
            </div>
            <p className="text-xs text-slate-500 dark:text-slate-400">
              {o.redisMode === "claim"
                ? "Redrive claims the entries the group's consumers failed too often (delivered at least that many times, idle at least that long)."
                : "Producers already copy dead entries to a stream of their own; Redrive reads it through a group of its own."}
            </p>
            <div className="grid gap-3 sm:grid-cols-2">
              {optionField("stream", "options.stream", "Application stream", {
                hint: o.redisMode === "claim" ? "Where the entries are consumed." : "Where entries go back unless they name their own.",
              })}
              {optionField("group", "options.group", "Application group")}
              {o.redisMode === "claim" ? (
                <>
                  {optionField("maxDeliveries", "options.maxDeliveries", "Dead after (deliveries)", { type: "number", min: 1 })}
                  {optionField("minIdleMs", "options.minIdleMs", "Idle at least (ms)", { type: "number", min: 0 })}
                </>
              ) : (
                <>
                  {optionField("dlqStream", "options.dlqStream", "Dead-letter stream")}
                  {optionField("dlqGroup", "options.dlqGroup", "Redrive's group on it")}
                </>
              )}
            </div>
            <div className="grid gap-3 sm:grid-cols-3">
              {optionField("consumer", "options.consumer", "Redrive's consumer name")}
              {optionField("field", "options.field", "Body field", { hint: "The entry field holding the message." })}
              {optionField("gatePrefix", "options.gatePrefix", "Gate key prefix", { hint: "Remembers what was published back." })}
            </div>
          </>
        )}
      </fieldset>

      {(elsewhere.length > 0 || refused?.message) && (
        <ul
          role="alert"
          className="list-disc rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 py-2 pl-6 pr-3 text-red-800 dark:text-red-200"
        >
          {refused?.message && <li>{refused.message}</li>}
          {elsewhere.map(([path, message]) => (
            <li key={path}>
              {path}: {message}
            </li>
          ))}
        </ul>
      )}
      <div className="flex items-center justify-end gap-2">
        {shown.size > elsewhere.length && (
          <span className="mr-auto text-xs text-red-700 dark:text-red-300">Fix the fields marked in red.</span>
        )}
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add source"}
        </Button>
      </div>
    </form>
  );
}

/** The "Add source" button and its dialog. */
export function AddSource() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        Add source
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Add a broker source" wide>
        <AddSourceForm onDone={() => setOpen(false)} />
      </Dialog>
    </>
  );
}
