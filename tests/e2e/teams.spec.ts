import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { DEMO, uniqueSuffix } from "./fixtures";

// Teams (issue 45): two analysts of two teams see disjoint lists, groups and overview counts, and a supervisor of
// one team cannot batch the other's records. The accounts and teams are this spec's own (the demo accounts stay in
// no team, so every other spec keeps seeing every record); the teams are removed at the end.

const s = uniqueSuffix();
const PASSWORD = "teams-e2e-password-1";
const sourceA = `e2e-ta-${s}-parcels`;
const sourceB = `e2e-tb-${s}`;
const users = {
  anaA: { email: `ana-a-${s}@teams.test`, role: "analyst" },
  supA: { email: `sup-a-${s}@teams.test`, role: "supervisor" },
  anaB: { email: `ana-b-${s}@teams.test`, role: "analyst" },
} as const;

const envelope = (source: string, key: string, x: number) => ({
  kind: "spatial",
  source,
  idempotency_key: key,
  observed_at: "2026-12-01T00:00:00Z",
  feature: {
    type: "Feature",
    id: key,
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [x, 48.85],
          [x + 0.01, 48.85],
          [x + 0.01, 48.86],
          [x, 48.86],
          [x, 48.85],
        ],
      ],
    },
    properties: {},
  },
  dead_letter_reason: `${source} upstream refused the parcel`,
});

async function session(
  request: { newContext: (o: { baseURL?: string }) => Promise<APIRequestContext> },
  baseURL: string | undefined,
  email: string,
  password: string,
) {
  const ctx = await request.newContext({ baseURL });
  const login = await ctx.post("/api/auth/sign-in/email", { data: { email, password } });
  expect(login.ok(), await login.text()).toBe(true);
  return ctx;
}

async function signInAs(page: Page, email: string, next: string): Promise<void> {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(next.replace(/[/?]/g, "\\$&")));
}

const keysA = [`ta-${s}-1`, `ta-${s}-2`];
const keysB = [`tb-${s}-1`, `tb-${s}-2`, `tb-${s}-3`];
let admin: APIRequestContext;
let teamIds: string[] = [];
let approvedB = "";

test.beforeAll(async ({ playwright, baseURL }) => {
  admin = await session(playwright.request, baseURL, DEMO.admin.email, DEMO.admin.password);
  const ids: Record<string, string> = {};
  for (const [k, u] of Object.entries(users)) {
    const res = await admin.post("/api/users", { data: { email: u.email, role: u.role, password: PASSWORD } });
    expect(res.status(), await res.text()).toBe(201);
    ids[k] = ((await res.json()) as { user: { id: string } }).user.id;
  }
  for (const body of [
    { name: `A ${s}`, members: [{ userId: ids.anaA }, { userId: ids.supA }], sources: [{ source: `e2e-ta-${s}*` }] },
    { name: `B ${s}`, members: [{ userId: ids.anaB }], sources: [{ source: sourceB }] },
  ]) {
    const res = await admin.post("/api/teams", { data: body });
    expect(res.status(), await res.text()).toBe(201);
    teamIds.push(((await res.json()) as { id: string }).id);
  }
  const ingest = await admin.post("/api/dead-letters", {
    data: [...keysA.map((k, i) => envelope(sourceA, k, 2.3 + i / 10)), ...keysB.map((k, i) => envelope(sourceB, k, 2.3 + i / 10))],
  });
  expect(ingest.ok(), await ingest.text()).toBe(true);
  const results = ((await ingest.json()) as { results: { id: string }[] }).results;
  // The demo supervisor is in no team: it approves one of team B's records, so there is something B could batch.
  const sup = await session(playwright.request, baseURL, DEMO.supervisor.email, DEMO.supervisor.password);
  approvedB = results[keysA.length]!.id;
  const detail = (await (await sup.get(`/api/dead-letters/${approvedB}`)).json()) as { version: number };
  const approve = await sup.post(`/api/dead-letters/${approvedB}/actions`, { data: { action: "approve", version: detail.version } });
  expect(approve.ok(), await approve.text()).toBe(true);
  await sup.dispose();
});

test.afterAll(async () => {
  for (const id of teamIds) await admin.delete(`/api/teams/${id}`);
  teamIds = [];
  await admin.dispose();
});

