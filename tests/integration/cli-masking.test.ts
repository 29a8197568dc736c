import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUPS } from "../../lib/cli/groups";
import { closeDb, type Db } from "../../lib/db/client";
import { failureGroupId } from "../../lib/dead-letters/groups/group-id";
import { updateGroup } from "../../lib/dead-letters/groups/update-group";
import { luhnValid } from "../../lib/masking/mask";
import { importLedger } from "../../lib/replay/ledger/import-ledger";
import { approveRule, createRule, type RuleContext } from "../../lib/rules/rules";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { approve, ingest } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { runCli } from "./cli-run";
import { testDb } from "./helpers";

// Every `redrive` command, read from the CLI's own command groups (lib/cli/groups.ts): one that prints what the
// records hold — their keys, reasons, identifiers, a group's notes, a rule's match — is run here against records
// with card numbers planted in those fields, and its stdout (table and --json) holds none of them in clear, as the
// API's answers hold none (masking-every-field.test.ts). A command that prints no record data is named with why;
// a new command is neither, and fails the first test.

setTestAuthEnv();

/** A Luhn-valid 16-digit number per field, so a leak names the field it came from. */
function pan(n: number): string {
  const body = `4${String(n).padStart(14, "0")}`;
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error("unreachable");
}

const PLANTED = {
  tapEventId: pan(21),
  tapDeviceId: pan(22),
  tapReason: pan(23),
  tapPayload: pan(24),
  spatialKey: pan(25),
  spatialReason: pan(26),
  featureId: pan(27),
  groupNote: pan(28),
  ledgerKey: pan(29),
  sourceError: pan(30),
  rejectedKey: pan(31),
  ruleReason: pan(32),
};

const MASKED_TAIL = /•{12}\d{4}/;
const SOURCE = "cli-mask";

let db: Db;
let dir: string;
let analyst: string;
let supervisor: string;
const ids = { tap: "", spatial: "", batch: "", group: "", rule: "", batchRecord: "" };

function leaks(text: string): string[] {
  return Object.entries(PLANTED)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k);
}

/** A command run: its arguments, and whether its output must show a planted field (masked) at all. */
interface Probe {
  runs: () => string[][];
  /** the output carries a planted field: it must show masked (a probe that printed nothing proves nothing) */
  shows: boolean;
  /** the exit status (import exits 1 when it rejected a line) */
  code?: number;
}

