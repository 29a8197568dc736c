import { execFile } from "node:child_process";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { AppError } from "../../lib/errors/app-error";
import { createBatch } from "../../lib/replay/batch/create-batch";
import { CreateBatchBody } from "../../lib/replay/batch/batch-schemas";
import { getBatch } from "../../lib/replay/batch/read-batches";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import { revalidate } from "../../lib/replay/engine/revalidate";
import { analyzeGeometry } from "../../lib/spatial/analyze";
import { getGeos } from "../../lib/spatial/geos";
import { postgisSink } from "../../lib/replay/sinks/postgis/postgis-sink";
import { keyTableStatement } from "../../lib/replay/sinks/postgis/page-statement";
import { closeTargetPools } from "../../lib/replay/sinks/postgis/target-pools";
import { checkPostgisTarget, storedPostgisSink } from "../../lib/replay/sinks/postgis/check-postgis-target";
import { PostgisSinkSchema } from "../../lib/replay/sinks/postgis/postgis-sink-schema";
import type { Submission } from "../../lib/replay/sinks/sink";
import type { JsonValue } from "../../lib/json/value";
import { afcRecord, approve, batchStatus, EPOCH, ingest, runningBatch, spatialEnvelope, type TestUsers, waitFor } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { createFeatureTable, createPostgisTarget, postgisServer, sinkFor, type PostgisTarget } from "./postgis-target";

setTestAuthEnv();

const server = await postgisServer();
const unavailable = server.skip;

let db: Db;
let users: TestUsers;
let target: PostgisTarget;
const workers: WorkerHandle[] = [];
const FAST = { leaseMs: 3000, pollMs: 50, backoff: { baseMs: 20, maxMs: 200 } };

beforeAll(async () => {
  if (unavailable) return;
  db = await testDb();
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
  target = await createPostgisTarget(server);
  await createFeatureTable(target.pool);
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  if (unavailable) return;
  await closeTargetPools();
  await target?.drop();
  await db.pool.end();
  await closeDb();
});

function worker(): WorkerHandle {
  const w = startWorker({ db, log: () => {}, ...FAST });
  workers.push(w);
  return w;
}

async function counts(batchId: string) {
  const { rows } = await db.pool.query(
    `SELECT applied_count AS applied, deduped_count AS deduped, dropped_count AS dropped, poison_count AS poison,
       failed_count AS failed, cancelled_count AS cancelled FROM replay_batch WHERE id = $1`,
    [batchId],
  );
  return rows[0];
}

/** A bowtie (self-intersecting, invalid) of side `s`: repaired into two triangles of s²/4 each. */
const bowtie = (s: number, x = 0) => ({
  type: "Polygon",
  coordinates: [
    [
      [x, 0],
      [x + s, s],
      [x, s],
      [x + s, 0],
      [x, 0],
    ],
  ],
});

async function row(id: string) {
  const { rows } = await target.pool.query(
    `SELECT id, observed_at, ST_IsValid(geom) AS valid, ST_Area(geom) AS area, ST_GeometryType(geom) AS type, ST_SRID(geom) AS srid, props
     FROM gis.features WHERE id = $1`,
    [id],
  );
  return rows[0];
}

async function keysLike(prefix: string): Promise<string[]> {
  const { rows } = await target.pool.query(`SELECT idempotency_key FROM gis.redrive_applied_key WHERE idempotency_key LIKE $1 ORDER BY 1`, [
    `${prefix}%`,
  ]);
  return rows.map((r) => r.idempotency_key as string);
}

