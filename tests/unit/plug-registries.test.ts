import { Command } from "commander";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { initialInputs, optionsOf, sourceTypeChoices } from "../../components/sources/source-form";
import { sinkChoices } from "../../components/replay/preview-for-sink";
import { initialSinkInputs, sinkBodyOf, sinkInputKey } from "../../components/replay/sink-form";
import { SinkFields } from "../../components/replay/sink-fields";
import { OriginPanel } from "../../components/dead-letters/detail/origin-panel";
import { ReplayedWith } from "../../components/dead-letters/detail/repair-choice";
import { registerReplayCommands } from "../../lib/cli/commands/replay";
import { registerSinkCommands } from "../../lib/cli/commands/sink";
import { registerSourceCommands } from "../../lib/cli/commands/sources";
import { createBatchBodyWith } from "../../lib/replay/batch/batch-schemas";
import { SINKS, urlHelp } from "../../lib/replay/sinks/registry";
import { SERVER_SINKS } from "../../lib/replay/sinks/registry.server";
import { sinkSchemaOf, type AnySinkConfigPlug, type SinkConfigPlug } from "../../lib/replay/sinks/sink-plug";
import { SOURCES, sourceLocations, sourcePlug } from "../../lib/sources/registry";
import type { SourceConfigPlug } from "../../lib/sources/source-plug";
import { createSourceBodyOf } from "../../lib/sources/source-schemas";

// Adding a sink or a broker type is its folder and one registry line: a type registered here (as a test's own
// registry) reaches the API's schema, the CLI's help and flags, and the form's type list and fields, with nothing
// else edited.

const QueueSinkSchema = z.strictObject({ type: z.literal("fixture-queue"), queue: z.string().min(1), priority: z.string().optional() });
const fixtureSink: SinkConfigPlug<"fixture-queue", typeof QueueSinkSchema, { type: "fixture-queue"; queue: string }> = {
  type: "fixture-queue",
  label: "Fixture queue",
  help: "Fixture queue: each record is put on a queue.",
  cliHelp: "fixture-queue (a test's queue)",
  urlHelp: "the queue's name",
  schema: QueueSinkSchema,
  form: {
    note: "Records are put on the queue in order.",
    fields: [
      { name: "queue", label: "Queue name", value: "text", required: true, initial: "replays" },
      { name: "priority", label: "Priority", value: "optional", placeholder: "optional" },
    ],
  },
  flags: [{ flag: "--priority <p>", field: "priority", help: "the queue's priority" }],
  fromFlags: (o) => ({ type: "fixture-queue", queue: o.url, priority: o.priority }),
  describe: { cli: (v) => `queue ${v.queue}`, short: (v) => v.queue, detail: (v) => `queue ${v.queue}` },
  replayedTo: "the fixture queue",
  spatialOnly: false,
  needsOrigin: false,
  settledBy: "fixture queue",
};

const FixtureOptions = z.strictObject({ mailbox: z.string().min(1) });
const FixtureDestination = z.object({ type: z.literal("fixture-mq"), mailbox: z.string() });
const fixtureSource: SourceConfigPlug<"fixture-mq", typeof FixtureOptions, z.output<typeof FixtureDestination>> = {
  type: "fixture-mq",
  label: "Fixture MQ",
  location: "a fixture mailbox",
  urlPlaceholder: "fmq://host",
  options: FixtureOptions,
  urlRule: (url) => (url.startsWith("fmq://") ? { ok: true } : { ok: false, message: "must be an fmq:// URL" }),
  destination: FixtureDestination,
  destinationTexts: (d) => [d.mailbox],
  destinationParts: (d) => [{ term: "mailbox", value: d.mailbox }],
  summary: (o) => [`mailbox ${String(o.mailbox)}`],
  form: {
    rows: [
      {
        columns: 1,
        fields: [
          { name: "mailbox", label: "Mailbox", value: "required", initial: "dlq", cli: { arg: "<name>", help: "the dead-letter mailbox" } },
        ],
      },
    ],
  },
};

