import { mkdirSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { pentagram, SLIVER_BOWTIE } from "../support/rule-shapes";
import { DEMO, ingestAsProducer, signIn, uniqueSuffix } from "./fixtures";

// Triage rules under four eyes: a supervisor drafts a rule (with a standing replay into the ledger) and sees its live
// dry run, a second supervisor (another browser) approves exactly that version — the sink and rate in front of them —
// and a new bow-tie arrival is decided by it, as its record page says. The standing replay's batch names the rule; a
// change back to origin counts, in its live dry run, the approvals that cannot go back; its approver sees what it
// changes from v1, field by field.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });

/** A pentagram: its repair loses the centre, −47% of the area. */
const STAR = pentagram();

/**
 * Opens a rule from the list. A click that lands before the page has hydrated does nothing, so it is repeated
 * until the rule's panel is open.
 */
async function openRule(page: Page, name: string): Promise<void> {
  const panel = page.getByRole("region", { name: `Rule ${name}` });
  await expect(async () => {
    await page.getByRole("button", { name }).click();
    await expect(panel).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

const envelope = (source: string, key: string, geometry: unknown) => ({
  kind: "spatial",
  source,
  idempotency_key: key,
  observed_at: "2026-12-01T10:00:00Z",
  feature: { type: "Feature", id: key, properties: {}, geometry },
  dead_letter_reason: "TopologyException: Self-intersection",
});

test("rules: drafted, dry-run, approved by a second supervisor, and its decision shown on a record @themes", async ({
  browser,
  playwright,
  baseURL,
  colorScheme,
}) => {
  test.setTimeout(120_000);
  const scheme = colorScheme === "dark" ? "dark" : "light";
  const suffix = uniqueSuffix();
  const source = `parcels-${suffix}`;
  const name = `bowtie-sliver-${suffix}`;
  // Stored before the rule: the dry run counts them (one it would approve, one it would skip).
  await ingestAsProducer(playwright.request, baseURL, envelope(source, `old-bow-${suffix}`, SLIVER_BOWTIE));
  await ingestAsProducer(playwright.request, baseURL, envelope(source, `old-star-${suffix}`, STAR));

  const drafter = await (await browser.newContext({ colorScheme })).newPage();
  await signIn(drafter, "supervisor", "/rules");
  const form = drafter.getByRole("form", { name: "New rule" });
  // As openRule: a click before the page has hydrated does nothing, so it is repeated until the form shows.
  await expect(async () => {
    await drafter.getByRole("button", { name: "New rule" }).click();
    await expect(form).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Source", { exact: true }).fill(source);
  await form.getByLabel("Max area change (%)").fill("1");
  // The sink's own fields, as in the replay batch form: HTTP asks for its URL and names what is wrong with it.
  await form.getByLabel("Replay sink").selectOption({ label: "HTTP" });
  await form.getByLabel("URL").fill("ftp://not-http.example/in");
  await expect(form.getByLabel("Requests in flight")).toHaveValue("4");
  const problems = form.getByRole("list", { name: "Standing replay problems" });
  await expect(problems).toContainText("sink.url: must be an http(s) URL");
  await expect(form.getByRole("button", { name: "Save draft" })).toBeDisabled();
  await form.screenshot({ path: `${SHOTS}/rules-editor-sink-${scheme}.png` });
  await form.getByLabel("Replay sink").selectOption({ label: "Built-in ledger" });
  await expect(form.getByLabel("URL")).toHaveCount(0);
  await expect(problems).toHaveCount(0);
  await form.getByLabel("Replay rate (records/s)").fill("5");
  await form.getByLabel("Canary items").fill("3");
  await form.getByLabel("Canary max failed (%)").fill("50");
  await form.getByRole("button", { name: "Save draft" }).click();

  const detail = drafter.getByRole("region", { name: `Rule ${name}` });
  await expect(detail.getByText("v1 (not in force)")).toBeVisible();
  const counts = detail.getByTestId("dry-run-counts");
  await expect(counts.getByTestId("dry-run-decided")).toHaveText("1");
  await expect(counts.getByTestId("dry-run-skipped")).toHaveText("1");
  await expect(counts.getByText("1 skipped: the area changes by more than 1%")).toBeVisible();
  // Four eyes: the drafter cannot approve their own version.
  await expect(detail.getByRole("button", { name: "Approve v1" })).toBeDisabled();

  const approver = await (await browser.newContext({ colorScheme })).newPage();
  await signIn(approver, "supervisor2", "/rules");
  const theirs = approver.getByRole("region", { name: `Rule ${name}` });
  await openRule(approver, name);
  await expect(theirs.getByText(DEMO.supervisor.email)).toBeVisible();
  await expect(theirs.getByTestId("dry-run-decided")).toHaveText("1");
  // What the approval starts: the version's standing replay, where to and how fast.
  await expect(theirs.getByTestId("rule-replay")).toHaveText(
    "built-in ledger at 5 records/s; canary: the first 3 items sent, paused above 50% failed (an item waiting for its retry counts as failed)",
  );
  await theirs.getByRole("button", { name: "Approve v1" }).click();
  await expect(theirs.getByText("v1 (v1 in force)")).toBeVisible();
  await expect(theirs.getByTestId("rule-flow")).toContainText("running");

  // A new bow-tie is decided by the rule as it is stored.
  const id = await ingestAsProducer(playwright.request, baseURL, envelope(source, `new-bow-${suffix}`, SLIVER_BOWTIE));
  await drafter.goto(`/dead-letters/${id}`);
  const note = drafter.getByTestId("decided-by-rule");
  await expect(note).toHaveText(`Approved by rule ${name} v1 (approved by ${DEMO.supervisor.email} and ${DEMO.supervisor2.email})`);
  await expect(note.getByRole("link", { name })).toBeVisible();

  // The standing replay's batch names the rule that feeds it, on its page and in the list, linking back to it.
  const flowLink = theirs.getByTestId("rule-flow").getByRole("link");
  const batchPath = await flowLink.getAttribute("href");
  await approver.goto(batchPath!);
  const fedBy = approver.getByTestId("batch-rule");
  await expect(fedBy).toHaveText(
    `Standing replay of rule ${name} v1: the records that version approves join this batch, approved by its four eyes.`,
  );
  await approver.screenshot({ path: `${SHOTS}/rules-standing-batch-${scheme}.png` });
  await approver.goto("/replays");
  const row = approver.getByRole("row", { name: new RegExp(`#${batchPath!.split("/").pop()}\\b`) });
  await expect(row.getByTestId("batch-rule")).toHaveText(`standing: rule ${name} v1`);
  await row.getByRole("link", { name }).click();
  await expect(approver.getByRole("region", { name: `Rule ${name}` })).toBeVisible();

  // A change back to origin: the live dry run counts the approval that cannot go back (it came over HTTP, from no
  // broker source); the version is saved as v2.
  await drafter.goto("/rules");
  await openRule(drafter, name);
  const mine = drafter.getByRole("region", { name: `Rule ${name}` });
  await mine.getByRole("button", { name: "Change" }).click();
  const change = drafter.getByRole("form", { name: `Change rule ${name}` });
  await change.getByLabel("Max area change (%)").fill("2");
  await change.getByLabel("Replay sink").selectOption({ label: "Back to origin" });
  const live = change.getByRole("region", { name: "Live dry run" });
  await expect(live.getByTestId("dry-run-not-replayable")).toHaveText(
    "Back to origin: 1 of the approvals cannot go back (1 not pulled from a broker source, 0 to a destination their source does not allow): approved all the same; the flow leaves out the first and fails the second when it sends them.",
  );
  await live.screenshot({ path: `${SHOTS}/rules-dry-run-origin-${scheme}.png` });
  await change.getByRole("button", { name: "Save as a new version" }).click();
  await expect(mine.getByText("v2 (not in force)")).toBeVisible();

  // Its approver sees what v2 changes from v1, the last approved, field by field.
  await approver.goto("/rules");
  await openRule(approver, name);
  const review = approver.getByRole("region", { name: `Rule ${name}` });
  const changes = review.getByRole("region", { name: "Changes in v2" });
  await expect(changes.getByText("What v2 changes from v1 (the last approved)")).toBeVisible();
  await expect(changes.getByRole("row", { name: /match\.repair\.maxAreaChange/ })).toHaveText(/1% \(0\.01\)\s*2% \(0\.02\)/);
  await expect(changes.getByRole("row", { name: /replay\.sink\.type/ })).toHaveText(/ledger\s*origin/);
  await expect(review.getByTestId("dry-run-not-replayable")).toContainText("1 of the approvals cannot go back");
  await review.screenshot({ path: `${SHOTS}/rules-approval-diff-${scheme}.png` });

  // The kill switch, from the approver's browser: the rule is disabled at once.
  await approver.reload();
  await openRule(approver, name);
  await approver
    .getByRole("region", { name: `Rule ${name}` })
    .getByRole("button", { name: "Disable" })
    .click();
  await expect(approver.getByRole("row", { name: new RegExp(name) }).getByText("disabled")).toBeVisible();
});