const PROBES: Record<string, Probe | string> = {
  lookup: {
    runs: () => [
      ["lookup", ids.spatial],
      ["lookup", ids.spatial, "--json"],
      ["lookup", ids.tap],
      // a key that is both a record's and the ledger's
      ["lookup", `key-${PLANTED.spatialKey}`, "--json"],
    ],
    shows: true,
  },
  export: {
    runs: () => [
      ["export", "--format", "ndjson", "--source", SOURCE],
      ["export", "--format", "csv", "--source", SOURCE],
    ],
    shows: true,
  },
  "group list": {
    runs: () => [
      ["group", "list", "--source", SOURCE],
      ["group", "list", "--source", SOURCE, "--json"],
    ],
    shows: true,
  },
  "group show": {
    runs: () => [
      ["group", "show", ids.group],
      ["group", "show", ids.group, "--json"],
    ],
    shows: true,
  },
  "group note": { runs: () => [["group", "note", ids.group, "seen again", "--as", analyst]], shows: true },
  "group acknowledge": "prints the group as group note does (applyChange), probed there",
  "group reopen": "prints the group as group note does (applyChange), probed there",
  "group ignore": "prints the group as group note does (applyChange), probed there",
  "group resolve": "prints the group as group note does (applyChange), probed there",
  "group assign": "prints the group as group note does (applyChange), probed there",
  "rule list": {
    runs: () => [
      ["rule", "list"],
      ["rule", "list", "--json"],
    ],
    shows: true,
  },
  "rule show": {
    runs: () => [
      ["rule", "show", ids.rule],
      ["rule", "show", ids.rule, "--json"],
    ],
    shows: true,
  },
  "rule dry-run": { runs: () => [["rule", "dry-run", ids.rule, "--as", supervisor, "--json"]], shows: false },
  "rule create": "prints the new rule as rule show does (ruleTable, print)",
  "rule approve": "prints the rule as rule show does (ruleTable, print)",
  "rule disable": "prints the rule as rule show does (ruleTable, print)",
  "rule resume": "prints the rule as rule show does (ruleTable, standingText, print)",
  "rule apply": "prints the job as rule dry-run does (jobText, print)",
  "replay create": {
    runs: () => [["replay", "create", "--ids", `${ids.spatial},${ids.tap}`, "--rate", "10", "--preview"]],
    shows: true,
  },
  "replay status": {
    runs: () => [
      ["replay", "status", ids.batch],
      ["replay", "status", ids.batch, "--json"],
    ],
    shows: false,
  },
  "replay list": {
    runs: () => [
      ["replay", "list"],
      ["replay", "list", "--json"],
    ],
    shows: false,
  },
  "replay approve": "prints the batch as replay status does (print), with --json",
  "replay start": "prints the batch as replay status does (print), with --json",
  "replay pause": "prints the batch as replay status does (print), with --json",
  "replay resume": "prints the batch as replay status does (print), with --json",
  "replay cancel": "prints the batch as replay status does (print), with --json",
  "replay approval-limit": "a company-wide setting: a number",
  "source list": {
    runs: () => [
      ["source", "list"],
      ["source", "list", "--json"],
    ],
    shows: true,
  },
  "source pull": "prints counts (pulled, created, duplicates) through printAnswer; needs a live broker",
  "source test": "prints whether a broker answers and a count; needs a live broker",
  "source add": "writes a source; says so on stderr",
  "source update": "writes a source; says so on stderr",
  "source pause": "writes a source; says so on stderr",
  "source resume": "writes a source; says so on stderr",
  "source remove": "writes a source; says so on stderr",
  import: { runs: () => [["import", join(dir, "import.ndjson"), "--results"]], shows: true, code: 1 },
  "ledger import": "prints counts (imported, alreadyKnown, invalid) through printAnswer; a bad line's message goes to stderr",
  "sink check": "a replay target's own table (a PostGIS sink), not the records; printed through printAnswer",
  worker: "runs batches; its log lines go through the masked console (lib/ops/masked-logs)",
  maintenance: "retention and alerts; its summary (counts) goes to stderr",
  "team list": "teams: names, members' e-mails and source names, printed through printAnswer",
  "team create": "teams: as team list",
  "team add-user": "teams: as team list",
  "team remove-user": "teams: as team list",
  "team add-source": "teams: as team list",
  "team remove-source": "teams: as team list",
  "user list": "accounts: e-mails and roles, printed through printLines",
  "user add": "prints the new password: a secret the operator must get exactly, not the records' data",
  "user set-password": "prints the new password: as user add",
  "token create": "prints the new API token: a secret the operator must get exactly",
  "token revoke": "revokes a token; says so on stderr",
  "audit verify": "the audit chain's verdict and head hash, which must be printed exactly",
  "audit checkpoint": "the signed head of the audit chain, which must be printed exactly",
  "afc hash": "a stdin tool: the operator's own input, hashed; reads no record",
  "afc validate": "a stdin tool: the operator's own input, validated; reads no record",
  "geometry repair": "a stdin tool: the operator's own input, repaired; reads no record",
  "db migrate": "migrations: no record",
  "db migrate-create": "migrations: no record",
  "db seed": "demo data: counts on stderr",
};

/** Every leaf command the CLI registers, as `group command` (or `command`). */
async function commands(): Promise<string[]> {
  const program = new Command("redrive");
  for (const group of GROUPS) (await group.load())(program);
  const out: string[] = [];
  const walk = (c: Command, prefix: string[]) => {
    for (const sub of c.commands) {
      const name = [...prefix, sub.name()];
      if (sub.commands.length > 0) walk(sub, name);
      else out.push(name.join(" "));
    }
  };
  walk(program, []);
  return out;
}