describe("a sink registered in one line", () => {
  const plugs = [...SINKS, fixtureSink] as const;

  it("is in the API's create-batch schema and its OpenAPI form", () => {
    const body = createBatchBodyWith(sinkSchemaOf(plugs));
    expect(body.parse({ ids: ["1"], ratePerSecond: 5, sink: { type: "fixture-queue", queue: "q1" } }).sink).toEqual({
      type: "fixture-queue",
      queue: "q1",
    });
    expect(body.safeParse({ ids: ["1"], ratePerSecond: 5, sink: { type: "fixture-queue" } }).success).toBe(false);
    expect(JSON.stringify(z.toJSONSchema(body, { io: "input", unrepresentable: "any" }))).toContain('"fixture-queue"');
  });

  it("is in the CLI's help, and its flags make its body", () => {
    const program = new Command();
    registerReplayCommands(program, plugs);
    const create = program.commands.find((c) => c.name() === "replay")?.commands.find((c) => c.name() === "create");
    const help = (create?.helpInformation() ?? "").replace(/\s+/g, " ");
    expect(help).toContain("fixture-queue (a test's queue)");
    expect(help).toContain(
      "--url <url> http sink: where to POST; postgis sink: postgresql://user:password@host:port/database; fixture-queue sink: the queue's name",
    );
    expect(help).toContain("--priority <p> fixture-queue sink: the queue's priority --page-size");
    expect(urlHelp()).not.toContain("fixture-queue");
    expect(fixtureSink.fromFlags({ url: "q2" }, () => undefined)).toEqual({ type: "fixture-queue", queue: "q2" });
  });

  const sinkCheck = (plugs: readonly AnySinkConfigPlug[]) => {
    const program = new Command().exitOverride();
    registerSinkCommands(program, plugs);
    const check = program.commands.find((c) => c.name() === "sink")?.commands.find((c) => c.name() === "check");
    return { program, help: (check?.helpInformation() ?? "").replace(/\s+/g, " ") };
  };

  it("with a check of its target, is in `redrive sink check` with its flags, its body read by its own schema", async () => {
    expect(sinkCheck(SINKS).help).toContain("--type <type> the sink type: postgis --url <url> postgresql://");
    expect(sinkCheck(SINKS).help).toContain("--table <name> the table, schema.table");

    const checked = { ...fixtureSink, checkCommand: "Fixture: the queue's depth" };
    const { program, help } = sinkCheck([...SINKS, checked]);
    expect(help).toContain("(PostGIS: version, columns, key table, problems; Fixture: the queue's depth)");
    expect(help).toContain("--type <type> the sink type: postgis | fixture-queue");
    expect(help).toContain("--url <url> postgis sink: postgresql://user:password@host:port/database; fixture-queue sink: the queue's name");
    expect(help).toContain("--table <name> postgis sink: the table, schema.table");
    expect(help).toContain("--priority <p> fixture-queue sink: the queue's priority");
    await expect(program.parseAsync(["sink", "check", "--type", "fixture-queue"], { from: "user" })).rejects.toThrow(/^--queue: /);
  });

  it("is checked by its server plug exactly when its config plug says it has a check", () => {
    for (const p of SINKS as readonly AnySinkConfigPlug[]) {
      const server = SERVER_SINKS[p.type as keyof typeof SERVER_SINKS] as { inspect?: unknown };
      expect(p.checkCommand !== undefined, p.type).toBe(server.inspect !== undefined);
    }
  });

  it("is in the replay form's type list", () => {
    expect(sinkChoices(plugs)).toContainEqual({ type: "fixture-queue", label: "Fixture queue" });
    expect(sinkChoices().map((c) => c.type)).toEqual(["ledger", "http", "origin", "postgis"]);
  });

  it("has its fields drawn in the replay form, and what is typed there makes its body", () => {
    const inputs = { ...initialSinkInputs(plugs), [sinkInputKey("fixture-queue", fixtureSink.form!.fields[1]!)]: "  " };
    const html = renderToStaticMarkup(createElement(SinkFields, { plug: fixtureSink, inputs, onInput: () => {}, afcTaps: 0 })).replaceAll(
      "<!-- -->",
      "",
    );
    expect(html).toContain('data-testid="fixture-queue-sink"');
    expect(html).toContain("Records are put on the queue in order.");
    const input = (label: string) => html.match(new RegExp(`<label[^>]*>${label} <input([^>]*)/>`))?.[1] ?? "";
    expect(input("Queue name")).toContain('value="replays"');
    expect(input("Queue name")).toContain('required=""');
    expect(input("Priority")).toContain('placeholder="optional"');

    const { sink, problems } = sinkBodyOf(fixtureSink, inputs);
    expect(sink).toEqual({ type: "fixture-queue", queue: "replays" });
    expect(problems).toEqual([]);
    const body = createBatchBodyWith(sinkSchemaOf(plugs));
    expect(body.parse({ ids: ["1"], ratePerSecond: 5, sink }).sink).toEqual({ type: "fixture-queue", queue: "replays" });
  });
});

