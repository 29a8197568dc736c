import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { commonLexemes, forgetCommonLexemes } from "../../lib/dead-letters/query/common-lexemes";
import { facetCounts } from "../../lib/dead-letters/query/facets";
import { listDeadLetters, SEARCH_PROBE, SEARCH_WALK } from "../../lib/dead-letters/query/list";
import { seedBulk } from "../../scripts/bench/seed-bulk";
import { testDb } from "./helpers";

// A payload search's page comes from one of three plans (list.ts payloadBranch): all matches of a rare term from
// the GIN index, a walk in page order for a common one, and every match again when the walk comes up short. Each
// must give the page a plain ORDER BY over the stored document gives. The terms here are built to take each plan:
// the bench seed's phrases are common (8% of records, known as such to the statistics after ANALYZE), one word is
// put on a few records only, and one on more records than the probe takes, all older than the walk reaches.

let db: Db;
const RECORDS = SEARCH_WALK + 2_000;

beforeAll(async () => {
  db = await testDb();
  const client = await db.pool.connect();
  try {
    await seedBulk(client, RECORDS, () => undefined);
    // Rare: a handful of records. Sparse: more than the probe takes, every one older than the newest SEARCH_WALK.
    await client.query(
      `UPDATE dead_letter SET payload = jsonb_set(payload, '{note}', '"quagga sparse marker"')
       WHERE id IN (SELECT id FROM dead_letter WHERE payload IS NOT NULL ORDER BY observed_at, id LIMIT ${SEARCH_PROBE + 150})`,
    );
    await client.query(
      `UPDATE dead_letter SET payload = jsonb_set(payload, '{note}', '"zygote rare marker"')
       WHERE id IN (SELECT id FROM dead_letter WHERE payload IS NOT NULL AND NOT payload @> '{"note": "quagga sparse marker"}' ORDER BY id LIMIT 7)`,
    );
    await client.query("ANALYZE dead_letter");
    forgetCommonLexemes(); // the statistics just changed: read them again
  } finally {
    client.release();
  }
}, 120_000);

afterAll(async () => {
  await closeDb();
});

/** The page by the definition: every match of the words, in the list's order. */
async function expected(words: string, extra = "TRUE", order: "DESC" | "ASC" = "DESC"): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT id::text AS id FROM dead_letter d WHERE d.search_doc @@ plainto_tsquery('simple', $1) AND ${extra}
     ORDER BY observed_at ${order}, id ${order} LIMIT 100`,
    [words],
  );
  return rows.map((r) => r.id);
}

const page = async (input: Record<string, unknown>) =>
  (await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ limit: 100, ...input }))).items.map((i) => i.id);

const common = async (word: string) =>
  (
    await db.pool.query<{ freq: number }>(
      `SELECT e.freq FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) e(lexeme, freq)
       WHERE s.tablename = 'dead_letter' AND s.attname = 'search_doc' AND e.lexeme = $1`,
      [word],
    )
  ).rows[0]?.freq ?? 0;

describe("payload search plans", () => {
  it("builds the terms as meant: a common phrase, a rare word, a sparse word past the probe and the walk", async () => {
    expect(await common("hydrant")).toBeGreaterThan(0.02);
    expect(await commonLexemes(db.pool)).toEqual(expect.arrayContaining(["hydrant", "relocated"]));
    expect(await commonLexemes(db.pool)).not.toContain("zygote");
    expect(await common("zygote")).toBe(0);
    expect((await expected("zygote")).length).toBe(7);
    const { rows } = await db.pool.query<{ n: number; newest: number }>(
      `SELECT count(*)::int AS n, (SELECT count(*)::int FROM (SELECT search_doc FROM dead_letter ORDER BY observed_at DESC, id DESC
         LIMIT ${SEARCH_WALK}) w WHERE w.search_doc @@ plainto_tsquery('simple', 'quagga')) AS newest
       FROM dead_letter WHERE search_doc @@ plainto_tsquery('simple', 'quagga')`,
    );
    expect(rows[0]).toEqual({ n: SEARCH_PROBE + 150, newest: 0 });
  });

  it("a common phrase: its page, walked in order", async () => {
    const want = await expected("hydrant relocated");
    expect(want.length).toBe(100);
    expect(await page({ q: "hydrant relocated" })).toEqual(want);
    expect(await page({ q: "hydrant relocated", order: "asc" })).toEqual(await expected("hydrant relocated", "TRUE", "ASC"));
  });

  it("a common word with filters: its page within them", async () => {
    const want = await expected("firmware", "d.status = 'pending' AND d.kind = 'afc'");
    expect(want.length).toBeGreaterThan(0);
    expect(await page({ q: "firmware", status: "pending", kind: "afc" })).toEqual(want);
  });

  it("common words that never meet: no page in the walk, none in the index", async () => {
    expect(await expected("hydrant fence")).toEqual([]);
    expect(await page({ q: "hydrant fence" })).toEqual([]);
  });

  it("a rare word: all its matches, sorted", async () => {
    expect(await page({ q: "zygote" })).toEqual(await expected("zygote"));
  });

  it("a word past the probe that the walk does not reach: every match, sorted", async () => {
    const want = await expected("quagga");
    expect(want.length).toBe(100);
    expect(await page({ q: "quagga" })).toEqual(want);
  });

  it("the next page by cursor continues each plan", async () => {
    for (const q of ["hydrant relocated", "quagga"]) {
      const first = await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ q, limit: 50 }));
      const second = await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ q, limit: 50, cursor: first.nextCursor }));
      expect([...first.items, ...second.items].map((i) => i.id)).toEqual(await expected(q));
    }
  });

  it("facets: a common term is estimated from the sample, a rare one counted", async () => {
    const commonFacets = await facetCounts(db.pool, UNSCOPED, { q: "hydrant relocated" });
    const n = (
      await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM dead_letter WHERE search_doc @@ plainto_tsquery('simple', 'hydrant relocated')`,
      )
    ).rows[0]!.n;
    expect(commonFacets.exact).toBe(false);
    expect(commonFacets.total).toBeGreaterThan(n * 0.5);
    expect(commonFacets.total).toBeLessThan(n * 1.5);
    const rare = await facetCounts(db.pool, UNSCOPED, { q: "zygote" });
    expect(rare).toMatchObject({ exact: true, total: 7 });
  });

  it("facets: a device's records are counted exactly, a record two conditions find once", async () => {
    const device = (
      await db.pool.query<{ d: string }>("SELECT device_id AS d FROM dead_letter WHERE device_id IS NOT NULL ORDER BY id LIMIT 1")
    ).rows[0]!.d;
    // one of its taps is found by its event id too (facets.ts searchCube merges the branches by record)
    await db.pool.query("UPDATE dead_letter SET event_id = device_id WHERE id = (SELECT min(id) FROM dead_letter WHERE device_id = $1)", [
      device,
    ]);
    const { rows } = await db.pool.query<{ status: string; n: number }>(
      "SELECT status::text AS status, count(*)::int AS n FROM dead_letter WHERE device_id = $1 OR event_id = $1 GROUP BY 1",
      [device],
    );
    const facets = await facetCounts(db.pool, UNSCOPED, { q: device });
    expect(facets.exact).toBe(true);
    expect(facets.total).toBe(rows.reduce((sum, r) => sum + r.n, 0));
    expect(Object.fromEntries(facets.status.map((b) => [b.value, b.count]))).toEqual(Object.fromEntries(rows.map((r) => [r.status, r.n])));
  });
});