async function refusal(body: unknown): Promise<AppError> {
  try {
    await createBatch(db.pool, CreateBatchBody.parse(body), users.creator, { now: new Date() });
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("the batch was created");
}

describe.skipIf(unavailable !== null)("PostGIS sink", () => {
  it("the spatial replay scenario: bowties observed at 100, 250, 150, the first key already applied → the repaired 250, applied 2, deduped 1", async () => {
    const ids = await ingest(db, [
      spatialEnvelope({ key: "pg-100", observedAt: 100, featureId: "bow", geometry: bowtie(1) }),
      spatialEnvelope({ key: "pg-250", observedAt: 250, featureId: "bow", geometry: bowtie(2.5) }),
      spatialEnvelope({ key: "pg-150", observedAt: 150, featureId: "bow", geometry: bowtie(1.5) }),
    ]);
    await approve(db, ids);
    await target.pool.query(keyTableStatement("gis", "redrive_applied_key"));
    await target.pool.query(
      `INSERT INTO gis.redrive_applied_key (idempotency_key, target_table, feature_id, observed_at) VALUES ('pg-100', 'gis.features', 'bow', now())`,
    );
    const id = await runningBatch(db, users, { ids, sink: sinkFor(target.url), ratePerSecond: 50 });
    worker();
    await waitFor("completion", async () => (await batchStatus(db, id)) === "completed");
    expect(await counts(id)).toEqual({ applied: 2, deduped: 1, dropped: 0, poison: 0, failed: 0, cancelled: 0 });
    expect(await row("bow")).toMatchObject({
      observed_at: new Date((EPOCH + 250) * 1000),
      valid: true,
      area: 3.125, // 2.5² / 2: the repair of the 250 bowtie
      type: "ST_MultiPolygon",
      srid: 4326,
      props: { name: "bow" },
    });
    expect(await keysLike("pg-")).toEqual(["pg-100", "pg-150", "pg-250"]);
    // Redrive's ledger records who settled the keys it sent.
    const ledger = await db.pool.query(`SELECT idempotency_key, origin FROM ledger_entry WHERE idempotency_key LIKE 'pg-%' ORDER BY 1`);
    expect(ledger.rows).toEqual([
      { idempotency_key: "pg-100", origin: "postgis" },
      { idempotency_key: "pg-150", origin: "postgis" },
      { idempotency_key: "pg-250", origin: "postgis" },
    ]);
    // The batch shows the target without its password.
    const view = await getBatch(db.pool, UNSCOPED, id, new Date());
    expect(view.sink).toMatchObject({ type: "postgis", table: "gis.features", idColumn: "id", srid: 4326 });
    const stored = await db.pool.query(`SELECT sink FROM replay_batch WHERE id = $1`, [id]);
    expect(JSON.stringify(stored.rows[0].sink)).not.toContain(target.url);
    expect(stored.rows[0].sink.urlSealed).toMatch(/^v1\./);
  });

  it("an older reading replayed after a newer one leaves the newer in the table", async () => {
    const newer = await ingest(db, [spatialEnvelope({ key: "ord-300", observedAt: 300, featureId: "ord", geometry: bowtie(3) })]);
    await approve(db, newer);
    const first = await runningBatch(db, users, { ids: newer, sink: sinkFor(target.url), ratePerSecond: 50 });
    worker();
    await waitFor("first batch", async () => (await batchStatus(db, first)) === "completed");
    const older = await ingest(db, [spatialEnvelope({ key: "ord-200", observedAt: 200, featureId: "ord", geometry: bowtie(2) })]);
    await approve(db, older);
    const second = await runningBatch(db, users, { ids: older, sink: sinkFor(target.url), ratePerSecond: 50 });
    await waitFor("second batch", async () => (await batchStatus(db, second)) === "completed");
    // Its key is applied (recorded once), its state is not: the table keeps the reading of 300.
    expect(await counts(second)).toMatchObject({ applied: 1, deduped: 0 });
    expect(await row("ord")).toMatchObject({ observed_at: new Date((EPOCH + 300) * 1000), area: 4.5 });
    expect(await keysLike("ord-")).toEqual(["ord-200", "ord-300"]);
  });

  it("a geometry PostGIS finds invalid fails its item with PostGIS's reason and never reaches the table", async () => {
    const sink = postgisSink(storedPostgisSink(PostgisSinkSchema.parse(sinkFor(target.url))));
    const sub = (key: string, fid: string, geometry: unknown): Submission => ({
      itemId: key,
      batchId: "1",
      deadLetterId: "1",
      kind: "spatial",
      idempotencyKey: key,
      entityKey: fid,
      observedAt: "2026-11-01T00:00:00.000000Z",
      payload: { type: "Feature", id: fid, properties: {}, geometry } as JsonValue,
    });
    const [bad, good, again] = await Promise.all([
      sink.submit(sub("inv-1", "inv", bowtie(1)), new AbortController().signal),
      sink.submit(sub("inv-2", "fine", { type: "Point", coordinates: [1, 2] }), new AbortController().signal),
      sink.submit(sub("inv-2", "fine", { type: "Point", coordinates: [1, 2] }), new AbortController().signal),
    ]);
    expect(bad).toEqual({
      outcome: "failed",
      reason: expect.stringMatching(/PostGIS finds the geometry invalid: Self-intersection/),
      permanent: true,
    });
    // The same key twice in one page: applied once, the second deduped.
    expect([good, again]).toEqual([{ outcome: "applied" }, { outcome: "deduped" }]);
    expect(await row("inv")).toBeUndefined();
    expect(await keysLike("inv-")).toEqual(["inv-2"]);
  });

  it("every repaired geometry of the held corpus is valid in PostGIS, with the area of Redrive's repair", async () => {
    const geos = await getGeos();
    await target.pool.query(`CREATE TABLE gis.corpus (id text PRIMARY KEY, geom geometry NOT NULL, observed_at timestamptz NOT NULL)`);
    const sink = postgisSink(
      storedPostgisSink({
        type: "postgis",
        url: target.url,
        table: "gis.corpus",
        idColumn: "id",
        geometryColumn: "geom",
        observedAtColumn: "observed_at",
        srid: 4326,
      }),
    );
    const corpus = readFileSync("tests/fixtures/geometry/corpus.ndjson", "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { name: string; geometry: unknown });
    const expected = new Map<string, number>();
    const subs: Promise<unknown>[] = [];
    for (const method of ["linework", "structure"] as const) {
      corpus.forEach((c, i) => {
        const feature = { type: "Feature", id: `${i}-${method}`, properties: { name: c.name }, geometry: c.geometry } as JsonValue;
        const checked = revalidate("spatial", feature, { geos, method, policy: "accept" });
        if (!checked.ok) return; // dropped by Redrive: never sent
        const { analysis } = analyzeGeometry(geos, c.geometry, { method, policy: "accept" });
        expected.set(`${i}-${method}`, analysis.area_after ?? analysis.area_before ?? 0);
        subs.push(
          sink.submit(
            {
              itemId: `${i}-${method}`,
              batchId: "1",
              deadLetterId: "1",
              kind: "spatial",
              idempotencyKey: `corpus-${i}-${method}`,
              entityKey: `${i}`,
              observedAt: "2026-11-01T00:00:00.000000Z",
              payload: checked.payload,
            },
            new AbortController().signal,
          ),
        );
      });
    }
    const results = await Promise.all(subs);
    expect(results.filter((r) => (r as { outcome: string }).outcome !== "applied")).toEqual([]);
    expect(expected.size).toBeGreaterThan(60);
    const { rows } = await target.pool.query<{ id: string; valid: boolean; area: number }>(
      `SELECT id, ST_IsValid(geom) AS valid, ST_Area(geom) AS area FROM gis.corpus`,
    );
    expect(rows).toHaveLength(expected.size);
    for (const r of rows) {
      expect({ id: r.id, valid: r.valid }).toEqual({ id: r.id, valid: true });
      const want = expected.get(r.id) as number;
      expect(Math.abs(r.area - want), `${r.id}: ${r.area} vs ${want}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
    }
  });

  it("refuses at creation what cannot work: no table, no PostGIS, a missing column, AFC records (422 naming the field)", async () => {
    const spatial = await ingest(db, [spatialEnvelope({ key: "ref-1", observedAt: 10, featureId: "ref" })]);
    const afc = await ingest(db, [afcRecord({ eventId: "ref-afc", deviceId: "d1", at: 11 })]);
    await approve(db, [...spatial, ...afc]);
    const base = { ids: spatial, ratePerSecond: 10 };
    const noTable = await refusal({ ...base, sink: sinkFor(target.url, "gis.nothing_here") });
    expect(noTable.issues).toEqual([{ path: "sink.table", message: expect.stringContaining("no table") }]);
    const plain = await createPostgisTarget(server, { postgis: false });
    try {
      const noPostgis = await refusal({ ...base, sink: sinkFor(plain.url) });
      expect(noPostgis.issues.map((i) => i.path)).toEqual(["sink.url", "sink.table"]);
      expect(noPostgis.issues[0]?.message).toMatch(/has no PostGIS/);
    } finally {
      await plain.drop();
    }
    const noColumn = await refusal({ ...base, sink: { ...sinkFor(target.url), observedAtColumn: "seen" } });
    expect(noColumn.issues).toEqual([{ path: "sink.observedAtColumn", message: expect.stringContaining('no column "seen"') }]);
    const badSrid = await refusal({ ...base, sink: { ...sinkFor(target.url), srid: 3857 } });
    expect(badSrid.issues).toEqual([{ path: "sink.srid", message: expect.stringContaining("SRID 4326") }]);
    const taps = await refusal({ ids: [...spatial, ...afc], ratePerSecond: 10, sink: sinkFor(target.url) });
    expect(taps.issues).toEqual([{ path: "ids.1", message: expect.stringContaining("the PostGIS sink takes spatial features only") }]);
    const filtered = await refusal({ filter: { q: "ref-afc" }, ratePerSecond: 10, sink: sinkFor(target.url) });
    expect(filtered.issues).toEqual([{ path: "filter.kind", message: expect.stringContaining("AFC") }]);
    const closed = await refusal({ ...base, sink: { ...sinkFor(target.url), url: "postgresql://postgres@127.0.0.1:1/nothing" } });
    expect(closed.issues).toEqual([{ path: "sink.url", message: expect.stringMatching(/^could not reach the target/) }]);
  });

  it("answers an unreachable target without the server's words: no oracle for databases, users or ports", async () => {
    const spatial = await ingest(db, [spatialEnvelope({ key: "oracle-1", observedAt: 12, featureId: "oracle" })]);
    await approve(db, spatial);
    const answers = new Set<string>();
    const u = new URL(target.url);
    for (const url of [
      `postgresql://postgres@${u.host}/no_such_database_here`,
      `postgresql://no_such_role_here@${u.host}${u.pathname}`,
      "postgresql://postgres@127.0.0.1:1/nothing",
    ]) {
      const r = await refusal({ ids: spatial, ratePerSecond: 10, sink: { ...sinkFor(target.url), url } });
      expect(r.issues.map((i) => i.path)).toEqual(["sink.url"]);
      answers.add(r.issues[0]!.message);
    }
    expect([...answers]).toEqual(["could not reach the target (no connection, or the server refused the sign-in or the database)"]);
  });

  it("takes an observation-time column of any precision (Prisma's timestamptz(6), timestamp(3)) and says how it is written", async () => {
    await target.pool.query(
      `CREATE TABLE gis.prisma_like (id text PRIMARY KEY, geom geometry(Geometry, 4326) NOT NULL, observed_at timestamptz(6) NOT NULL)`,
    );
    await target.pool.query(
      `CREATE TABLE gis.local_time (id text PRIMARY KEY, geom geometry(Geometry, 4326) NOT NULL, observed_at timestamp(3) NOT NULL)`,
    );
    const check = (table: string) => checkPostgisTarget(PostgisSinkSchema.parse({ type: "postgis", url: target.url, table }));
    const tz = await check("gis.prisma_like");
    expect(tz.problems).toEqual([]);
    expect(tz.types.observedAt).toBe("timestamp(6) with time zone");
    const local = await check("gis.local_time");
    expect(local.notes).toEqual([
      { path: "sink.observedAtColumn", message: '"observed_at" is timestamp(3) without time zone: observation times are written in UTC' },
    ]);
    const ids = await ingest(db, [spatialEnvelope({ key: "prec-1", observedAt: 1_000_000, featureId: "prec-1" })]);
    await approve(db, ids);
    const sink = postgisSink(storedPostgisSink(PostgisSinkSchema.parse({ type: "postgis", url: target.url, table: "gis.prisma_like" })));
    const submitted = await sink.submit(
      {
        itemId: "1",
        batchId: "1",
        deadLetterId: ids[0]!,
        kind: "spatial",
        idempotencyKey: "prec-1",
        entityKey: null,
        observedAt: "2026-11-01T00:00:00.123456Z",
        payload: { type: "Feature", id: "prec-1", geometry: { type: "Point", coordinates: [1, 2] }, properties: {} },
      },
      new AbortController().signal,
    );
    expect(submitted).toEqual({ outcome: "applied" });
    const { rows } = await target.pool.query<{ at: string }>(
      `SELECT to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at FROM gis.prisma_like`,
    );
    expect(rows).toEqual([{ at: "2026-11-01T00:00:00.123456" }]);
  });

  it("a target error fails the items with the target's reason and pauses the batch past the threshold", async () => {
    await target.pool.query(`CREATE TABLE gis.doomed (id text PRIMARY KEY, geom geometry NOT NULL, observed_at timestamptz NOT NULL)`);
    const ids = await ingest(
      db,
      Array.from({ length: 30 }, (_, i) => spatialEnvelope({ key: `doom-${i}`, observedAt: 1000 + i, featureId: `doom-${i}` })),
    );
    await approve(db, ids);
    const id = await runningBatch(db, users, {
      ids,
      sink: {
        type: "postgis",
        url: target.url,
        table: "gis.doomed",
        idColumn: "id",
        geometryColumn: "geom",
        observedAtColumn: "observed_at",
      },
      ratePerSecond: 1_000_000,
      pageSize: 10,
      maxAttempts: 5,
    });
    // Approved and started, then the table goes away: what a worker meets is an error of the target.
    await target.pool.query(`DROP TABLE gis.doomed`);
    worker();
    await waitFor("the pause", async () => (await batchStatus(db, id)) === "paused", 20_000);
    const view = await getBatch(db.pool, UNSCOPED, id, new Date());
    expect(view.statusReason).toMatch(/paused automatically/);
    const { rows } = await db.pool.query(`SELECT DISTINCT last_error FROM replay_item WHERE batch_id = $1 AND last_error IS NOT NULL`, [
      id,
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.last_error).toMatch(/gis\.doomed.*(does not exist|no table)/);
    expect(rows.map((r) => r.last_error).join("\n")).not.toContain(":" + new URL(target.url).password + "@");
  });

  it("`redrive sink check` connects and says what it found: PostGIS version, the columns, the key table", async () => {
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ["bin/redrive.mjs", "sink", "check", "--type", "postgis", ...args], {
        cwd: process.cwd(),
      }).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
      );
    const ok = await run(["--url", target.url, "--table", "gis.features", "--properties-column", "props"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/PostGIS 3\.\d+\.\d+ \(GEOS 3\./);
    expect(ok.stdout).toMatch(/geom\s+geometry\(Geometry,4326\) NOT NULL/);
    expect(ok.stdout).toMatch(/key table gis\.redrive_applied_key: exists, \d+ key\(s\)/);
    const bad = await run(["--url", target.url, "--table", "gis.features", "--observed-at-column", "seen"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('--observed-at-column: "gis"."features" has no column "seen"');
  }, 60_000);
});