describe("a broker type registered in one line", () => {
  const plugs = [...SOURCES, fixtureSource] as const;
  const body = { name: "fx", type: "fixture-mq", url: "fmq://host", kind: "spatial", options: { mailbox: "dlq" } };

  it("is in the API's create-source schema, its URL rule applied, and its OpenAPI form", () => {
    const schema = createSourceBodyOf(plugs);
    expect(schema.parse(body)).toMatchObject({ type: "fixture-mq", options: { mailbox: "dlq" }, enabled: true });
    expect(schema.safeParse({ ...body, url: "amqp://host" }).error?.issues).toEqual([
      expect.objectContaining({ path: ["url"], message: "must be an fmq:// URL" }),
    ]);
    expect(schema.safeParse({ ...body, options: { mailbox: "dlq", destinations: ["a*"] } }).success).toBe(true);
    expect(JSON.stringify(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }))).toContain('"fixture-mq"');
  });

  it("is in the CLI's help with its option flag", () => {
    const program = new Command();
    registerSourceCommands(program, plugs);
    const add = program.commands.find((c) => c.name() === "source")?.commands.find((c) => c.name() === "add");
    const help = (add?.helpInformation() ?? "").replace(/\s+/g, " ");
    expect(help).toContain("rabbitmq | nats | redis | kafka | sqs | fixture-mq");
    expect(help).toContain("--mailbox <name> fixture-mq: the dead-letter mailbox");
  });

  it("is among what a source can be, on the /sources page and in the API's summary", () => {
    expect(sourceLocations(plugs)).toMatch(/^a RabbitMQ queue, .* or a fixture mailbox$/);
  });

  it("is in the add form's type list, with its fields and their options body", () => {
    expect(sourceTypeChoices(plugs)).toContainEqual({ type: "fixture-mq", label: "Fixture MQ" });
    const { inputs, modes } = initialInputs(plugs);
    expect(optionsOf(fixtureSource, inputs, modes["fixture-mq"])).toEqual({ mailbox: "dlq" });
  });
});

describe("a record's page names its sink and its broker as their plugs do", () => {
  const html = (el: Parameters<typeof renderToStaticMarkup>[0]) => renderToStaticMarkup(el).replaceAll("<!-- -->", "");
  const replay = {
    batchId: "7",
    itemId: "9",
    outcome: "applied" as const,
    submittedAt: "",
    repair: null,
    geometry: null,
    geometryOmitted: false,
  };

  it.each(SINKS.map((p) => [p.type, p.replayedTo] as const))("replayed to the %s sink: %s", (type, words) => {
    expect(html(createElement(ReplayedWith, { replay: { ...replay, sink: type }, approved: null }))).toContain(`to ${words} (applied)`);
  });

  it("pulled from a broker source: the type's label", () => {
    const origin = { source: "parcels-dlq", sourceType: "redis", destination: { type: "redis", stream: "parcels", field: "body" } };
    expect(html(createElement(OriginPanel, { origin }))).toContain(`· ${sourcePlug("redis").label} ·`);
  });
});