test("two analysts of two teams see disjoint lists, groups and overview counts", async ({ page, browser }) => {
  const views = [
    { email: users.anaA.email, mine: keysA, theirs: keysB, source: sourceA, other: sourceB },
    { email: users.anaB.email, mine: keysB, theirs: keysA, source: sourceB, other: sourceA },
  ];
  for (const [i, v] of views.entries()) {
    const p = i === 0 ? page : await (await browser.newContext()).newPage();
    await signInAs(p, v.email, "/dead-letters");
    await expect(p.getByRole("heading", { name: "Dead letters" })).toBeVisible();
    for (const key of v.mine) await expect(p.getByText(key, { exact: false }).first()).toBeVisible();
    for (const key of v.theirs) await expect(p.getByText(key, { exact: false })).toHaveCount(0);
    // the list's API in the same session: exactly the team's records
    const list = (await (await p.request.get("/api/dead-letters?limit=100")).json()) as { items: { source: string }[] };
    expect(new Set(list.items.map((r) => r.source))).toEqual(new Set([v.source]));
    expect(list.items).toHaveLength(v.mine.length);

    await p.goto("/groups");
    await expect(p.getByText(v.source).first()).toBeVisible();
    await expect(p.getByText(v.other)).toHaveCount(0);

    await p.goto("/");
    await expect(p.getByRole("heading", { name: "DLQ health" })).toBeVisible();
    const overview = (await (await p.request.get("/api/overview")).json()) as { total: number; topReasons: { reasonGroup: string }[] };
    expect(overview.total).toBe(v.mine.length);
    expect(overview.topReasons.map((r) => r.reasonGroup).join("\n")).not.toContain(v.other);
    // another team's record answers as one that does not exist
    const foreign = (await (await admin.get(`/api/dead-letters?source=${v.other}&limit=1`)).json()) as { items: { id: string }[] };
    expect((await p.request.get(`/api/dead-letters/${foreign.items[0]!.id}`)).status()).toBe(404);
    if (i > 0) await p.context().close();
  }
});

test("a supervisor cannot batch another team's records", async ({ page }) => {
  await signInAs(page, users.supA.email, "/dead-letters");
  const byIds = await page.request.post("/api/replays", { data: { ids: [approvedB], sink: { type: "ledger" }, ratePerSecond: 5 } });
  expect(byIds.status()).toBe(422);
  expect(await byIds.text()).toContain("no such record");
  const byFilter = await page.request.post("/api/replays", {
    data: { filter: { source: [sourceB] }, sink: { type: "ledger" }, ratePerSecond: 5 },
  });
  expect(byFilter.status()).toBe(422);
  // the creation page finds nothing to replay in the other team's source
  await page.goto(`/replays/new?source=${encodeURIComponent(sourceB)}&status=approved`);
  await expect(page.getByText(/no approved record|nothing to replay|0 records/i).first()).toBeVisible();
});

test("a team's supervisor copies a company-wide alert for the team; another team does not see it", async ({ page }) => {
  const teamA = `A ${s}`;
  await signInAs(page, users.supA.email, "/alerts");
  await expect(page.getByRole("heading", { name: "Alerts", exact: true })).toBeVisible();
  const wide = page.getByRole("row").filter({ hasText: "Too many unresolved dead letters" }).first();
  // company-wide: counted over every team's records, so its value is not shown to a member of teams
  await expect(wide.getByText("company-wide")).toBeVisible();
  await expect(wide.getByText("value not shown")).toBeVisible();
  await expect(wide.getByRole("button", { name: "Save" })).toHaveCount(0);
  await wide.getByRole("button", { name: `Copy for ${teamA}` }).click();
  const copy = page.getByRole("row").filter({ hasText: `Too many unresolved dead letters (${teamA})` });
  await expect(copy).toBeVisible();
  await expect(copy.getByRole("cell", { name: teamA, exact: true })).toBeVisible();
  await expect(copy.getByRole("button", { name: "Save" })).toBeVisible();
  const mine = ((await (await page.request.get("/api/alerts")).json()) as { rules: { id: string; team: string | null }[] }).rules.find(
    (r) => r.team === teamA,
  );
  expect(mine).toBeDefined();

  // B's analyst neither lists it nor reaches it
  const b = await (await page.context().browser()!.newContext()).newPage();
  await signInAs(b, users.anaB.email, "/alerts");
  await expect(b.getByText(`(${teamA})`)).toHaveCount(0);
  const seen = (await (await b.request.get("/api/alerts")).json()) as { rules: { id: string }[] };
  expect(seen.rules.map((r) => r.id)).not.toContain(mine!.id);
  await b.context().close();

  page.once("dialog", (d) => void d.accept());
  await copy.getByRole("button", { name: "Remove" }).click();
  await expect(copy).toHaveCount(0);
});
