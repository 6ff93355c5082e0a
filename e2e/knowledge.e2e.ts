import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { SignInPage } from "./pages/sign-in-page";

// Two sections long enough to be chunks of their own.
const RUNBOOK = `# Incident runbook

## Paging

The on-call engineer is paged through the phone tree and must acknowledge within five minutes.
If nobody acknowledges, the page escalates to the secondary, then to the engineering manager.
Keep the incident channel open for the whole incident, post a status line every fifteen minutes,
and write down every command you run so that the review afterwards can rebuild the timeline.
Hand over explicitly when your shift ends: name the next owner in the channel.

## Database failover

When the primary is unreachable for more than two minutes, promote the standby replica with
pg_ctl promote, then point DATABASE_URL at the new primary and restart the web containers one at
a time so that the service stays up. Check replication lag before promoting: a lagging standby
loses the last transactions. Afterwards, rebuild a new standby from a fresh base backup and
confirm that the nightly backups run against the new primary.
`;

async function openKnowledge(page: Page): Promise<void> {
  const signIn = new SignInPage(page);
  await signIn.goto("/admin/knowledge");
  await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/admin\/knowledge$/);
  await expect(page.getByRole("heading", { name: "Knowledge", exact: true })).toBeVisible();
}

test("an admin builds a knowledge base from a Markdown file and finds a chunk with the test search", async ({ page }) => {
  const name = `Runbooks ${randomUUID().slice(0, 8)}`;
  await openKnowledge(page);
  await expect(page.getByTestId("admin-nav").getByRole("link", { name: "Knowledge" })).toHaveAttribute("aria-current", "page");

  const create = page.getByTestId("kb-create-form");
  await create.getByLabel("Knowledge base name").fill(name);
  await create.getByLabel("Description").fill("What on-call needs at 3 a.m.");
  await create.getByRole("button", { name: "Create knowledge base" }).click();
  const row = page.getByTestId("kb-row").filter({ hasText: name });
  await expect(row).toBeVisible();
  await row.getByRole("link", { name }).click();
  await expect(page.getByTestId("kb-title")).toHaveText(name);

  // A file the server refuses shows its reason; the Markdown file is indexed.
  await page.getByTestId("kb-file-input").setInputFiles({ name: "diagram.png", mimeType: "image/png", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) });
  await expect(page.getByTestId("kb-upload").filter({ hasText: "diagram.png" })).toHaveAttribute("data-status", "failed");
  await expect(page.getByTestId("kb-upload").filter({ hasText: "diagram.png" })).toContainText("Only text/plain and text/markdown");

  await page.getByTestId("kb-file-input").setInputFiles({ name: "runbook.md", mimeType: "text/markdown", buffer: Buffer.from(RUNBOOK) });
  const uploaded = page.getByTestId("kb-upload").filter({ hasText: "runbook.md" });
  await expect(uploaded).toHaveAttribute("data-status", "done");
  await expect(uploaded).toContainText("2 chunks indexed");
  const doc = page.getByTestId("kb-document-row").filter({ hasText: "runbook.md" });
  await expect(doc.getByTestId("kb-document-chunks")).toHaveText("2");
  await expect(page.getByTestId("kb-document-count")).toHaveText("1");

  const search = page.getByTestId("kb-search-form");
  await search.getByLabel("Search query").fill("promote the standby");
  await search.getByRole("button", { name: "Search" }).click();
  const result = page.getByTestId("kb-search-result").first();
  await expect(result).toContainText("runbook.md");
  await expect(result).toContainText("Incident runbook › Database failover");
  await expect(result.getByTestId("kb-search-content")).toContainText("promote the standby replica with pg_ctl promote");
  await page.screenshot({ path: test.info().outputPath("knowledge-search.png"), fullPage: true });

  await search.getByLabel("Search query").fill("kubernetes autoscaling");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("kb-search-empty")).toBeVisible();
});
