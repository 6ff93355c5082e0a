import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { expectNoSeriousAxeFindings } from "./pages/axe";

// The console as an admin meets it: a run page that starts with the conversation, runs listed
// by prompt, destructive actions that ask first, a copyable new key, and every page readable
// on a phone with no serious accessibility finding.

process.env.DEMO_MODEL_DELAY_MS ??= "40";
test.describe.configure({ mode: "serial" });

const SHOTS = "test-results/screenshots";
const PROMPT = "Schedule a call with Ana on Friday at 10 for 30 minutes";

async function signIn(page: Page): Promise<void> {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
}

async function setApprovalPolicy(page: Page, choice: "Never ask" | "Always ask") {
  await page.goto("/chat/settings");
  const radio = page.getByTestId("approval-policy-section").getByRole("radio", { name: choice });
  await radio.check();
  await page.reload();
  await expect(radio).toBeChecked();
}

test("a run's page starts with the conversation, and every console page passes axe at desktop and phone sizes", async ({ page }) => {
  // Six pages at two sizes, each scanned by axe.
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  // The run this page shows makes its change at once: approvals (e2e/approvals.e2e.ts) would
  // split it in two runs. The policy is put back for the tests after this one.
  await setApprovalPolicy(page, "Never ask");
  const chat = new ChatPage(page);
  await chat.gotoNew();
  await chat.send(PROMPT);
  await chat.waitForIdle();
  await setApprovalPolicy(page, "Always ask");

  await page.goto("/admin/runs");
  const link = page.getByTestId("run-link").filter({ hasText: PROMPT }).first();
  await expect(link).toBeVisible();
  await link.click();
  await expect(page.getByTestId("run-title")).toHaveText(PROMPT);
  const conversation = page.getByTestId("run-conversation");
  await expect(conversation.getByTestId("user-message")).toHaveText(PROMPT);
  await expect(conversation.getByTestId("ui-schema-card").filter({ hasText: "Event created" })).toBeVisible();
  await expect(conversation.getByTestId("assistant-message")).toContainText("Done:");
  // The conversation comes before the technical detail.
  const top = async (id: string) => (await page.getByTestId(id).boundingBox())!.y;
  expect(await top("run-conversation")).toBeLessThan(await top("run-timeline"));
  await page.getByTestId("run-timeline").getByTestId("timeline-row").first().waitFor();
  await page.screenshot({ path: `${SHOTS}/console-run.png`, fullPage: true });
  const runUrl = page.url();

  const pages = ["/admin", "/admin/runs", runUrl, "/admin/threads", "/admin/runners", "/admin/mcp", "/admin/knowledge", "/admin/usage"];
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    for (const url of pages) {
      await page.goto(url);
      await expect(page.getByTestId("admin-nav")).toBeVisible();
      // The console polls; wait for its data rather than for a quiet network.
      await expect(page.getByText(/^Loading/)).toHaveCount(0);
      await expectNoSeriousAxeFindings(page, `${url} at ${size.width}px`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${url} at ${size.width}px scrolls sideways`).toBeLessThanOrEqual(0);
    }
  }
  await page.goto(runUrl);
  await expect(page.getByTestId("run-conversation")).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/console-run-phone.png`, fullPage: true });

  // Usage: today's ledger has the run above (and its tokens), and exports as CSV.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/admin/usage");
  const usage = page.getByTestId("usage-panel");
  await expect(usage.getByTestId("usage-table").locator("tbody tr").first()).toBeVisible();
  expect(Number((await usage.getByTestId("usage-total-tokens").textContent())?.replace(/\D/g, ""))).toBeGreaterThan(0);
  const download = page.waitForEvent("download");
  await usage.getByRole("button", { name: "Export CSV" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^dispatch-usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const [header, first] = (await readFile((await file.path())!, "utf8")).split("\n");
  expect(header).toContain("totalTokens");
  expect(first).toMatch(/^\d{4}-\d{2}-\d{2},/);
  await page.screenshot({ path: `${SHOTS}/console-usage.png`, fullPage: true });
});

test("revoking a key and making an admin ask first; a new key can be copied; the theme is the chat's", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/admin");
  await page.getByLabel("Key owner").selectOption({ label: e2eAdmin.email });
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent()) ?? "";
  expect(key.length).toBeGreaterThan(20);
  await page.getByTestId("copy-api-key").click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  const revoked = page.getByTestId("api-keys-table").locator(".pill-bad");
  const before = await revoked.count();
  await page.getByTestId("revoke-key").first().click();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("revoke-key-confirm")).toHaveCount(0);
  expect(await revoked.count()).toBe(before);
  await page.getByTestId("revoke-key").first().click();
  await page.getByTestId("revoke-key-confirm").click();
  await expect(revoked).toHaveCount(before + 1);

  await page.getByTestId("set-role").first().click();
  await expect(page.getByRole("group", { name: /admin rights/ })).toBeVisible();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("group", { name: /admin rights/ })).toHaveCount(0);

  await page.getByTestId("theme-toggle").click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.goto("/chat");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await expect(page.getByTestId("theme-toggle")).toHaveAttribute("data-theme-choice", "light");
});