beforeAll(async () => {
  db = await testDb();
  dir = await mkdtemp(join(tmpdir(), "redrive-cli-mask-"));
  analyst = (await makeUser(db, "analyst")).email;
  const sup = await makeUser(db, "supervisor");
  const sup2 = await makeUser(db, "supervisor");
  supervisor = sup.email;
  const tapReason = `declined for card${PLANTED.tapReason}`;
  [ids.tap, ids.spatial, ids.batchRecord] = (await ingest(db, [
    JSON.stringify({
      kind: "afc",
      source: SOURCE,
      raw_payload: {
        event_id: PLANTED.tapEventId,
        device_id: PLANTED.tapDeviceId,
        fare_amount_cents: 250,
        tap_timestamp: "2026-11-05T08:00:00Z",
        note: `ref ${PLANTED.tapPayload}`,
      },
      failure_reason: tapReason,
    }),
    JSON.stringify({
      kind: "spatial",
      source: SOURCE,
      idempotency_key: `key-${PLANTED.spatialKey}`,
      observed_at: "2026-11-05T08:00:00Z",
      feature: {
        type: "Feature",
        id: PLANTED.featureId,
        properties: {},
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
              [0, 0],
            ],
          ],
        },
      },
      dead_letter_reason: `HTTP 422 for card${PLANTED.spatialReason}`,
    }),
    JSON.stringify({
      kind: "spatial",
      source: `${SOURCE}-batch`,
      idempotency_key: "batch-key-1",
      observed_at: "2026-11-05T08:00:00Z",
      feature: { type: "Feature", id: "b-1", properties: {}, geometry: { type: "Point", coordinates: [1, 1] } },
      dead_letter_reason: "HTTP 500",
    }),
  ])) as [string, string, string];
  const { rows } = await db.pool.query<{ reason_group: string }>("SELECT reason_group FROM dead_letter WHERE id = $1", [ids.tap]);
  const tapGroup = rows[0]!.reason_group;
  expect(tapGroup).toContain(PLANTED.tapReason); // glued to a word: the group keeps the number
  ids.group = failureGroupId(SOURCE, tapGroup);
  await updateGroup(
    db.pool,
    ids.group,
    { note: `rider quoted card ${PLANTED.groupNote}` },
    { actor: { id: sup.id, email: sup.email, role: "supervisor" }, scope: UNSCOPED, requestId: "t", now: new Date() },
  );
  // A rule on the tap's source quarantining with a reason quoting a card (a match may not hold one:
  // rule-schemas.ts); approved, so it can be dry-run over the tap, whose reason holds one.
  const ctx = (u: { id: string; email: string }): RuleContext => ({
    standing: STANDING_REPLAY,
    actor: { id: u.id, email: u.email, role: "supervisor" },
    role: "supervisor",
    scope: UNSCOPED,
    requestId: "t",
    now: new Date(),
  });
  const rule = await createRule(
    db.pool,
    {
      name: "card-reason",
      match: { source: SOURCE },
      action: { type: "quarantine", reason: `card ${PLANTED.ruleReason} reported stolen` },
    },
    ctx(sup),
  );
  ids.rule = rule.id;
  await approveRule(db.pool, rule.id, 1, ctx(sup2));
  // The ledger settled the spatial record's key; approved records for the preview, and a batch of another one.
  async function* ledgerLines() {
    yield JSON.stringify({ idempotency_key: `key-${PLANTED.spatialKey}`, kind: "spatial" });
    yield JSON.stringify({ idempotency_key: `ledger-${PLANTED.ledgerKey}`, kind: "spatial" });
  }
  await importLedger(db.pool, ledgerLines(), { actor: { id: null, email: "test", role: "operator" }, now: new Date(), source: "test" });
  await approve(db, [ids.tap, ids.spatial, ids.batchRecord]);
  const created = await runCli(db.url, ["replay", "create", "--ids", ids.batchRecord, "--rate", "10", "--as", supervisor]);
  expect(created.code, created.stderr).toBe(0);
  ids.batch = created.stdout.trim();
  // A broker source whose last error quotes a card number; a file to import whose rejected line carries one in its key.
  await db.pool.query(
    `INSERT INTO source (name, type, url_sealed, kind, connected, last_error, last_error_at)
     VALUES ('cli-mask-broker', 'rabbitmq', 'unused', 'afc', false, $1, now())`,
    [`message for card${PLANTED.sourceError} refused`],
  );
  await writeFile(
    join(dir, "import.ndjson"),
    `${JSON.stringify({ kind: "spatial", source: SOURCE, idempotency_key: `rejected-${PLANTED.rejectedKey}`, dead_letter_reason: "x" })}\n`,
  );
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await db?.pool.end();
  await closeDb();
});

describe("a card number in a record leaves every CLI command masked", () => {
  it("every command is probed here or named as printing no record data", async () => {
    const all = await commands();
    expect(
      all.filter((c) => !(c in PROBES)),
      "classify these commands in PROBES (tests/integration/cli-masking.test.ts)",
    ).toEqual([]);
    expect(
      Object.keys(PROBES).filter((c) => !all.includes(c)),
      "no such command any more",
    ).toEqual([]);
  });

  for (const [command, probe] of Object.entries(PROBES)) {
    if (typeof probe === "string") continue;
    it(`${command}: no card number in clear on stdout`, async () => {
      let printed = "";
      for (const args of probe.runs()) {
        const r = await runCli(db.url, args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(probe.code ?? 0);
        expect(leaks(r.stdout), `${args.join(" ")} printed ${r.stdout.slice(0, 600)}`).toEqual([]);
        printed += r.stdout;
      }
      if (probe.shows) expect(printed, "the planted fields were printed, masked").toMatch(MASKED_TAIL);
    }, 180_000);
  }

  it("replay create --preview masks a tap's entity key (its device_id) when the key globs name device_id, as /replays/new does", async () => {
    const [tap] = await ingest(db, [
      JSON.stringify({
        kind: "afc",
        source: `${SOURCE}-device`,
        raw_payload: { event_id: "cm-1", device_id: "gate-secret-9", fare_amount_cents: 250, tap_timestamp: "2026-11-05T08:00:00Z" },
        failure_reason: "HTTP 503",
      }),
    ]);
    await approve(db, [tap!]);
    const r = await runCli(db.url, ["replay", "create", "--ids", tap!, "--rate", "10", "--preview"], {
      env: { REDRIVE_MASK_KEYS: "card*,pan,token,account*,device*" },
    });
    expect(r.code, r.stderr).toBe(0);
    const preview = JSON.parse(r.stdout) as { sample: { id: string; entityKey: string | null }[] };
    expect(preview.sample).toMatchObject([{ id: tap, entityKey: "•••" }]);
    expect(r.stdout).not.toContain("gate-secret-9");
  });
});
